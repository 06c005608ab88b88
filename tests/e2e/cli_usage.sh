#!/bin/bash
# The command line's conventions (lib/cli.h, docs/architecture.md "Errors"):
# a usage error exits 2 with exactly one line on standard error that names
# the problem and points to the command's --help, before anything is done
# (no archive, no socket, no listening); --help exits 0 on standard output.
# Runs without root and without VMs: every case is refused while parsing.
set -uo pipefail
build=$(cd "${1:?usage: cli_usage.sh BUILD}" && pwd) || exit 1
. "$(dirname "$0")/lib.sh"

hvtrace=$build/hvtrace
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/hvtrace-e2e-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# usage_error CMD ARGS...: exit 2, one stderr line, "see 'hvtrace CMD --help'", nothing created
usage_error() {
	local cmd=$1 err rc lines
	shift
	err=$(timeout 10 "$@" 2>&1 >/dev/null)
	rc=$?
	lines=$(printf '%s\n' "$err" | grep -c '')
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ $err == *"see 'hvtrace $cmd --help'"* ]] &&
		[ -z "$(ls -A)" ]; then
		pass "${*#"$build/"}: exit 2, one line"
	else
		fail "${*#"$build/"}: exit $rc, $lines line(s), $(ls -A | wc -l) file(s) created: $err"
	fi
	rm -rf ./* ./.[!.]* 2>/dev/null
}

usage_error merge "$hvtrace" merge
usage_error merge "$hvtrace" merge --no-such-option A
usage_error merge "$hvtrace" merge -Z A
usage_error merge "$hvtrace" merge A B
usage_error merge "$hvtrace" merge --from 2 --to 1 A
usage_error merge "$hvtrace" merge --layer guest A
usage_error merge "$hvtrace" merge --qemu-trace '' A
usage_error merge "$hvtrace" merge --host-trace '' A
usage_error merge "$hvtrace" merge --format=xml A
usage_error merge "$hvtrace" merge --lag 3 A			# without --follow
usage_error merge "$hvtrace" merge --follow --lag 0 A
usage_error merge "$hvtrace" merge --follow --lag -1 A
usage_error merge "$hvtrace" merge --follow --lag 2s A
usage_error merge "$hvtrace" merge --follow --lag 3601 A
usage_error merge "$hvtrace" merge --follow --lag nan A
usage_error merge "$hvtrace" merge --follow --format=json A	# not a streaming format
usage_error merge "$hvtrace" merge --follow --format=sqlite -o x.db A
usage_error top "$hvtrace" top
usage_error top "$hvtrace" top A B
usage_error top "$hvtrace" top -d 0 A
usage_error top "$hvtrace" top -d x A
usage_error top "$hvtrace" top -n 0 A
usage_error top "$hvtrace" top --lag 0 A
usage_error top "$hvtrace" top --no-such-option A
usage_error top "$hvtrace" top --
usage_error relay "$hvtrace" relay
usage_error relay "$hvtrace" relay A B
usage_error relay "$hvtrace" relay --lag 0 A
usage_error relay "$hvtrace" relay --linger x A
usage_error relay "$hvtrace" relay --viewer-idle 0 A
usage_error relay "$hvtrace" relay --fd 1 A
usage_error relay "$hvtrace" relay --listen 5344 --fd 5 A
usage_error relay "$hvtrace" relay --no-such-option A
usage_error record "$hvtrace" record --live-from-start --qemu-pid 1
# The formats an unknown --format is told are the table's, as --help lists them.
formats=$("$hvtrace" merge --help | sed -n 's/.*\[--format=\([a-z|]*\)\].*/\1/p')
err=$("$hvtrace" merge --format=xml A 2>&1)
check "merge --format=xml names the formats --help lists (${formats:-none found})" \
	test -n "$formats" -a "${err/"$formats"/}" != "$err"
