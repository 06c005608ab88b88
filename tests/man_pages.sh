#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Checks the manual pages under man/:
#   - every page formats without a word on stderr, as lintian checks it
#     (man --warnings, UTF-8, 80 columns) and with all of groff's warnings
#     (groff -man -ww); a ".so" link page must name a page that exists;
#   - every function exported in vdso/libhvtrace.map has a page
#     man/man3/NAME.3;
#   - every page's NAME section (the linked page's, for a ".so" link)
#     mentions the name the page is installed as;
#   - every page's header names the project's version (lib/version.h);
#   - given the hvtrace binary, man/man1 is what scripts/man-pages makes
#     of its --help now: a page per command, none stale.
# Prints one line per page and exits non-zero on any failure.
# usage: tests/man_pages.sh [HVTRACE]   (from anywhere; needs man-db and groff-base)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
man_dir=$top/man
map=$top/vdso/libhvtrace.map
hvtrace=${1:-}
case $hvtrace in ''|/*) ;; *) hvtrace=$PWD/$hvtrace ;; esac	# the checks run in man/
version=$(sed -n 's/^#define HVTRACE_VERSION "\(.*\)"/\1/p' "$top/lib/version.h")
failed=0
checked=0
tmp=$(mktemp -d /tmp/hvtrace-man-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! command -v man >/dev/null 2>&1 || ! command -v groff >/dev/null 2>&1; then
	echo "man_pages: man (man-db) and groff (groff-base) are needed" >&2
	exit 1
fi

# The page a ".so" link names, relative to man/; the page itself otherwise.
resolve() {
	page=$1
	hops=0
	while so=$(sed -n '1s/^\.so[ 	]\{1,\}\([^ 	]*\).*/\1/p' "$man_dir/$page") &&
	      [ -n "$so" ]; do
		page=$so
		hops=$((hops + 1))
		[ -f "$man_dir/$page" ] && [ "$hops" -lt 5 ] || return 1
	done
	echo "$page"
}

# The text of the NAME section: from ".SH NAME" to the next ".SH".
name_section() {
	awk '/^\.SH[ \t]/ { in_name = ($2 == "NAME" || $2 == "\"NAME\""); next }
	     in_name' "$man_dir/$1"
}

fail() {
	echo "FAIL $1: $2"
	failed=$((failed + 1))
}

# man resolves ".so man3/x.3" against the working directory: run from man/.
cd "$man_dir" || { echo "man_pages: no directory $man_dir" >&2; exit 1; }
for page in man*/*.[1-9]; do
	[ -f "$page" ] || continue
	checked=$((checked + 1))
	file=${page##*/}
	name=${file%.*}
	if ! LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$page" >/dev/null 2>"$tmp/err" ||
	   [ -s "$tmp/err" ]; then
		fail "man/$page" "man --warnings: $(tr '\n' ' ' < "$tmp/err")"
		continue
	fi
	# groff's every warning: bad escapes, registers, macro arguments too.
	if ! LC_ALL=C.UTF-8 groff -man -ww -z -t -Tutf8 "$page" >/dev/null 2>"$tmp/err" ||
	   [ -s "$tmp/err" ]; then
		fail "man/$page" "groff -ww: $(tr '\n' ' ' < "$tmp/err")"
		continue
	fi
	if ! target=$(resolve "$page"); then
		fail "man/$page" "its .so link leads to no page"
		continue
	fi
	# \- and \f escapes aside, the name must appear as a word.
	if ! name_section "$target" | sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' |
		grep -Eq "(^|[^A-Za-z0-9_])$name([^A-Za-z0-9_]|\$)"; then
		fail "man/$page" "the NAME section of man/$target does not mention $name"
		continue
	fi
	if [ "$target" = "$page" ] && ! grep -q "^\.TH .* \"hvtrace $version\"" "$page"; then
		fail "man/$page" "its .TH line does not name \"hvtrace $version\" (lib/version.h)"
		continue
	fi
	if [ "$target" = "$page" ]; then
		echo "ok   man/$page"
	else
		echo "ok   man/$page (-> man/$target)"
	fi
done

if [ "$checked" -eq 0 ]; then
	fail "man/" "no pages"
fi

# Exported functions: the names between "global:" and "local:" or "}".
awk '/global:/ { g = 1; next } /local:|}/ { g = 0 }
     g && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*;/ { sub(/;.*/, ""); print $1 }' "$map" \
	> "$tmp/exported"
[ -s "$tmp/exported" ] || fail "vdso/libhvtrace.map" "no exported function found"
while read -r fn; do
	[ -f "man3/$fn.3" ] || fail "$fn" "exported in vdso/libhvtrace.map but no man/man3/$fn.3"
done < "$tmp/exported"

# The command pages, made again from the binary's --help: the same files.
if [ -n "$hvtrace" ]; then
	if ! "$top/scripts/man-pages" "$hvtrace" "$tmp/man1" 2>"$tmp/err"; then
		fail "scripts/man-pages" "$(tr '\n' ' ' < "$tmp/err")"
	elif ! diff -r "$tmp/man1" man1 > "$tmp/diff"; then
		fail "man/man1" "not what --help says now (run scripts/man-pages $hvtrace): $(head -c 600 "$tmp/diff" | tr '\n' ' ')"
	else
		echo "ok   man/man1: $(ls man1 | wc -l) pages, as $hvtrace --help says"
	fi
fi

echo "man pages: $checked checked, $failed failed"
[ "$failed" -eq 0 ]
