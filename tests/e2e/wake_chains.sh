#!/bin/bash
# analyze's wake chains (docs/analysis.md, "What a vCPU thread slept on") on
# a real archive, against the host's own sched_switch and sched_wakeup as
# `hvtrace merge` prints them: for each vCPU thread, each sleep (a
# switch-out asleep) woken by a sched_wakeup and then seen again (switched
# in, or out where the switch-in was not recorded) is counted, by waker,
# with its length from the switch-out to the wakeup, and whether its chain
# goes on to the waker's own wait. analyze's woken-by rows must hold the
# same wakers, the same counts and the same time, as many chains followed,
# its longest chain must start with the longest such sleep, and what each
# thread waited on (the chains' critical paths) must add up to its sleep. The replica
# here is independent of tools/model/: awk over merge's text.
# Sourced by demo.sh (wake_chains HVTRACE ARCHIVE WORK, with lib.sh's
# check), or run on its own: tests/e2e/wake_chains.sh BUILD ARCHIVE.
# shellcheck shell=bash

# The sleeps of threads TIDS (space separated; "all": every thread) of
# LAYER (host, or kernel: a guest's) from merge's text on stdin, as
# "tid<TAB>waker<TAB>count<TAB>ns" per waker, "tid<TAB>max<TAB>ns" and
# "tid<TAB>followed<TAB>count": the sleeps whose chain goes on to the
# waker's own last wait, as docs/analysis.md says - the waker was seen
# before the sleep began and its last wait ended (it ran) after that.
# Every thread of the layer is followed, as the wakers may be any.
wc_replica() {	# wc_replica LAYER TIDS
	awk -v layer="$1" -v tids="$2" '
	function ns(t,   p) { split(t, p, "."); return p[1] * 1e9 + p[2] }
	# x is running from t: a wait of it that was woken ends; its last wait
	# is the one that ends here (ran at r)
	function wait_ends(x, r,   key) {
		if (st[x] == "woken") {
			if (wanted(x)) {
				key = x "\t" waker[x]; n[key]++; sum[key] += wt[x] - since[x]
				if (!(x in max) || wt[x] - since[x] > max[x]) max[x] = wt[x] - since[x]
				if (fol[x]) followed[x]++
			}
			lastran[x] = r
		} else if (st[x] == "asleep") {
			lastran[x] = r	# a wait with no wakeup: the last, all the same
		}
	}
	function known(x, t) { if (st[x] == "") { st[x] = "run"; seen_at[x] = t } }
	# prev_state: decimal from ftrace (bit 8: preempted, R+), hex from
	# hvtrace.ko (0: runnable), or the kernel letters
	function sleeps(s) {
		if (s ~ /^[0-9]+$/) return s % 256 != 0
		if (s ~ /^0x/) return s !~ /^0x0+$/
		return s !~ /^R/
	}
	function wanted(x) { return x > 0 && (all || (x in want)) }
	BEGIN { all = tids == "all"; split(tids, l, " "); for (i in l) want[l[i]] = 1
		id = layer == "host" ? "pid" : "tid" }
	$2 == layer && ($6 == "sched_switch" || $6 == "sched_wakeup") {
		prev = nxt = pid = state = ""
		for (i = 7; i <= NF; i++) {
			if ($i ~ "^prev_" id "=") prev = substr($i, length(id) + 7)
			if ($i ~ /^prev_state=/) state = substr($i, 12)
			if ($i ~ "^next_" id "=") nxt = substr($i, length(id) + 7)
			if ($i ~ "^" id "=") pid = substr($i, length(id) + 2)
		}
		t = ns($1)
		if ($6 == "sched_wakeup") {
			w = $5; sub(/^.*[^-]-/, "", w)	# the thread column: COMM-TID
			if (w > 0) known(w, t)
			if (pid > 0 && st[pid] == "asleep" && w != pid) {
				st[pid] = "woken"; waker[pid] = w; wt[pid] = t
				fol[pid] = w > 0 && seen_at[w] <= since[pid] && (w in lastran) &&
					   lastran[w] > since[pid]
			}
			next
		}
		if (prev == nxt) next
		if (prev > 0) {		# its switch-in was not recorded if still in a wait
			if (st[prev] == "woken") wait_ends(prev, wt[prev])
			else if (st[prev] == "asleep") delete lastran[prev]
			if (st[prev] == "") seen_at[prev] = t
			st[prev] = sleeps(state) ? "asleep" : "runnable"; since[prev] = t
		}
		if (nxt > 0) {
			wait_ends(nxt, t)
			if (st[nxt] == "") seen_at[nxt] = t
			st[nxt] = "run"
		}
	}
	END {
		for (k in n) printf "%s\t%d\t%.0f\n", k, n[k], sum[k]
		for (x in max) printf "%s\tmax\t%.0f\n", x, max[x]
		for (x in followed) printf "%s\tfollowed\t%d\n", x, followed[x]
	}'
}

