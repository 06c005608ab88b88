// SPDX-License-Identifier: GPL-2.0-only
/*
 * thread_names.c - the name of each event's thread (thread_names.h).
 */
#include <string.h>

#include "tools/session/thread_names.h"
#include "tools/session/session.h"

int hvt_thread_names_init(struct hvt_thread_names *n, const struct hvt_session *ses)
{
	memset(n, 0, sizeof(*n));
	n->ses = ses;
	if (hvt_comm_table_init(&n->names))
		return -1;
	if (hvt_event_decoder_init(&n->dec, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), true)) {
		hvt_comm_table_free(&n->names);
		return -1;
	}
	return 0;
}

void hvt_thread_names_learn(struct hvt_thread_names *n, struct hvt_source *s)
{
	uint32_t machine = (uint32_t)s->vm_number;
	struct hvt_typed_event e;

	if (s->layer != HVT_LAYER_HOST && s->layer != HVT_LAYER_KERNEL)
		return;
	if (hvt_decode_reader(&n->dec, &s->rd, &s->ev, &e) != HVT_EV_SCHED_SWITCH)
		return;
	/* out of memory: that thread stays unnamed, as if never switched */
	(void)hvt_comm_table_set(&n->names, machine, e.sw.prev, e.sw.prev_comm);
	(void)hvt_comm_table_set(&n->names, machine, e.sw.next, e.sw.next_comm);
}

const char *hvt_thread_names_process(const struct hvt_thread_names *n,
				     const struct hvt_source *s)
{
	const struct hvt_vm_info *vm;
	size_t i;

	if (!n->ses || s->layer != HVT_LAYER_USER || s->stream_id == UINT32_MAX)
		return NULL;
	vm = s->vm_number ? &n->ses->vms[s->vm_number - 1].vm :
	     n->ses->host_apps.loaded ? &n->ses->host_apps.vm : NULL;
	for (i = 0; vm && i < vm->nr_streams; i++)
		if (vm->streams[i].id == s->stream_id && vm->streams[i].trace < vm->nr_traces)
			return vm->traces[vm->streams[i].trace].comm[0] ?
			       vm->traces[vm->streams[i].trace].comm : NULL;
	return NULL;
}

const char *hvt_thread_names_get(const struct hvt_thread_names *n, const struct hvt_source *s)
{
	const char *name = hvt_comm_table_get(&n->names, (uint32_t)s->vm_number,
					       hvt_source_tid(s));
	const struct hvt_host_task *t;

	if (name)
		return name;
	if (!s->vm_number && n->ses &&
	    (s->layer == HVT_LAYER_HOST || s->layer == HVT_LAYER_VMM) &&
	    (t = hvt_archive_host_task(&n->ses->archive, hvt_source_tid(s))) && t->comm[0])
		return t->comm;		/* before its first switch: as /proc named it */
	return hvt_thread_names_process(n, s);
}

void hvt_thread_names_free(struct hvt_thread_names *n)
{
	hvt_event_decoder_free(&n->dec);
	hvt_comm_table_free(&n->names);
	memset(n, 0, sizeof(*n));
}

bool hvt_thread_name_word(const char *comm, char *out)
{
	bool replaced = false;
	size_t i;

	for (i = 0; comm[i] && i < HVT_COMM_TABLE_LEN - 1; i++) {
		unsigned char c = (unsigned char)comm[i];

		out[i] = c <= ' ' || c == 0x7f ? '_' : (char)c;
		replaced |= out[i] != comm[i];
	}
	out[i] = '\0';
	return replaced;
}