usage_error sql "$hvtrace" sql
usage_error sql "$hvtrace" sql A .mode
usage_error sql "$hvtrace" sql A '.tables pattern'
usage_error sql "$hvtrace" sql A '.schema a b'
usage_error check "$hvtrace" check
usage_error check "$hvtrace" check --no-such-option A
usage_error analyze "$hvtrace" analyze
usage_error analyze "$hvtrace" analyze --no-such-option A
usage_error analyze "$hvtrace" analyze A B
usage_error analyze "$hvtrace" analyze --format json A
usage_error analyze "$hvtrace" analyze --tid 0 A
usage_error analyze "$hvtrace" analyze --tid 12x A
usage_error analyze "$hvtrace" analyze --top 0 A
usage_error analyze "$hvtrace" analyze --comm '' A
usage_error analyze "$hvtrace" analyze --comm sixteen-chars-xx A
usage_error analyze "$hvtrace" analyze --from 2 --to 1 A
usage_error analyze "$hvtrace" analyze --from yesterday A
usage_error analyze "$hvtrace" analyze --io --tid 5 A
usage_error analyze "$hvtrace" analyze --io --comm dd A
usage_error tsc "$hvtrace" tsc
usage_error tsc "$hvtrace" tsc --no-such-option A
usage_error tsc "$hvtrace" tsc --format xml A
usage_error drift "$hvtrace" drift --no-such-option
usage_error drift "$hvtrace" drift --seed abc
usage_error drift "$hvtrace" drift --seed 12x
usage_error drift "$hvtrace" drift --seed -1
usage_error drift "$hvtrace" drift --duration abc
usage_error agent "$hvtrace" agent --no-such-option
usage_error agent "$hvtrace" agent --port /dev/null --connect unix:/nonexistent/sock
usage_error agent "$hvtrace" agent --subbuf-size 12ab
usage_error agent "$hvtrace" agent --nice -21
usage_error agent "$hvtrace" agent --wait -3
usage_error agent "$hvtrace" agent unexpected
usage_error agent "$build/hvtrace-agent" --no-such-option
# An output never writes over an input: not a file of the archive by any
# name (through a symbolic link, a hard link, ".."), not the archive, not the
# host trace.dat. The manifest must be as it was. (A new file is fine.)
arch=$(mktemp -d /tmp/hvtrace-e2e-cli-arch-XXXXXX)
other=$(mktemp -d /tmp/hvtrace-e2e-cli-other-XXXXXX)
trap 'rm -rf "$work" "$arch" "$other"' EXIT
mkdir -p "$arch/host" && echo '{"format": "hvtrace-archive"}' > "$arch/hvtrace.json"
echo trace > "$other/trace.dat"
ln "$arch/hvtrace.json" "$other/hard.json"
ln -s "$arch" "$other/alias"
usage_error merge "$hvtrace" merge "$arch" -o "$arch/hvtrace.json"
usage_error merge "$hvtrace" merge "$arch" -o "$arch/hvtrace.json" --force	# not even so
usage_error merge "$hvtrace" merge "$arch" -o "$arch/host/../hvtrace.json"
usage_error merge "$hvtrace" merge "$arch" -o "$other/alias/hvtrace.json"
usage_error merge "$hvtrace" merge "$arch" -o "$other/hard.json"
usage_error merge "$hvtrace" merge "$arch" -o "$arch"
usage_error merge "$hvtrace" merge "$arch" --format=ctf -o "$other/alias"
usage_error merge "$hvtrace" merge "$arch" --host-trace "$other/trace.dat" -o "$other/trace.dat"
usage_error merge "$hvtrace" merge "$arch" -o ''
usage_error merge "$hvtrace" merge "$arch" --event '['
usage_error merge "$hvtrace" merge "$arch" --comm 'hvdemo[0-9'
usage_error merge "$hvtrace" merge --follow "$other/trace.dat"	# a file does not grow
check "the manifest is as it was" grep -q hvtrace-archive "$arch/hvtrace.json"
check "and nothing was added to the archive" test "$(ls -A "$arch" | tr '\n' ' ')" = "host hvtrace.json "
usage_error record "$hvtrace" record --no-such-option
usage_error record "$hvtrace" record -x
usage_error record "$hvtrace" record unexpected
usage_error record "$hvtrace" record --uid-share 10 --qemu-pid 1
usage_error record "$hvtrace" record --qemu-pid 1 --listen unix:/tmp/hvt-cli-s.sock --host-apps /tmp/./hvt-cli-s.sock
usage_error record "$hvtrace" record --qemu-pid 1 -e sched:no_such_event
usage_error record "$hvtrace" record --uid-share 101 --host-apps /tmp/nosuch.sock --qemu-pid 1
usage_error record "$hvtrace" record --duration abc --listen "unix:$work/s"
usage_error record "$hvtrace" record --nice 20 --listen "unix:$work/s"
usage_error record "$hvtrace" record --listen bogus
usage_error record "$hvtrace" record --channel bogus
usage_error record "$hvtrace" record --list --listen "unix:$work/s"
usage_error record "$hvtrace" record --list --vm demo
usage_error record "$hvtrace" record --listen "unix:$work/s" -o ''
usage_error record "$hvtrace" record --listen "unix:$work/s" -e 'no_colon'
usage_error record "$hvtrace" record --listen "unix:$work/s" -e 'sched:*'
usage_error record "$hvtrace" record --listen "unix:$work/s" -e 'sched:../../x'
usage_error record "$hvtrace" record --listen "unix:$work/s" --no-host-trace -e sched:sched_switch
usage_error record "$hvtrace" record --channel "unix:$work/s" --listen "unix:$work/t"
usage_error record "$hvtrace" record --channel "unix:$work/s" --qemu-log "$work/qemu.log"

for cmd in merge check tsc drift agent record top; do
	out=$("$hvtrace" "$cmd" --help 2>/dev/null)
	check "hvtrace $cmd --help exits 0 with its usage on standard output" \
		test $? -eq 0 -a -n "$out"
	check "... as 'hvtrace help $cmd' prints it" test "$("$hvtrace" help "$cmd")" = "$out"
done
err=$("$hvtrace" mrege A 2>&1)
check "a mistyped command: exit 2, the nearest named ($err)" test $? -eq 2 -a \
	"$err" = "hvtrace: error: unknown command 'mrege'; did you mean 'merge'? ('hvtrace --help' lists them)"
