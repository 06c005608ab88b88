// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_ids.c - the SQL export's machines, CPUs, processes and threads: their
 * ids as events name them, and their rows (sql_private.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/out/merge_report.h"
#include "tools/out/sql_private.h"

#define MAX_CPU		(1u << 20)	/* a CPU number past it is damage, not a CPU */

int hvt_sql_ids_init(struct hvt_sql_out *o)
{
	size_t n = o->ses->archive.nr_vms + 1;

	o->ucpu = calloc(n, sizeof(*o->ucpu));
	o->nr_ucpu = calloc(n, sizeof(*o->nr_ucpu));
	return o->ucpu && o->nr_ucpu ? 0 : -1;
}

void hvt_sql_ids_free(struct hvt_sql_out *o)
{
	size_t i;

	for (i = 0; o->ucpu && i < o->ses->archive.nr_vms + 1; i++)
		free(o->ucpu[i]);
	free(o->ucpu);
	free(o->nr_ucpu);
	free(o->threads);
	free(o->procs);
}

static size_t slot_of(uint32_t machine, int32_t tid, size_t cap)
{
	return (((uint64_t)machine << 32 | (uint32_t)tid) * 0x9e3779b97f4a7c15ull >> 32) &
	       (cap - 1);
}

static int grow_threads(struct hvt_sql_out *o)
{
	size_t cap = o->cap_threads ? o->cap_threads * 2 : 1024, i, k;
	struct sql_thread *t = malloc(cap * sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < cap; i++)
		t[i].used = false;
	for (i = 0; i < o->cap_threads; i++) {
		const struct sql_thread *x = &o->threads[i];

		if (!x->used)
			continue;
		for (k = slot_of(x->machine, x->key, cap); t[k].used; k = (k + 1) & (cap - 1))
			;
		t[k] = *x;
	}
	free(o->threads);
	o->threads = t;
	o->cap_threads = cap;
	return 0;
}

/* Thread @key of @machine (its tid; an idle task: -1 - cpu), added if new; NULL: no memory. */
static struct sql_thread *thread_of(struct hvt_sql_out *o, uint32_t machine, int32_t key)
{
	struct sql_thread *t;
	size_t k;

	if ((o->nr_threads + 1) * 2 > o->cap_threads && grow_threads(o))
		return NULL;
	for (k = slot_of(machine, key, o->cap_threads); o->threads[k].used;
	     k = (k + 1) & (o->cap_threads - 1))
		if (o->threads[k].machine == machine && o->threads[k].key == key)
			return &o->threads[k];
	t = &o->threads[k];
	*t = (struct sql_thread){ .used = true, .machine = machine, .key = key,
				  .tid = key < 0 ? 0 : key, .utid = (int64_t)o->nr_threads,
				  .upid = -1, .vcpu_machine = -1, .vcpu = -1 };
	o->nr_threads++;
	return t;
}

int64_t hvt_sql_utid(struct hvt_sql_out *o, uint32_t machine, int32_t tid, int32_t cpu,
		     const char *comm)
{
	/* the idle tasks are tid 0, one per CPU: kept apart as -1 - cpu */
	int32_t key = tid ? tid : cpu >= 0 && cpu < INT32_MAX ? -1 - cpu : INT32_MIN;
	struct sql_thread *t;

	if (tid < 0)
		return -1;
	t = thread_of(o, machine, key);
	if (!t) {
		hvt_sql_fail(o, "out of memory");
		return -1;
	}
	if (comm && *comm)
		snprintf(t->name, sizeof(t->name), "%s", comm);
	else if (!tid && !t->name[0] && cpu >= 0 && cpu < 100000)
		snprintf(t->name, sizeof(t->name), "swapper/%d", (int)(cpu % 100000));
	return t->utid;
}

int64_t hvt_sql_ucpu(struct hvt_sql_out *o, uint32_t machine, uint32_t cpu)
{
	int64_t *v = o->ucpu[machine];
	size_t n = o->nr_ucpu[machine];

	if (cpu >= MAX_CPU)
		return -1;
	if (cpu >= n) {
		v = realloc(v, ((size_t)cpu + 1) * sizeof(*v));
		if (!v) {
			hvt_sql_fail(o, "out of memory");
			return -1;
		}
		memset(v + n, 0, ((size_t)cpu + 1 - n) * sizeof(*v));
		o->ucpu[machine] = v;
		o->nr_ucpu[machine] = n = (size_t)cpu + 1;
	}
	if (!v[cpu]) {
		v[cpu] = ++o->next_ucpu;	/* 0 means none here; ids in the table from 0 */
		hvt_sql_row(o, SQL_CPU);
		hvt_sql_int(o, v[cpu] - 1);
		hvt_sql_int(o, machine);
		hvt_sql_int(o, cpu);
		hvt_sql_row_end(o);
	}
	return v[cpu] - 1;
}

/* Process @pid of @machine, named @name; its upid, or -1 if out of memory. */
static int64_t upid_of(struct hvt_sql_out *o, uint32_t machine, int32_t pid, const char *name)
{
	struct sql_process *grown;
	size_t i;

	for (i = 0; i < o->nr_procs; i++)
		if (o->procs[i].machine == machine && o->procs[i].pid == pid)
			return (int64_t)i;
	if (o->nr_procs == o->cap_procs) {
		o->cap_procs = o->cap_procs ? o->cap_procs * 2 : 16;
		grown = realloc(o->procs, o->cap_procs * sizeof(*grown));
		if (!grown)
			return -1;
		o->procs = grown;
	}
	o->procs[o->nr_procs] = (struct sql_process){ .machine = machine, .pid = pid };
	snprintf(o->procs[o->nr_procs].name, sizeof(o->procs[0].name), "%s", name);
	return (int64_t)o->nr_procs++;
}

/* The traced processes of @st (machine @machine): each user trace's, and its threads'. */
static int processes_of(struct hvt_sql_out *o, const struct hvt_session_vm *st, uint32_t machine)
{
	size_t i;

	for (i = 0; st->loaded && i < st->vm.nr_streams; i++) {
		const struct hvt_stream_info *si = &st->vm.streams[i];
		const struct hvt_trace_info *t = &st->vm.traces[si->trace];
		struct sql_thread *th;
		int64_t upid;

		if (t->layer != HVT_LAYER_USER || !t->pid)
			continue;
		upid = upid_of(o, machine, (int32_t)t->pid, t->comm);
		th = si->tid > 0 ? thread_of(o, machine, si->tid) : NULL;
		if (upid < 0 || (si->tid > 0 && !th))
			return -1;
		if (th)
			th->upid = upid;
	}
	return 0;
}

/* The host's threads that run each VM's vCPUs, and each vCPU as a CPU of its VM. */
static int vcpu_threads(struct hvt_sql_out *o)
{
	const struct hvt_archive *a = &o->ses->archive;
	size_t i, v;

	for (i = 0; i < a->nr_vms; i++)
		for (v = 0; v < a->vms[i].nr_vcpu_tids; v++) {
			struct sql_thread *t;

			if (a->vms[i].vcpu_tids[v] <= 0)
				continue;
			t = thread_of(o, 0, a->vms[i].vcpu_tids[v]);
			if (!t || hvt_sql_ucpu(o, (uint32_t)i + 1, (uint32_t)v) < 0)
				return -1;
			t->vcpu_machine = (int32_t)i + 1;
			t->vcpu = (int32_t)v;
		}
	return 0;
}

static int write_threads(struct hvt_sql_out *o)
{
	sqlite3_stmt *st, *cpu;
	size_t i;
	int ret = -1;

	if (sqlite3_prepare_v2(o->db, "INSERT INTO thread VALUES(?,?,?,?,?,?,?)", -1, &st, NULL))
		return -1;
	if (sqlite3_prepare_v2(o->db, "UPDATE cpu SET host_utid = ? WHERE machine_id = ? AND "
			       "cpu = ?", -1, &cpu, NULL)) {
		sqlite3_finalize(st);
		return -1;
	}
	for (i = 0; i < o->cap_threads; i++) {
		const struct sql_thread *t = &o->threads[i];

		if (!t->used)
			continue;
		sqlite3_bind_int64(st, 1, t->utid);
		sqlite3_bind_int64(st, 2, t->machine);
		sqlite3_bind_int64(st, 3, t->tid);
		hvt_sql_bind(st, 4, t->upid, t->upid < 0);
		if (t->name[0])
			sqlite3_bind_text(st, 5, t->name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		hvt_sql_bind(st, 6, t->vcpu_machine, t->vcpu < 0);
		hvt_sql_bind(st, 7, t->vcpu, t->vcpu < 0);
		if (!hvt_sql_step(o, st))
			goto out;
		if (t->vcpu < 0)
			continue;
		sqlite3_bind_int64(cpu, 1, t->utid);
		sqlite3_bind_int64(cpu, 2, t->vcpu_machine);
		sqlite3_bind_int64(cpu, 3, t->vcpu);
		if (!hvt_sql_step(o, cpu))
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(cpu);
	return ret;
}

static int write_processes(struct hvt_sql_out *o)
{
	sqlite3_stmt *st;
	size_t i;
	int ret = 0;

	if (sqlite3_prepare_v2(o->db, "INSERT INTO process VALUES(?,?,?,?)", -1, &st, NULL))
		return -1;
	for (i = 0; i < o->nr_procs && !ret; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_int64(st, 2, o->procs[i].machine);
		sqlite3_bind_int64(st, 3, o->procs[i].pid);
		if (o->procs[i].name[0])
			sqlite3_bind_text(st, 4, o->procs[i].name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 4);
		ret = hvt_sql_step(o, st) ? 0 : -1;
	}
	sqlite3_finalize(st);
	return ret;
}

/* One machine's row: the host (id 0), or VM @id. */
static int machine_row(struct hvt_sql_out *o, sqlite3_stmt *st, uint32_t id)
{
	struct hvt_session *ses = o->ses;
	struct hvt_session_vm *vm = id ? &ses->vms[id - 1] : NULL;
	struct hvt_vm_clock_quality q = { 0 };
	char text[1024];

	sqlite3_clear_bindings(st);	/* a machine has some of the columns only */
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, id ? ses->archive.vms[id - 1].name : "host", -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, id ? "vm" : "host", -1, SQLITE_STATIC);
	if (!vm) {
		sqlite3_bind_int64(st, 5, (int64_t)ses->archive.nr_cpus);
		sqlite3_bind_text(st, 6, "host_tsc", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, "the reference: events at their own time", -1,
				  SQLITE_STATIC);
		return hvt_sql_step(o, st) ? 0 : -1;
	}
	if (vm->loaded && (vm->vm.kvm || vm->vm.tcg))
		sqlite3_bind_text(st, 4, vm->vm.kvm ? "kvm" : "tcg", -1, SQLITE_STATIC);
	if (vm->loaded && vm->vm.nr_cpus)
		sqlite3_bind_int64(st, 5, (int64_t)vm->vm.nr_cpus);
	sqlite3_bind_text(st, 6, vm->al.exact ? "kvm_exact" : vm->al.aligned ? "estimate" :
			  "unaligned", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, hvt_vm_alignment_text(ses, vm, text, sizeof(text)), -1,
			  SQLITE_TRANSIENT);
	if (vm->loaded && vm->al.aligned && !vm->al.exact)
		hvt_vm_clock_quality(&vm->al.clock, vm->vm.sync, vm->vm.nr_sync, &q);
	if (q.measured) {
		sqlite3_bind_int64(st, 8, hvt_sql_ticks_ns(o, q.host_mid, q.half_p50));
		sqlite3_bind_int64(st, 9, hvt_sql_ticks_ns(o, q.host_mid, q.half_max));
	} else if (vm->al.exact) {
		sqlite3_bind_int64(st, 8, 0);
		sqlite3_bind_int64(st, 9, 0);
	}
	return hvt_sql_step(o, st) ? 0 : -1;
}

static int write_machines(struct hvt_sql_out *o)
{
	sqlite3_stmt *st;
	uint32_t i;
	int ret = 0;

	if (sqlite3_prepare_v2(o->db, "INSERT INTO machine VALUES(?,?,?,?,?,?,?,?,?)", -1, &st,
			       NULL))
		return -1;
	for (i = 0; i <= o->ses->archive.nr_vms && !ret; i++)
		ret = machine_row(o, st, i);
	sqlite3_finalize(st);
	return ret;
}

void hvt_sql_ids_complete(struct hvt_sql_out *o)
{
	size_t i;

	if (processes_of(o, &o->ses->host_apps, 0) || vcpu_threads(o))
		hvt_sql_fail(o, "out of memory");
	for (i = 0; i < o->ses->archive.nr_vms; i++)
		if (processes_of(o, &o->ses->vms[i], (uint32_t)i + 1))
			hvt_sql_fail(o, "out of memory");
}

int hvt_sql_ids_write(struct hvt_sql_out *o)
{
	if (write_machines(o) || write_processes(o) || write_threads(o)) {
		if (!o->failed)
			hvt_err("%s: %s", o->path, sqlite3_errmsg(o->db));
		return -1;
	}
	return 0;
}
