#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Checks the layout of the hvtrace binary's sources (docs/architecture.md,
# "The offline side, by stage"):
#   - in tools/, includes only point down the stages:
#       commands (tools/*.c) > relay/ > out/, check/, analyze/, top/ > model/ > merge/
#       > session/ > align/ > read/ > archive/ > util/
#     out/, check/, analyze/ and top/ do not include each other; tools/agent/ includes no
#     other folder of tools/ (it is the guest's binary, libc and lib/ only);
#   - host/, lib/ and clocksync/ include nothing of tools/ but the command
#     table, tools/commands.h;
#   - no two files of tools/, host/, lib/ and clocksync/ share a name, and
#     no struct, union or enum tag is defined twice among them;
#   - every header of tools/, host/, lib/, clocksync/ and vdso/ (but the
#     example application's) has the include guard its path gives:
#     tools/merge/heap.h is guarded by HVT_TOOLS_MERGE_HEAP_H.
# Prints each violation and exits 1 if there is any.
# usage: tests/layers.sh [ROOT]   (ROOT: a source tree, default this one)
#        tests/layers.sh --self-test   (also shows that it catches a violation)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)

# The rank of a file's stage; a file may include only ranks below its own
# (or its own folder).
rank() {
	case $1 in
	tools/agent/*) echo 0 ;;
	tools/util/*) echo 1 ;;
	tools/archive/*) echo 2 ;;
	tools/read/*) echo 3 ;;
	tools/align/*) echo 4 ;;
	tools/session/*) echo 5 ;;
	tools/merge/*) echo 6 ;;
	tools/model/*) echo 7 ;;
	tools/out/* | tools/check/* | tools/analyze/* | tools/top/*) echo 8 ;;
	tools/relay/*) echo 9 ;;
	tools/commands.h) echo 0 ;;
	tools/*) echo 10 ;;
	*) echo 10 ;;
	esac
}

check_tree() {
	root=$1
	bad=0
	cd "$root" || return 1
	for f in $(find tools host lib clocksync -name '*.[ch]' | sort); do
		from=$(rank "$f")
		dir=${f%/*}
		for inc in $(sed -n 's/^#include "\(tools\/[^"]*\)".*/\1/p' "$f"); do
			to=$(rank "$inc")
			case $f in
			tools/*) ;;
			*)	# the capture side and the libraries: the command table only
				[ "$inc" = tools/commands.h ] && continue
				echo "$f includes $inc: host/, lib/ and clocksync/ do not use tools/"
				bad=1
				continue ;;
			esac
			[ "${inc%/*}" = "$dir" ] && continue
			if [ "$from" = 0 ] && [ "$inc" != tools/commands.h ]; then
				echo "$f includes $inc: the agent uses no other part of tools/"
				bad=1
			elif [ "$to" -ge "$from" ] && [ "$inc" != tools/commands.h ]; then
				echo "$f includes $inc: an import that runs up (or across) the stages"
				bad=1
			fi
		done
	done
	dups=$(find tools host lib clocksync -name '*.[ch]' | sed 's|.*/||' | sort | uniq -d)
	for d in $dups; do
		echo "two files are called $d:" $(find tools host lib clocksync -name "$d")
		bad=1
	done
	for h in $(find tools host lib clocksync vdso -name '*.h' ! -path 'vdso/example/*' | sort); do
		want=HVT_$(echo "${h%.h}_H" | tr 'a-z/.' 'A-Z__')
		guard=$(sed -n 's/^#ifndef \([A-Z0-9_]*\).*/\1/p' "$h" | head -n 1)
		if [ "$guard" != "$want" ]; then
			echo "$h is guarded by ${guard:-nothing}, not $want (a file moved or renamed?)"
			bad=1
		fi
	done
	tags=$(cat $(find tools host lib clocksync -name '*.[ch]') |
		sed -n 's/^\(struct\|union\|enum\) \([a-z_0-9]*\) {.*/\2/p' | sort | uniq -d)
	for t in $tags; do
		echo "the tag $t is defined twice:" $(grep -rlE "^(struct|union|enum) $t \{" tools host lib clocksync)
		bad=1
	done
	cd - >/dev/null
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	check_tree "$here" || exit 1
	tmp=$(mktemp -d /tmp/hvtrace-layers-XXXXXX) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	cp -r "$here/tools" "$here/host" "$here/lib" "$here/clocksync" "$here/vdso" "$tmp/"
	# util/ including a merge header runs up five stages; the session
	# reaching for the time line built on it runs up one; a header moved
	# without its guard
	sed -i '1a #include "tools/merge/timeline.h"' "$tmp/tools/util/text_buffer.c" \
		"$tmp/tools/session/session.c"
	mv "$tmp/tools/merge/heap.h" "$tmp/tools/merge/merge_heap.h"
	if check_tree "$tmp" >"$tmp/out"; then
		echo "layers: a planted upward include was not caught"
		exit 1
	fi
	for f in tools/util/text_buffer.c tools/session/session.c; do
		grep -q "$f includes tools/merge/timeline.h" "$tmp/out" || {
			echo "layers: the planted include of $f was not named:"; cat "$tmp/out"; exit 1; }
	done
	grep -q "tools/merge/merge_heap.h is guarded by HVT_TOOLS_MERGE_HEAP_H" "$tmp/out" || {
		echo "layers: the moved header's guard was not named:"; cat "$tmp/out"; exit 1; }
	echo "layers: ok (and planted violations are caught)"
	exit 0
fi
check_tree "${1:-$here}" && echo "layers: ok"
