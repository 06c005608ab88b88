#!/bin/bash
# End to end on this host, no VM: `hvtrace relay` and `hvtrace record --live`
# serving recordings of the host layer to babeltrace2's LTTng live source
# (net://) while they are written:
#   1. a relay with --from-start beside a recording: babeltrace2 gets events
#      before the recording ends, ends by itself after it (with
#      session-not-found-action=end), and has then received exactly what
#      babeltrace2 reads from merge --format=ctf of the finished archive,
#      in the same order (host times: the host layer's clock is exact);
#      the relay exits 0 and leaves no directory behind;
#   2. record --live with hostile viewers: one killed mid-stream, one that
#      asks for packets and never reads the replies, random bytes on the
#      port, and a well-behaved babeltrace2 beside them: the recording
#      completes on time with every event, the garbage is said as a
#      protocol error, the good viewer ends with a subset of the archive's
#      events (it attached "from now"), and the collector returns within
#      the relay's linger of the stuck viewer;
#   3. a port in use: record --live says so and records nothing;
#   4. all 16 viewer places held by idle connections, on recording 1 (now
#      finished, served from its start until Ctrl-C): a newcomer within
#      --viewer-idle is refused, said; one after it gets the place of an
#      idle one, said, and babeltrace2 there receives every event; the
#      relay counts them on Ctrl-C.
set -uo pipefail
build=${1:?usage: relay_host.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-relay-XXXXXX)
trap 'stop_all; [ "${KEEP:-}" ] || rm -rf "$work"' EXIT
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
host=$(hostname | cut -c1-63)