# Whether analyze's rows WORK/NAME-analyze hold what WORK/NAME-replica does:
# the same wakers and counts, times within 10 ppm (analyze's one clock rate
# over the trace against merge's per piece) and 1 us, and 1 ns a sleep
# (merge prints whole ns).
wc_same() {
	awk -F'\t' '
		function off(a, b, c,   d) { d = a - b; if (d < 0) d = -d
			return d > b * 10 / 1e6 + 1000 + c }
		NR == FNR { k = $1 "\t" $2; if ($2 == "max" || $2 == "followed") want[k] = $3 " 0"
			    else want[k] = $4 " " $3; next }
		{ k = $1 "\t" $2; got[k] = 1
		  if (!(k in want)) { print "not in merge: " $0; bad = 1; next }
		  split(want[k], w, " ")
		  if ($2 == "followed") {
			if ($3 != w[1]) { print k ": " $3 " chains followed, merge " w[1]; bad = 1 }
			next }
		  if ($2 != "max" && $3 != w[2]) { print k ": " $3 " wakeups, merge " w[2]; bad = 1 }
		  if (off($NF, w[1], $2 == "max" ? 0 : $3)) { print k ": " $NF " ns, merge " w[1]; bad = 1 } }
		END { for (k in want) if (!(k in got)) { print "not in analyze: " k; bad = 1 }
		      exit bad }' "$1-replica" "$1-analyze"
}

wake_chains() {	# wake_chains HVTRACE ARCHIVE WORK
	local hv=$1 archive=$2 work=$3 tids tsv=$3/wc-analysis.tsv
	"$hv" analyze "$archive" > "$work/wc-analysis.txt" 2>/dev/null
	"$hv" analyze --format tsv "$archive" > "$tsv" 2>/dev/null
	# the vCPU table's rows: "  N     TID   figures..."
	tids=$(awk '/^  vCPU  thread/ { t = 1; next } t && /^  [0-9]+ +[0-9]+ / { print $2 }
		t && /^  vCPU [0-9]/ { exit }' "$work/wc-analysis.txt" | tr '\n' ' ')
	check "wake chains: the vCPU threads named ($tids)" test -n "$tids"
	"$hv" merge "$archive" --event sched_switch --event sched_wakeup > "$work/wc-sched" 2>/dev/null
	wc_replica host "$tids" < "$work/wc-sched" | sort > "$work/wc-host-replica"
	# analyze's rows, as "tid<TAB>waker<TAB>count<TAB>ns" (vCPU index to tid)
	awk -F'\t' -v tids="$tids" 'BEGIN { n = split(tids, l, " ") }
		$2 == "vcpu" && $5 == "woken-by" { print l[$3 + 1] "\t" $6 "\t" $10 "\t" $8 }
		$2 == "vcpu" && $5 == "longest-chain" && $10 == 0 { print l[$3 + 1] "\tmax\t" $8 }
		$2 == "vcpu" && $5 == "chain-followed" { print l[$3 + 1] "\tfollowed\t" $10 }' \
		"$tsv" | sort > "$work/wc-host-analyze"
	check "wake chains: analyze names a waker of each vCPU thread's sleeps ($(grep -vc max \
"$work/wc-host-analyze") wakers)" test "$(grep -vc max "$work/wc-host-analyze")" -gt 0
	check "wake chains: the same wakers, counts and sleep time as merge's host events" \
		wc_same "$work/wc-host"
	# the guest's threads, where the guest recorded its wakeups
	wc_replica kernel all < "$work/wc-sched" | sort > "$work/wc-guest-replica"
	awk -F'\t' '$2 == "thread" && $5 == "woken-by" { print $3 "\t" $6 "\t" $10 "\t" $8 }
		$2 == "thread" && $5 == "longest-chain" && $10 == 0 { print $3 "\tmax\t" $8 }
		$2 == "thread" && $5 == "chain-followed" { print $3 "\tfollowed\t" $10 }' \
		"$tsv" | sort > "$work/wc-guest-analyze"
	if grep -q ' kernel .* sched_wakeup ' "$work/wc-sched"; then
		check "wake chains: the guest threads' wakers, counts and sleep time as merge's \
($(grep -vc max "$work/wc-guest-analyze") wakers)" wc_same "$work/wc-guest"
	else
		check "wake chains: no guest sched_wakeup, no guest waker said" \
			test ! -s "$work/wc-guest-analyze"
	fi
	# every instant of a sleep goes to one task of its chain: the waited-on
	# rows add up to the sleep (1 ns of rounding per row)
	check "wake chains: what each thread waited on adds up to its sleep" awk -F'\t' '
		$5 == "asleep-woken" { asleep[$2 " " $3] = $8 }
		$5 == "waited-on" { sum[$2 " " $3] += $8; rows[$2 " " $3]++ }
		END { for (k in asleep) { d = sum[k] - asleep[k]; if (d < 0) d = -d
			if (d > rows[k] + 1) { print k ": " sum[k] " vs " asleep[k]; bad = 1 } }
		      exit bad }' "$tsv"
	# a vCPU whose thread never slept and was woken has no chain to show
	check "wake chains: a longest sleep and its chain for each vCPU thread that slept" test \
		"$(grep -c "^  vCPU [0-9]* longest sleep .*; its chain, [0-9] links*, ends: " \
		"$work/wc-analysis.txt")" -eq "$(grep -c "	max	" "$work/wc-host-replica")"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	build=${1:?usage: wake_chains.sh BUILD ARCHIVE}
	. "$(dirname "$0")/lib.sh"
	work=$(mktemp -d /tmp/hvtrace-wc-XXXXXX)
	trap 'rm -rf "$work"' EXIT
	wake_chains "$build/hvtrace" "${2:?usage: wake_chains.sh BUILD ARCHIVE}" "$work"
	summary "wake chains"
fi
