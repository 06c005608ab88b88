#!/bin/sh
# usage: sql_import_ref.sh DB DIR
# The reference for merge --format=sqlite (bench_merge): the rows of DB's
# big tables (event, arg_set, sched, thread_state, vcpu_state) as CSV in
# DIR, and DIR/import.sql, which has sqlite3 build the same tables from
# them with its own .import, under the same pragmas, with the same indexes
# and ANALYZE, in one transaction: `sqlite3 NEW.db ".read DIR/import.sql"`.
# Only that run is timed; this script's dump is not.
set -eu
db=${1:?usage: sql_import_ref.sh DB DIR}
dir=${2:?usage: sql_import_ref.sh DB DIR}
tables="event arg_set sched thread_state vcpu_state"
mkdir -p "$dir"
for t in $tables; do
	sqlite3 -csv "$db" "SELECT * FROM $t" > "$dir/$t.csv"
done
{
	echo "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	# tools/out/sqlite_out.c's PRAGMAS
	echo "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192; PRAGMA threads=0;"
	for t in $tables; do
		sqlite3 "$db" "SELECT sql || ';' FROM sqlite_schema WHERE type = 'table' AND name = '$t'"
	done
	echo "BEGIN;"
	echo ".mode csv"
	for t in $tables; do
		echo ".import $dir/$t.csv $t"
	done
	sqlite3 "$db" "SELECT sql || ';' FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL
		AND tbl_name IN ('event', 'arg_set', 'sched', 'thread_state', 'vcpu_state')"
	echo "ANALYZE;"
	echo "COMMIT;"
} > "$dir/import.sql"