# babeltrace2 text without the deltas, times in host TSC cycles
events() { sed 's/ (+[^)]*)//' "$1"; }
port_of() { sed -n 's/.*listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$1" | head -n1; }
viewer() {	# viewer OUT URL: babeltrace2 attached until the session ends
	timeout 60 babeltrace2 ${BT_LOG:-} --clock-cycles "$2" \
		--params='session-not-found-action="end"' > "$1" 2> "$1.err"
}

# 1. relay --from-start, then the recording, then the viewer.
start_bg target bash -c 'while :; do sleep 0.005; done'
start_bg relay "$hvtrace" relay --from-start --listen 0 "$work/a1" 2> "$work/relay1.err"
wait_for 10 grep -q "listening on" "$work/relay1.err"
port=$(port_of "$work/relay1.err")
check "the relay says where it listens (port ${port:-none})" test -n "$port"
start_bg rec "$hvtrace" record --qemu-pid "$target" --vm target -o "$work/a1" --duration 5 \
	> "$work/record1.out" 2>&1
wait_for 15 grep -q "serving a1 live" "$work/relay1.err"
check "the relay says the URL to give babeltrace2" \
	grep -q "babeltrace2 net://127.0.0.1:$port/host/$host/a1" "$work/relay1.err"
start_bg bt viewer "$work/live1.txt" "net://127.0.0.1:$port/host/$host/a1"
wait_for 10 test -s "$work/live1.txt"
check "babeltrace2 receives events while the recording runs" \
	bash -c "test -s '$work/live1.txt' && kill -0 $rec"
reap "$rec" 30
check "recording 1 completes" test $? -eq 0
reap "$bt" 20
status=$?
check "babeltrace2 ends by itself once the recording ended (status $status)" test "$status" -eq 0
reap "$relay" 20
status=$?
check "the relay exits 0 once its viewer left (status $status)" test "$status" -eq 0
"$hvtrace" merge --format=ctf -o "$work/ctf1" "$work/a1" 2> /dev/null
babeltrace2 --clock-cycles "$work/ctf1" > "$work/final1.txt"
late=$(sed -n 's/.*; \([0-9]*\) placed later than their time.*/\1/p' "$work/relay1.err")
check "the relay said how many events it placed later than their time (${late:-not said})" \
	test -n "$late"
# the event, its context and fields, without the time and the bound
strip() { sed -e 's/^\[[0-9]*\] //' -e 's/bound_ns = -\?[0-9]*/bound_ns/' "$1" | sort; }
check "babeltrace2 live received the $(wc -l < "$work/final1.txt") events of merge --format=ctf, each once" \
	cmp -s <(strip "$work/live1.txt") <(strip "$work/final1.txt")
if [ "${late:-1}" = 0 ]; then
	check "... at the same times, in the same order" \
		cmp -s <(events "$work/live1.txt") <(events "$work/final1.txt")
fi
check "the relay removed its directory" test -z "$(ls -A "$TMPDIR")"
stop_pid "$target" TERM 5

# 2. record --live and hostile viewers.
start_bg target bash -c 'while :; do sleep 0.005; done'
begin=$(date +%s)
start_bg rec "$hvtrace" record --qemu-pid "$target" --vm target -o "$work/a2" --duration 8 \
	--live 0 > "$work/record2.out" 2>&1
wait_for 15 grep -q "serving a2 live" "$work/record2.out"
port=$(port_of "$work/record2.out")
url="net://127.0.0.1:$port/host/$host/a2"
start_bg good viewer "$work/live2.txt" "$url"
start_bg killed babeltrace2 "$url" > "$work/killed.txt" 2> /dev/null
# a viewer that attaches from the start, asks for 400 packets and reads nothing
start_bg stuck python3 -c '
import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
def cmd(c, payload=b""):
    s.sendall(struct.pack("!QII", len(payload), c, 0) + payload)
def recv(n):
    b = b""
    while len(b) < n:
        b += s.recv(n - len(b))
    return b
cmd(1, struct.pack("!QIII", 0, 2, 4, 1)); recv(20)
cmd(8); recv(4)
time.sleep(1)
cmd(3, struct.pack("!QQI", 1, 0, 1))
status, n = struct.unpack("!II", recv(8)); recv(n * 4371)
for i in range(400):
    cmd(5, struct.pack("!QQI", 2, 0, 2 << 20))
time.sleep(60)
' "$port"
wait_for 10 test -s "$work/killed.txt"
check "a viewer to kill receives events" test -s "$work/killed.txt"
kill -KILL "$killed"
reap "$killed" 5
head -c 65536 /dev/urandom | socat -u - "TCP:127.0.0.1:$port" 2> /dev/null
printf '\0\0\0\0\0\0\0\0\0\0\0\2\0\0\0\0' | socat -u - "TCP:127.0.0.1:$port" 2> /dev/null
wait_for 10 test -s "$work/live2.txt"
check "babeltrace2 receives events while the recording runs, beside the hostile viewers" \
	bash -c "test -s '$work/live2.txt' && kill -0 $rec" ||
	grep -v '^ ' "$work/live2.txt.err" | tail -n 5
reap "$rec" 60
status=$?
took=$(($(date +%s) - begin))
check "recording 2 completes (status $status) within its 8 s and the relay's 10 s linger (${took} s)" \
	test "$status" -eq 0 -a "$took" -le 30
check "the garbage on the port was said as a protocol error" \
	grep -q "protocol error" "$work/record2.out"
check "the stuck viewer was said" grep -q "had not read everything" "$work/record2.out"
reap "$good" 20
status=$?
check "the good viewer ends by itself (status $status)" test "$status" -eq 0
"$hvtrace" merge --format=ctf -o "$work/ctf2" "$work/a2" 2> /dev/null
babeltrace2 --clock-cycles "$work/ctf2" > "$work/final2.txt"
served=$(sed -n 's/.*served \([0-9]*\) events, all of the recording.*/\1/p' "$work/record2.out")
check "the relay served all $(wc -l < "$work/final2.txt") events of the recording (${served:-not said})" \
	test "${served:-0}" -eq "$(wc -l < "$work/final2.txt")"
check "the good viewer received events of the archive only ($(wc -l < "$work/live2.txt"))" \
	test -z "$(comm -23 <(events "$work/live2.txt" | sort) <(events "$work/final2.txt" | sort))"
check "the archive is complete" grep -q '"status": *"complete"' "$work/a2/hvtrace.json"
stop_all
stop_pid "$target" TERM 5

# 3. A port in use.
start_bg busy python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(30)' > "$work/busy.port"
wait_for 5 test -s "$work/busy.port"
"$hvtrace" record --qemu-pid $$ --vm t -o "$work/a3" --duration 1 --live "$(cat "$work/busy.port")" \
	> "$work/record3.out" 2>&1
status=$?
check "record --live on a port in use fails (status $status), saying so" \
	bash -c "test $status -ne 0 && grep -q 'live.*in use' '$work/record3.out'"
check "... and records nothing" test ! -e "$work/a3"
stop_all

# 4. Idle connections in every place.
start_bg relay "$hvtrace" relay --listen 0 --viewer-idle 6 "$work/a1" 2> "$work/relay4.err"
wait_for 10 grep -q "serving a1 live" "$work/relay4.err"
port=$(port_of "$work/relay4.err")
# 16 connections that never speak, then a 17th at once: refused (closed
# unanswered); the 16 stay open until the viewer below is done
start_bg idle python3 -c '
import socket, sys, time
port = int(sys.argv[1])
held = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
time.sleep(0.5)
late = socket.create_connection(("127.0.0.1", port)); late.settimeout(3)
try:
    print("refused" if late.recv(1) == b"" else "served", flush=True)
except socket.timeout:
    print("served", flush=True)
time.sleep(60)' "$port" > "$work/idle.out"
wait_for 10 test -s "$work/idle.out"
check "a 17th viewer while 16 are idle for less than --viewer-idle is refused ($(cat "$work/idle.out"))" \
	bash -c "grep -qx refused '$work/idle.out' && grep -q 'refused: 16 viewers are connected already, none idle for 6 s' '$work/relay4.err'"
sleep 6.5
viewer "$work/live4.txt" "net://127.0.0.1:$port/host/$host/a1"
status=$?
check "after --viewer-idle, babeltrace2 gets an idle viewer's place and all $(wc -l < "$work/final1.txt") events (status $status, $(wc -l < "$work/live4.txt"))" \
	cmp -s <(strip "$work/live4.txt") <(strip "$work/final1.txt")
check "... the idle viewer it replaced was said" \
	grep -q "idle for [0-9.]* s while all 16 places were taken; its connection is closed" \
	"$work/relay4.err"
stop_pid "$idle" TERM 5
stop_pid "$relay" INT 10
check "the relay counts the viewers on Ctrl-C" \
	grep -q "viewers: [0-9]* connected, 1 refused (all 16 places taken), [1-9][0-9]* closed idle for a newcomer, 0 closed on a protocol error" \
	"$work/relay4.err"
stop_all

echo "relay_host: $e2e_passed passed, $e2e_failed failed"
[ "$e2e_failed" -eq 0 ]
