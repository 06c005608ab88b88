#!/bin/bash
# The SQL cookbook (docs/sql.md) on a real archive: each query, as the
# docs print it, run by `hvtrace sql`, and its result checked against what
# `hvtrace analyze` and `hvtrace merge` say of the same archive.
# Sourced by demo.sh (sql_cookbook HVTRACE ARCHIVE WORK, with lib.sh's
# check), or run on its own: tests/e2e/sql_cookbook.sh BUILD ARCHIVE.
# shellcheck shell=bash

ck_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# The query named NAME of docs/sql.md.
cookbook_query() {
	awk -v name="$1" '$0 == "<!-- query: " name " -->" { f = 1; next }
		f && /^```sql/ { g = 1; next } g && /^```/ { exit } g { print }' "$ck_top/docs/sql.md"
}

# Runs query NAME on ARCHIVE into WORK/NAME.tsv (header dropped); its status.
cookbook_run() {
	local q
	q=$(cookbook_query "$1")
	[ -n "$q" ] || { echo "docs/sql.md has no query $1" >&2; return 1; }
	"$ck_hv" sql "$ck_archive" "$q" > "$ck_work/$1.all" 2> "$ck_work/$1.err" &&
		tail -n +2 "$ck_work/$1.all" > "$ck_work/$1.tsv"
}

# near A B [PPM]: A and B (ns) agree within PPM (10) of B plus 1 us: the
# host clock's map, per piece, against analyze's one rate over the trace.
near() { awk -v a="$1" -v b="$2" -v p="${3:-10}" 'BEGIN {
	d = a - b; if (d < 0) d = -d; exit !(d <= (b < 0 ? -b : b) * p / 1e6 + 1000) }'; }

# Every row of WORK/NAME.tsv (key fields K, value field V) against REF
# (lines "key<TAB>value"): the same keys, each value near. Prints why not.
same_sums() {	# same_sums NAME "K1 K2" V REF
	awk -F'\t' -v keys="$2" -v col="$3" -v ref="$4" '
		function key(   k, i, n, ks) { n = split(keys, ks, " "); k = ""
			for (i = 1; i <= n; i++) k = k (i > 1 ? "|" : "") $ks[i]; return k }
		BEGIN { while ((getline l < ref) > 0) { split(l, f, "\t"); want[f[1]] = f[2]; nw++ } }
		{ k = key(); n++; if (!(k in want)) { print "not in analyze: " k; bad = 1; next }
		  d = $col - want[k]; if (d < 0) d = -d
		  w = want[k] < 0 ? -want[k] : want[k]
		  if (d > w * 10 / 1e6 + 1000) { print k ": " $col " vs " want[k]; bad = 1 } }
		END { if (n != nw) { print n " rows, analyze has " nw; bad = 1 } exit bad }' \
		"$ck_work/$1.tsv"
}

