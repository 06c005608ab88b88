// SPDX-License-Identifier: GPL-2.0-only
/*
 * thread_pids.c - the process of each event's thread (thread_pids.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/session/thread_pids.h"
#include "tools/session/session.h"

static int by_key(const void *a, const void *b)
{
	const struct hvt_thread_pid *x = a, *y = b;

	if (x->machine != y->machine)
		return x->machine < y->machine ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int add(struct hvt_thread_pids *p, size_t *cap, uint32_t machine, int32_t tid,
	       int32_t pid)
{
	if (tid <= 0 || pid <= 0)
		return 0;
	if (p->n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct hvt_thread_pid *v = realloc(p->v, c * sizeof(*v));

		if (!v)
			return -1;
		p->v = v;
		*cap = c;
	}
	p->v[p->n++] = (struct hvt_thread_pid){ machine, tid, pid };
	return 0;
}

/* Each trace's process (its pid is its main thread) and the threads of its streams. */
static int add_vm(struct hvt_thread_pids *p, size_t *cap, uint32_t machine,
		  const struct hvt_vm_info *vm)
{
	size_t i;

	for (i = 0; i < vm->nr_traces; i++)
		if (vm->traces[i].layer == HVT_LAYER_USER &&
		    add(p, cap, machine, (int32_t)vm->traces[i].pid, (int32_t)vm->traces[i].pid))
			return -1;
	for (i = 0; i < vm->nr_streams; i++) {
		const struct hvt_stream_info *st = &vm->streams[i];

		if (st->trace < vm->nr_traces && vm->traces[st->trace].layer == HVT_LAYER_USER &&
		    add(p, cap, machine, st->tid, (int32_t)vm->traces[st->trace].pid))
			return -1;
	}
	return 0;
}

int hvt_thread_pids_init(struct hvt_thread_pids *p, const struct hvt_session *ses)
{
	size_t cap = 0, i;

	memset(p, 0, sizeof(*p));
	p->ses = ses;
	for (i = 0; i < ses->archive.nr_vms; i++)
		if (ses->vms[i].loaded && add_vm(p, &cap, (uint32_t)(i + 1), &ses->vms[i].vm))
			goto fail;
	if (ses->host_apps.loaded && add_vm(p, &cap, 0, &ses->host_apps.vm))
		goto fail;
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), by_key);
	return 0;
fail:
	hvt_thread_pids_free(p);
	return -1;
}

int32_t hvt_thread_pids_get(const struct hvt_thread_pids *p, const struct hvt_source *s)
{
	struct hvt_thread_pid key = { (uint32_t)s->vm_number, hvt_source_tid(s), 0 };
	const struct hvt_thread_pid *found;

	if (key.tid == 0)
		return 0;
	if (key.tid < 0)
		return -1;
	if (!key.machine) {
		const struct hvt_host_task *t = hvt_archive_host_task(&p->ses->archive, key.tid);

		if (t)
			return t->pid;
	}
	found = p->n ? bsearch(&key, p->v, p->n, sizeof(key), by_key) : NULL;
	return found ? found->pid : -1;
}

void hvt_thread_pids_free(struct hvt_thread_pids *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
