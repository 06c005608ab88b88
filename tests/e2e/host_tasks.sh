# shellcheck shell=bash
# Sourced by demo.sh: host/ftrace/tasks.tsv, the host's threads as the
# recording listed them, checked against what the recording knows
# otherwise (QEMU's pid in info.json, its vCPU threads in hvtrace.json),
# and what merge makes of it: --pid QEMU_PID selects exactly the host
# events of threads that the list places in QEMU, every vCPU thread among
# them; and no host thread the list names is shown as "<...>".
# usage: host_tasks HVTRACE ARCHIVE WORK (check() from lib.sh)
host_tasks() {
	local ht_hv=$1 ht_archive=$2 ht_work=$3 tasks qemu vcpus n bad missing
	tasks=$ht_archive/host/ftrace/tasks.tsv
	check "tasks.tsv: the host's threads listed" test -s "$tasks"
	check "tasks.tsv: its header" test "$(head -n 1 "$tasks")" = "$(printf 'tid\tpid\tcomm')"
	qemu=$(jq -r '.qemu_pid' "$ht_archive/vm/demo/info.json")
	vcpus=$(jq -r '.vms[0].vcpu_threads.tids // [] | .[]' "$ht_archive/hvtrace.json")
	check "hvtrace.json names the vCPU threads ($(tr '\n' ' ' <<< "$vcpus"))" test -n "$vcpus"
	missing=0
	for t in $qemu $vcpus; do
		awk -F'\t' -v t="$t" -v p="$qemu" '$1 == t && $2 == p { f = 1 } END { exit !f }' \
			"$tasks" || missing=$((missing + 1))
	done
	check "tasks.tsv: QEMU ($qemu) and its vCPU threads ($(tr '\n' ' ' <<< "$vcpus")) in its process" \
		test "$missing" -eq 0
	"$ht_hv" merge --layer host --pid "$qemu" "$ht_archive" 2> /dev/null > "$ht_work/pid.txt"
	n=$(wc -l < "$ht_work/pid.txt")
	# every line's thread (COMM-TID: the tid after the last '-') in QEMU's process
	bad=$(awk 'NR == FNR { split($0, f, "\t"); pid[f[1]] = f[2]; next }
		{ t = $5; sub(/^.*[^-]-/, "", t); if (pid[t] != q) bad++ }
		END { print bad + 0 }' q="$qemu" "$tasks" "$ht_work/pid.txt")
	check "merge --pid $qemu: $n host events, each of a thread of QEMU ($bad not)" \
		test "$n" -gt 0 -a "$bad" -eq 0
	missing=0
	for t in $vcpus; do
		grep -q -- "-$t " "$ht_work/pid.txt" || missing=$((missing + 1))
	done
	check "merge --pid $qemu: every vCPU thread's events among them" test "$missing" -eq 0
	# the same count as the threads the list places in QEMU, selected by --tid
	n=$("$ht_hv" merge --layer host --tid "$(awk -F'\t' -v q="$qemu" 'NR > 1 && $2 == q {
		printf "%s%s", s, $1; s = "," }' "$tasks")" "$ht_archive" 2> /dev/null | wc -l)
	check "merge --pid: as many events as --tid of QEMU's threads ($n)" \
		test "$n" -eq "$(wc -l < "$ht_work/pid.txt")"
	bad=$("$ht_hv" merge --layer host "$ht_archive" 2> /dev/null | awk '
		NR == FNR { split($0, f, "\t"); listed[f[1]] = 1; next }
		$5 ~ /^<\.\.\.>-/ { t = $5; sub(/^.*[^-]-/, "", t); if (t in listed) bad++ }
		END { print bad + 0 }' "$tasks" -)
	check "merge: no host thread that tasks.tsv names is shown as <...> ($bad)" \
		test "$bad" -eq 0
}