sql_cookbook() {	# sql_cookbook HVTRACE ARCHIVE WORK
	ck_hv=$1 ck_archive=$2 ck_work=$3
	local tsv=$ck_work/ck-analysis.tsv vm q n
	"$ck_hv" analyze --format tsv "$ck_archive" > "$tsv" 2>/dev/null
	vm=$(awk -F'\t' 'NR == 2 { print $1 }' "$tsv")

	check "sql: hvtrace sql builds the archive's database" \
		"$ck_hv" sql "$ck_archive" --path
	check "sql: its meta says complete" test "$("$ck_hv" sql "$ck_archive" \
		"SELECT value FROM meta WHERE name = 'complete'" | tail -n 1)" = 1

	# built once: not again while the archive stays as it is, again when it changes
	cp -a "$ck_archive" "$ck_work/copy"
	rm -rf "$ck_work/copy/.hvtrace-cache"
	"$ck_hv" sql "$ck_work/copy" --path > /dev/null 2> "$ck_work/build1.err"
	"$ck_hv" sql "$ck_work/copy" --path > /dev/null 2> "$ck_work/build2.err"
	touch "$ck_work/copy/hvtrace.json"
	"$ck_hv" sql "$ck_work/copy" --path > /dev/null 2> "$ck_work/build3.err"
	check "sql: the cache is built once, and again when the archive changes" sh -c '
		grep -q "building its database" "$1" && ! grep -q "building its database" "$2" &&
		grep -q "building its database" "$3"' sh "$ck_work/build1.err" "$ck_work/build2.err" \
		"$ck_work/build3.err"
	rm -rf "$ck_work/copy"

	# a read-only archive (a bind mount of it, in a mount namespace of its
	# own): its database goes to the user's cache instead
	if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
		mkdir -p "$ck_work/ro" "$ck_work/xdg"
		q=$(unshare --mount --propagation private sh -c 'mount --bind "$1" "$2" &&
			mount -o remount,bind,ro "$2" &&
			XDG_CACHE_HOME="$3" "$4" sql "$2" "SELECT count(*) FROM event"' sh \
			"$ck_archive" "$ck_work/ro" "$ck_work/xdg" "$ck_hv" 2>/dev/null | tail -n 1)
		n=$("$ck_hv" sql "$ck_archive" "SELECT count(*) FROM event" | tail -n 1)
		check "sql: a read-only archive's database in XDG_CACHE_HOME ($q of $n events)" \
			sh -c 'test "$1" = "$2" && ls "$3"/hvtrace/*.db' sh "$q" "$n" "$ck_work/xdg"
	else
		echo "SKIP sql: a read-only archive's database in XDG_CACHE_HOME: needs root and unshare"
	fi

	# vCPU states: analyze's vCPU rows, ns and pieces
	cookbook_run vcpu-states
	awk -F'\t' '$2 == "vcpu" && $6 == -1 && $5 ~ /^(guest|guest-idle|hypervisor|preempted|blocked|unknown)$/ {
		print $1 "|" $3 "|" $5 "\t" $8 }' "$tsv" > "$ck_work/ref-states"
	check "sql vcpu-states: the totals of analyze --format tsv" \
		same_sums vcpu-states "1 2 3" 4 "$ck_work/ref-states"
	awk -F'\t' '$2 == "vcpu" && $6 == -1 && $5 ~ /^(guest|guest-idle|hypervisor|preempted|blocked|unknown)$/ {
		print $1 "|" $3 "|" $5 "\t" $10 }' "$tsv" > "$ck_work/ref-pieces"
	check "sql vcpu-states: as many pieces as analyze counts" \
		same_sums vcpu-states "1 2 3" 6 "$ck_work/ref-pieces"

	cookbook_run preempted-by
	awk -F'\t' '$2 == "vcpu" && $5 == "preempted-by" { print $1 "|" $3 "|" $6 "\t" $8 }' \
		"$tsv" > "$ck_work/ref-preempted"
	check "sql preempted-by: analyze's preempted-by rows" \
		same_sums preempted-by "1 2 3" 5 "$ck_work/ref-preempted"

	cookbook_run guest-threads-lost
	awk -F'\t' '$2 == "thread" && $6 == -1 && $5 ~ /^(preempted|blocked|hypervisor)$/ {
		lost[$1 "|" $3] += $8 } END { for (k in lost) print k "\t" lost[k] }' "$tsv" |
		sort > "$ck_work/ref-lost-all"
	awk -F'\t' 'NR == FNR { want[$1 "|" $2] = 1; next } ($1 in want)' \
		"$ck_work/guest-threads-lost.tsv" "$ck_work/ref-lost-all" > "$ck_work/ref-lost"
	cut -f1 "$ck_work/guest-threads-lost.tsv" > "$ck_work/lost-keys"
	check "sql guest-threads-lost: analyze's threads' lost time ($(wc -l < "$ck_work/lost-keys") threads)" \
		same_sums guest-threads-lost "1 2" 4 "$ck_work/ref-lost"

	cookbook_run exits-by-reason
	awk -F'\t' '$2 == "thread" && $5 == "exit-reason" { print $1 "|" $3 "|" $6 "\t" $8 }' \
		"$tsv" > "$ck_work/ref-exits"
	check "sql exits-by-reason: analyze's exit-reason rows ($(wc -l < "$ck_work/ref-exits"); none under TCG)" \
		same_sums exits-by-reason "1 2 4" 6 "$ck_work/ref-exits"

	# the longest guest slices: both ends are guest sched_switch events merge prints
	cookbook_run longest-guest-slices
	"$ck_hv" merge "$ck_archive" --vm "$vm" --layer kernel --event sched_switch 2>/dev/null |
		awk '{ split($1, t, "."); printf "%s %.0f\n", $4, t[1] * 1e9 + t[2] }' \
		> "$ck_work/guest-switches"
	check "sql longest-guest-slices: 10 rows, each from one guest switch to the next" awk -F'\t' '
		BEGIN { while ((getline l < ARGV[2]) > 0) at[l] = 1; ARGV[2] = "" }
		{ n++; if (!(sprintf("vcpu%s %.0f", $5, $2) in at) ||
			   !(sprintf("vcpu%s %.0f", $5, $2 + $3) in at)) bad = 1 }
		END { exit bad || n != 10 }' "$ck_work/longest-guest-slices.tsv" "$ck_work/guest-switches"

	# every layer within 1 ms of event 2000: merge --from/--to prints as many;
	# how many depends on the run (it may be event 2000 alone), not whether
	# the two agree and hold event 2000
	cookbook_run window-around-event
	q=$("$ck_hv" sql "$ck_archive" "SELECT ts FROM event WHERE id = 2000" | tail -n 1)
	n=$("$ck_hv" merge "$ck_archive" --from "$(awk -v t="$q" 'BEGIN { printf "%.9f", (t - 1000000) / 1e9 }')" \
		--to "$(awk -v t="$q" 'BEGIN { printf "%.9f", (t + 1000000) / 1e9 }')" 2>/dev/null | wc -l)
	check "sql window-around-event: merge --from/--to prints the same $n events" \
		test "$(wc -l < "$ck_work/window-around-event.tsv")" -eq "$n" -a "$n" -ge 1
	check "sql window-around-event: event 2000 is among them" \
		awk -F'\t' '$1 == 2000 { f = 1 } END { exit !f }' "$ck_work/window-around-event.tsv"

	# every event's fields: merge --format=json's, event by event
	"$ck_hv" merge "$ck_archive" --format=json 2>/dev/null | grep '"ph":"i"' |
		sed 's/.*"args":{"cpu":[^,]*,"tid":-\{0,1\}[0-9]*,\{0,1\}//; s/^"bound_ns":[0-9a-z]*,\{0,1\}//
			s/}},\{0,1\}$//' \
		> "$ck_work/json-fields"
	"$ck_hv" sql "$ck_archive" "SELECT coalesce(substr(a.args, 2, length(a.args) - 2), '')
		FROM event e LEFT JOIN arg_set a ON a.id = e.arg_set_id ORDER BY e.id" 2>/dev/null |
		tail -n +2 > "$ck_work/sql-fields"
	check "sql: each event's fields, merge --format=json's ($(wc -l < "$ck_work/json-fields") events)" \
		cmp "$ck_work/json-fields" "$ck_work/sql-fields"
	q=$("$ck_hv" sql "$ck_archive" "SELECT (SELECT count(*) FROM arg_set) || ' ' ||
		(SELECT count(arg_set_id) FROM event)" | tail -n 1)
	check "sql: equal fields share an arg set (sets, events with fields: $q)" \
		awk -v q="$q" 'BEGIN { split(q, n, " "); exit !(n[1] > 0 && n[1] < n[2]) }'

	cookbook_run host-switched-in
	"$ck_hv" merge "$ck_archive" --layer host --event sched_switch 2>/dev/null |
		sed -n 's/.* next_comm=\(.*\) next_pid=.*/\1/p' | sed 's/^"\(.*\)"$/\1/' | sort | uniq -c |
		awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0 "\t" n }' > "$ck_work/ref-switched-in"
	sort "$ck_work/host-switched-in.tsv" > "$ck_work/switched-in"
	sort "$ck_work/ref-switched-in" > "$ck_work/ref-switched-in.sorted"
	check "sql host-switched-in: merge's host sched_switch events by next_comm, exactly" \
		cmp "$ck_work/ref-switched-in.sorted" "$ck_work/switched-in"

	cookbook_run events-per-layer
	"$ck_hv" merge "$ck_archive" --format=text -o /dev/null 2> "$ck_work/merge.err"
	# "N events (host H, kernel K, user U[, vmm V])": vmm with QEMU's log
	q=$(sed -n 's/.* \([0-9]*\) events (host \([0-9]*\), kernel \([0-9]*\), user \([0-9]*\)\(, vmm \([0-9]*\)\)\{0,1\}).*/\1 \2 \3 \4 \6/p' \
		"$ck_work/merge.err")
	check "sql events-per-layer: merge's summary ($q)" awk -F'\t' -v want="$q" '
		{ all += $3; by[$2] += $3 } END { split(want, w, " ")
		  exit !(all == w[1] && by["host"] == w[2] && by["kernel"] == w[3] && by["user"] == w[4] &&
			 by["vmm"] == w[5] + 0) }' \
		"$ck_work/events-per-layer.tsv"

	cookbook_run host-cpu-busy
	"$ck_hv" merge "$ck_archive" --layer host --event sched_switch 2>/dev/null |
		awk '{ n[$4]++ } END { for (c in n) print substr(c, 4) "\t" n[c] }' | sort -n > "$ck_work/ref-cpu"
	# each switch ends its CPU's slice before; the last one's runs to the end,
	# unless it is the trace's last instant
	check "sql host-cpu-busy: a slice per host sched_switch, per CPU" awk -F'\t' '
		NR == FNR { want[$1] = $2; next }
		{ n++; if (!($1 in want) || $2 > want[$1] || $2 < want[$1] - 1) bad = 1 }
		END { exit bad || n != length(want) }' "$ck_work/ref-cpu" "$ck_work/host-cpu-busy.tsv"

	cookbook_run vcpu-thread-states
	check "sql vcpu-thread-states: runs within analyze's, no shorter than their recorded part" awk -F'\t' '
		NR == FNR { if ($2 == "vcpu" && $6 == -1) {
			k = $3; if ($5 ~ /^(guest|guest-idle|hypervisor)$/) run[k] += $8
			if ($5 == "start-not-recorded") guessed[k] += $8
			if ($5 == "too-short") short[k] += $8 } next }
		$3 == "Running" { seen[$2] = 1; if ($4 > run[$2] + short[$2] + 1000 ||
					       $4 < run[$2] - guessed[$2] - 1000) bad = 1 }
		END { for (k in run) if (!(k in seen)) bad = 1; exit bad }' \
		"$tsv" "$ck_work/vcpu-thread-states.tsv"

	cookbook_run guest-runnable
	awk -F'\t' '$2 == "thread" && $5 == "runnable" { print $1 "|" $3 "\t" $8 }' "$tsv" \
		> "$ck_work/ref-runnable"
	check "sql guest-runnable: analyze's runnable rows" \
		same_sums guest-runnable "1 2" 4 "$ck_work/ref-runnable"

	cookbook_run clock-exchanges
	n=$(($(wc -l < "$ck_archive/vm/$vm/sync.tsv") - 1))
	check "sql clock-exchanges: every line of vm/$vm/sync.tsv ($n)" \
		test "$(awk -F'\t' -v v="$vm" '$1 == v { print $2 }' "$ck_work/clock-exchanges.tsv")" -eq "$n"

	cookbook_run wakers
	n=$("$ck_hv" merge "$ck_archive" --event sched_wakeup 2>/dev/null | wc -l)
	q=$("$ck_hv" sql "$ck_archive" "SELECT count(*) FROM thread_state WHERE state = 'R' AND waker_utid IS NOT NULL" | tail -n 1)
	check "sql wakers: a waker for a wakeup that ended a sleep ($q of $n sched_wakeup)" \
		test "$q" -gt 0 -a "$q" -le "$n" -a "$(wc -l < "$ck_work/wakers.tsv")" -gt 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then	# on its own
	set -uo pipefail
	build=${1:?usage: sql_cookbook.sh BUILD ARCHIVE}
	. "$ck_top/tests/e2e/lib.sh"
	work=$(mktemp -d /tmp/hvtrace-sql-XXXXXX)
	trap 'rm -rf "$work"' EXIT
	sql_cookbook "$build/hvtrace" "${2:?usage: sql_cookbook.sh BUILD ARCHIVE}" "$work"
	summary "sql cookbook"
fi