err=$("$hvtrace" --foo merge 2>&1)
check "an option before the command: exit 2, called an option ($err)" test $? -eq 2 -a \
	"$err" = "hvtrace: error: unknown option '--foo': options follow the command (hvtrace COMMAND --help); before it only --help and --version"
check "hvtrace help help: the list of commands" test "$("$hvtrace" help help)" = "$("$hvtrace" --help)"
# The command pages say what --help says now, and the version is one.
"$top/tests/man_pages.sh" "$hvtrace" > "$work/man.out" 2>&1
rc=$?	# taken before the $(tail) of the message, which sets $? anew
check "man/man1 is what each command's --help says ($(tail -1 "$work/man.out"))" test "$rc" -eq 0
version=$("$hvtrace" --version)
for v in "$build/hvtrace-agent --version" "$build/hvtrace-agent -V" "$hvtrace agent --version"; do
	out=$($v 2>&1)
	check "${v#"$build/"} prints hvtrace --version's '$version' ($out, exit $?)" \
		test $? -eq 0 -a "$out" = "$version"
done
check "hvtrace --version names the man pages' version" grep -q "^\.TH HVTRACE-MERGE 1 .* \"$("$hvtrace" --version)\"" \
	"$top/man/man1/hvtrace-merge.1"
# Found only once the archive was made (a QEMU log that is not there): the
# archive must then say "failed", not "complete". (An -e event the host
# lacks, found there before, is now a usage error: above.)
if [ "$(id -u)" = 0 ]; then
	sleep 30 & sleeper=$!
	timeout 30 "$hvtrace" record --qemu-pid "$sleeper" --qemu-log "$work/no-such.log" \
		--duration 1 -o "$work/a" > "$work/record.out" 2>&1
	rc=$?
	kill "$sleeper"
	wait "$sleeper" 2> /dev/null
	check "record failing to set up after the archive was made exits 1 ($rc)" test "$rc" -eq 1
	check "and its archive is marked failed" grep -q '"status": "failed"' "$work/a/hvtrace.json"
	check "and it says why" grep -q "qemu-log $work/no-such.log: No such file" \
		"$work/record.out"
	# a "QEMU" with no thread named as a vCPU: said at the start, with the fix
	sleep 30 & sleeper=$!
	timeout 30 "$hvtrace" record --qemu-pid "$sleeper" --duration 1 -o "$work/novcpu" \
		-e sched:sched_switch > "$work/novcpu.out" 2>&1
	kill "$sleeper"
	wait "$sleeper" 2> /dev/null
	check "record --qemu-pid of a process with no vCPU thread: warned, with the fix" \
		grep -q "warning: VM vm: which QEMU threads run its vCPUs is not known: QEMU names them only with -name NAME,debug-threads=on, or give --qmp SOCKET" \
		"$work/novcpu.out"
	check "... and -e of a default event records it once" \
		test "$(grep -c '"sched:sched_switch"' "$work/novcpu/hvtrace.json")" -eq 1
else
	echo "SKIP record failing after the archive was made: needs root (tracefs)"
fi
# A tracefs instance whose collector died (kill -9) is reported by --list and
# removed by the next record; in a mount namespace of its own, tracefs
# mounted there if this fresh machine has not.
if [ "$(id -u)" = 0 ]; then
	sh -c 'exit 0' & dead=$!
	wait "$dead"
	unshare -m sh -c '
		t=/sys/kernel/tracing
		[ -d "$t/instances" ] || mount -t tracefs nodev "$t" || exit 3
		mkdir "$t/instances/hvtrace-$1" || exit 3
		"$2" record --list > "$3/list.out" 2>&1
		timeout 30 "$2" record --listen "unix:$3/stale.sock" --duration 1 -o "$3/stale" \
			> "$3/stale.out" 2>&1
		[ -d "$t/instances/hvtrace-$1" ] && rmdir "$t/instances/hvtrace-$1" && exit 4
		exit 0' sh "$dead" "$hvtrace" "$work"
	rc=$?
	check "a dead collector's tracefs instance: set up ($rc)" test "$rc" -ne 3
	check "record --list reports it" grep -q "tracefs instance hvtrace-$dead: left by collector pid $dead" \
		"$work/list.out"
	check "the next record removes it ($rc)" test "$rc" -eq 0
	check "and says so" grep -q "removing tracefs instance hvtrace-$dead" "$work/stale.out"
else
	echo "SKIP a dead collector's tracefs instance: needs root (tracefs)"
fi
out=$("$hvtrace" analyze --help)
check "analyze --help exits 0 on stdout" test $? -eq 0 -a -n "$out"
"$hvtrace" analyze "$arch" > /dev/null 2> "$work/analyze.err"
check "analyze on no archive: exit 1 ($?)" test $? -eq 1
out=$("$hvtrace" drift --seed 0x10 --list)
check "drift --seed takes a hexadecimal number" test $? -eq 0 -a -n "$out"
summary "command line"
