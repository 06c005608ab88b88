# selftest_ctf.awk -v n=N: checks babeltrace2's text output of a guest
# kernel trace in which hvtrace_selftest.ko emitted N of each of its events
# on CPU 0 (seq 0..N-1), then N on CPU 1 (seq N..2N-1) (tests/e2e/kmod_ctf.sh).
# Per CPU the self-test events must come as fields(seq), blob(seq),
# fields(seq + 1), ... and each must print exactly the values
# guest-kmod/hvtrace_selftest.c assigns for its seq, with pid = the writer's
# tid and comm "sh". Prints a verdict; exits 1 at the first difference.
# Other events (sched_switch) are skipped.

function fields_payload(s, tid) {
	return sprintf("{ s8v = %d, u8v = %d, s16v = %d, u16v = %d, s32v = %d, u32v = %d, " \
		"s64v = %d, seq = %d, hexv = 0xDEAD%04X, comm = \"sh\", " \
		"arr = [ [0] = %d, [1] = %d, [2] = %d, [3] = %d ], pid = %d, text = \"selftest-%d\" }",
		-(s % 100), s % 256, -(s * 3 % 30000), s * 5 % 65536, -(s * 7),
		s * 11 % 4294967296, -(s * 13), s, s % 65536,
		s % 65536, (s + 1) % 65536, (s + 2) % 65536, (s + 3) % 65536, tid, s)
}

function blob_payload(s,    len, i, bytes) {
	len = s % 40
	bytes = "["
	for (i = 0; i < len; i++)
		bytes = bytes sprintf("%s [%d] = %d", i ? "," : "", i, (s + i) % 256)
	return sprintf("{ seq = %d, payload_len = %d, payload = %s ] }", s, len, bytes)
}

function bad(why) {
	printf "line %d: %s\n", NR, why
	failed = 1
	exit 1
}

BEGIN {
	if (n + 0 <= 0) {
		print "selftest_ctf.awk: -v n=N is missing"
		failed = 1
		exit 1
	}
	for (c = 0; c < 2; c++) {
		want[c] = c * n
		kind[c] = "hvtrace_selftest_fields:"
	}
}

$3 ~ /^hvtrace_selftest_(fields|blob):$/ {
	i = index($0, "}, { cpu_id = ")
	if (!i)
		bad("no event context: " $0)
	rest = substr($0, i + 14)
	cpu = rest + 0
	i = index(rest, ", tid = ")
	j = index(rest, " }, { ")
	if (!i || !j || !(cpu in want))
		bad("unexpected event context: " $0)
	tid = substr(rest, i + 8) + 0
	got = substr(rest, j + 4)
	if ($3 != kind[cpu])
		bad(sprintf("cpu %d: %s where %s seq %d was due", cpu, $3, kind[cpu], want[cpu]))
	if (want[cpu] >= (cpu + 1) * n)
		bad(sprintf("cpu %d: more than %d events", cpu, n))
	if ($3 == "hvtrace_selftest_fields:") {
		expected = fields_payload(want[cpu], tid)
		kind[cpu] = "hvtrace_selftest_blob:"
	} else {
		expected = blob_payload(want[cpu])
		kind[cpu] = "hvtrace_selftest_fields:"
		want[cpu]++
	}
	if (got != expected)
		bad(sprintf("cpu %d:\n  got      %s\n  expected %s", cpu, got, expected))
	events++
}

END {
	if (failed)
		exit 1
	for (c = 0; c < 2; c++)
		if (want[c] != (c + 1) * n || kind[c] != "hvtrace_selftest_fields:") {
			printf "cpu %d: stopped before seq %d (%s)\n", c, want[c], kind[c]
			exit 1
		}
	printf "%d events, every field as emitted, in emission order on each CPU\n", events
}
