// SPDX-License-Identifier: GPL-2.0-only
/*
 * event_decoder.c - scheduling and KVM events as typed records, each
 * format resolved once (event_decoder.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/read/event_decoder.h"

#define MAX_NUMS	5
#define MAX_TEXTS	2

/* A kind: its event's name and its fields, each with its spellings (ftrace's first). */
struct kind_spec {
	const char *event;
	enum hvt_ev_kind kind;
	unsigned int required;		/* the first this many numbers must be there */
	const char *num[MAX_NUMS][2];
	const char *text[MAX_TEXTS];
	unsigned int variant;		/* told apart within a kind (virtio_blk_handle_write: 1) */
	bool texts;			/* its texts are read without comms too */
};

static const struct kind_spec specs[] = {
	{ "sched_switch", HVT_EV_SCHED_SWITCH, 3,
	  { { "prev_pid", "prev_tid" }, { "next_pid", "next_tid" }, { "prev_state" } },
	  { "prev_comm", "next_comm" }, 0, false },
	{ "sched_wakeup", HVT_EV_SCHED_WAKEUP, 1, { { "pid", "tid" }, { "target_cpu" } },
	  { "comm" }, 0, false },
	{ "kvm_entry", HVT_EV_KVM_ENTRY, 1, { { "vcpu_id" } }, { NULL }, 0, false },
	{ "kvm_exit", HVT_EV_KVM_EXIT, 1, { { "vcpu_id" }, { "exit_reason" } }, { NULL }, 0, false },
	{ "kvm_write_tsc_offset", HVT_EV_KVM_TSC_OFFSET, 3,
	  { { "vcpu_id" }, { "previous_tsc_offset" }, { "next_tsc_offset" } }, { NULL }, 0,
	  false },
	{ "kvm_hypercall", HVT_EV_KVM_HYPERCALL, 3,
	  { { "nr" }, { "a0" }, { "a1" }, { "a2" }, { "a3" } }, { NULL }, 0, false },
	{ "block_rq_issue", HVT_EV_BLOCK_RQ_ISSUE, 3,
	  { { "dev" }, { "sector" }, { "nr_sector" } }, { "rwbs" }, 0, true },
	{ "block_rq_complete", HVT_EV_BLOCK_RQ_COMPLETE, 3,
	  { { "dev" }, { "sector" }, { "nr_sector" }, { "error" } }, { "rwbs" }, 0, true },
	{ "virtio_blk_handle_read", HVT_EV_VIRTIO_BLK_HANDLE, 4,
	  { { "vdev" }, { "req" }, { "sector" }, { "nsectors" } }, { NULL }, 0, false },
	{ "virtio_blk_handle_write", HVT_EV_VIRTIO_BLK_HANDLE, 4,
	  { { "vdev" }, { "req" }, { "sector" }, { "nsectors" } }, { NULL }, 1, false },
	{ "virtio_blk_req_complete", HVT_EV_VIRTIO_BLK_REQ_COMPLETE, 2,
	  { { "vdev" }, { "req" }, { "status" } }, { NULL }, 0, false },
	{ "virtio_notify", HVT_EV_VIRTIO_NOTIFY, 2, { { "vdev" }, { "vq" } }, { NULL }, 0, false },
	{ "virtio_notify_irqfd", HVT_EV_VIRTIO_NOTIFY, 2, { { "vdev" }, { "vq" } }, { NULL }, 1,
	  false },
	{ "thread_pool_submit", HVT_EV_POOL_SUBMIT, 2, { { "pool" }, { "req" } }, { NULL }, 0,
	  false },
	{ "thread_pool_complete", HVT_EV_POOL_COMPLETE, 2, { { "pool" }, { "req" }, { "ret" } },
	  { NULL }, 0, false },
	{ "kvm_msi_set_irq", HVT_EV_KVM_MSI, 2, { { "address" }, { "data" } }, { NULL }, 0, false },
	{ "kvm_set_irq", HVT_EV_KVM_SET_IRQ, 2, { { "gsi" }, { "level" } }, { NULL }, 0, false },
	{ "kvm_apic_accept_irq", HVT_EV_KVM_APIC_ACCEPT, 2, { { "apicid" }, { "vec" } }, { NULL },
	  0, false },
	{ "kvm_inj_virq", HVT_EV_KVM_INJ_VIRQ, 1, { { "vector", "irq" } }, { NULL }, 0, false },
};

/* What one event format was found to be. */
struct hvt_event_format {
	const void *owner;		/* the ftrace handle, or the reader's class owner */
	uint64_t id;			/* the ftrace id, or the class id */
	bool known;			/* resolved (a slot not used yet is not) */
	const struct kind_spec *spec;	/* NULL: not a kind decoded */
	/* ftrace: the fields found; NULL where there is none */
	const struct tep_format_field *num[MAX_NUMS], *text[MAX_TEXTS];
	/* another format: the spelling its events use; NULL where there is none */
	const char *num_name[MAX_NUMS], *text_name[MAX_TEXTS];
	/* ... and its place, where the reader reads fields by place (-1: none) */
	int num_index[MAX_NUMS], text_index[MAX_TEXTS];
	bool by_index;
	struct hvt_task_states states;	/* sched_switch: how prev_state says it */
};

/*
 * hvtrace.ko's prev_state: 0 when preempted (it cannot say R+), else the
 * task's own state bits (Linux's TASK_*: S D T t X Z P, then TASK_DEAD X);
 * TASK_IDLE, D with TASK_NOLOAD (0x400), prints as I.
 */
static const struct hvt_task_states ctf_states = { .mask = UINT64_MAX, .idle = 0x402,
						   .letter = "SDTtXZPX" };

/*
 * @state in letters, as its format says it and as the kernel and trace-cmd
 * print it: "R", "R+", "S", "D|W" (at most 4 letters, joined by '|').
 */
static void state_text(const struct hvt_task_states *ts, uint64_t state, char text[8])
{
	unsigned int bit, n = 0;

	if (!(state & ts->mask)) {
		snprintf(text, 8, "%s", ts->preempt && (state & ts->preempt) ? "R+" : "R");
		return;
	}
	if (ts->idle && (state & ts->idle) == ts->idle) {
		snprintf(text, 8, "I");
		return;
	}
	for (bit = 0; bit < 64 && n < 7; bit++)
		if ((state & ts->mask & (1ull << bit)) && ts->letter[bit]) {
			if (n)
				text[n++] = '|';
			text[n++] = ts->letter[bit];
		}
	if (!n)
		text[n++] = '?';	/* a state bit the print fmt names no letter */
	text[n] = '\0';
}

int hvt_event_decoder_init(struct hvt_event_decoder *d, unsigned int kinds, bool comms)
{
	d->kinds = kinds;
	d->comms = comms;
	d->cache = calloc(HVT_DECODER_CACHE, sizeof(*d->cache));
	return d->cache ? 0 : -1;
}

void hvt_event_decoder_free(struct hvt_event_decoder *d)
{
	free(d->cache);
	d->cache = NULL;
}

static const struct kind_spec *spec_of(const struct hvt_event_decoder *d, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (!strcmp(specs[i].event, name))
			return d->kinds & HVT_EV_BIT(specs[i].kind) ? &specs[i] : NULL;
	return NULL;
}

/* The cache slot of format (@owner, @id), emptied if it held another. */
static struct hvt_event_format *slot(struct hvt_event_decoder *d, const void *owner,
				     uint64_t id)
{
	struct hvt_event_format *f = &d->cache[(id ^ ((uintptr_t)owner >> 4)) % HVT_DECODER_CACHE];

	if (!f->known || f->owner != owner || f->id != id)
		*f = (struct hvt_event_format){ .owner = owner, .id = id };
	return f;
}

/* @f's kind, if it has the fields that kind needs. */
static void settle(struct hvt_event_format *f, const struct kind_spec *spec, bool ftrace)
{
	unsigned int i;

	f->known = true;
	f->spec = NULL;
	for (i = 0; spec && i < spec->required; i++)
		if (ftrace ? !f->num[i] : !f->num_name[i])
			return;
	f->spec = spec;
}

static struct hvt_event_format *ftrace_format(struct hvt_event_decoder *d, struct hvt_ftrace *ft,
					      const struct hvt_ftrace_event *ev)
{
	struct hvt_event_format *f = slot(d, ft, (uint64_t)(uint32_t)ev->id);
	const struct kind_spec *spec;
	unsigned int i;

	if (f->known)
		return f;
	spec = spec_of(d, ev->name);
	for (i = 0; spec && i < MAX_NUMS && spec->num[i][0]; i++) {
		f->num[i] = hvt_ftrace_field_find(ft, ev->id, spec->num[i][0]);
		if (!f->num[i] && spec->num[i][1])	/* another kernel's spelling */
			f->num[i] = hvt_ftrace_field_find(ft, ev->id, spec->num[i][1]);
	}
	for (i = 0; spec && (d->comms || spec->texts) && i < MAX_TEXTS && spec->text[i]; i++)
		f->text[i] = hvt_ftrace_text_field_find(ft, ev->id, spec->text[i]);
	if (spec && spec->kind == HVT_EV_SCHED_SWITCH)
		hvt_ftrace_task_states(ft, ev->id, f->num[2], &f->states);
	settle(f, spec, true);
	return f;
}

/* The numbers and texts of the current event, as @f found them. */
struct fields {
	uint64_t num[MAX_NUMS];
	char text[MAX_TEXTS][HVT_COMM_LEN];
};

static void fill(const struct hvt_event_format *f, const struct fields *v,
		 struct hvt_typed_event *out)
{
	switch (f->spec->kind) {
	case HVT_EV_SCHED_SWITCH:
		out->sw.prev = (int32_t)v->num[0];
		out->sw.next = (int32_t)v->num[1];
		out->sw.prev_state = v->num[2];
		out->sw.runnable = !(v->num[2] & f->states.mask);
		state_text(&f->states, v->num[2], out->sw.end_state);
		memcpy(out->sw.prev_comm, v->text[0], HVT_COMM_LEN);
		memcpy(out->sw.next_comm, v->text[1], HVT_COMM_LEN);
		break;
	case HVT_EV_SCHED_WAKEUP:
		out->wakeup.tid = (int32_t)v->num[0];
		out->wakeup.target_cpu = f->num[1] || f->num_name[1] ? (int32_t)v->num[1] : -1;
		memcpy(out->wakeup.comm, v->text[0], HVT_COMM_LEN);
		break;
	case HVT_EV_KVM_ENTRY:
	case HVT_EV_KVM_EXIT:
		out->kvm.vcpu = (uint32_t)v->num[0];
		out->kvm.exit_reason = (uint32_t)v->num[1];
		break;
	case HVT_EV_KVM_TSC_OFFSET:
		out->tsc_offset.vcpu = (uint32_t)v->num[0];
		out->tsc_offset.previous = v->num[1];
		out->tsc_offset.next = v->num[2];
		break;
	case HVT_EV_KVM_HYPERCALL:
		out->hypercall.nr = v->num[0];
		memcpy(out->hypercall.a, &v->num[1], sizeof(out->hypercall.a));
		break;
	case HVT_EV_BLOCK_RQ_ISSUE:
	case HVT_EV_BLOCK_RQ_COMPLETE:
		out->block.dev = (uint32_t)v->num[0];
		out->block.sector = v->num[1];
		out->block.nr_sector = (uint32_t)v->num[2];
		out->block.error = (int32_t)v->num[3];
		memcpy(out->block.rwbs, v->text[0], HVT_COMM_LEN);
		break;
	case HVT_EV_KVM_MSI:
	case HVT_EV_KVM_SET_IRQ:
	case HVT_EV_KVM_APIC_ACCEPT:
	case HVT_EV_KVM_INJ_VIRQ:
		out->irq.a = v->num[0];
		out->irq.b = v->num[1];
		break;
	default:			/* QEMU's */
		out->qio.dev = v->num[0];
		out->qio.req = v->num[1];
		out->qio.write = f->spec->variant == 1;
		if (f->spec->kind == HVT_EV_VIRTIO_BLK_HANDLE) {
			out->qio.sector = v->num[2];
			out->qio.nr_sector = (uint32_t)v->num[3];
			out->qio.ret = 0;
		} else {
			out->qio.sector = 0;
			out->qio.nr_sector = 0;
			out->qio.ret = (int64_t)v->num[2];
		}
		break;
	}
	out->kind = f->spec->kind;
}

/* Decoded: a vcpu_id must be one. */
static enum hvt_ev_kind finish(const struct hvt_event_format *f, const struct fields *v,
			       struct hvt_typed_event *out)
{
	enum hvt_ev_kind k = f->spec->kind;

	if ((k == HVT_EV_KVM_ENTRY || k == HVT_EV_KVM_EXIT || k == HVT_EV_KVM_TSC_OFFSET) &&
	    v->num[0] > UINT32_MAX)
		return out->kind = HVT_EV_OTHER;
	fill(f, v, out);
	return out->kind;
}

enum hvt_ev_kind hvt_decode_ftrace(struct hvt_event_decoder *d, struct hvt_ftrace_cpu *c,
				   const struct hvt_ftrace_event *ev, struct hvt_typed_event *out)
{
	const struct hvt_event_format *f = ftrace_format(d, hvt_ftrace_cpu_trace(c), ev);
	struct fields v;
	unsigned int i;

	if (!f->spec)
		return out->kind = HVT_EV_OTHER;
	memset(&v, 0, sizeof(v));
	for (i = 0; i < MAX_NUMS; i++)
		if (f->num[i])
			v.num[i] = hvt_ftrace_field_read(c, f->num[i]);
	for (i = 0; i < MAX_TEXTS; i++)
		if (f->text[i] && hvt_ftrace_text_field_read(c, f->text[i], v.text[i],
							     HVT_COMM_LEN))
			v.text[i][0] = '\0';
	return finish(f, &v, out);
}

/* The spelling of field @spellings that the current event of @rd has, or NULL. */
static const char *spelling(struct hvt_reader *rd, const char *const spellings[2])
{
	uint64_t v;
	int i;

	for (i = 0; i < 2 && spellings[i]; i++)
		if (!rd->ops->field_u64(rd->r, spellings[i], &v))
			return spellings[i];
	return NULL;
}

static struct hvt_event_format *reader_format(struct hvt_event_decoder *d, struct hvt_reader *rd,
					      const struct hvt_reader_event *ev)
{
	struct hvt_event_class cls = rd->ops->event_class(rd->r);
	struct hvt_event_format *f = slot(d, cls.owner, cls.id);
	const struct kind_spec *spec;
	char buf[HVT_COMM_LEN];
	unsigned int i;

	if (f->known)
		return f;
	spec = spec_of(d, ev->name);
	for (i = 0; spec && i < MAX_NUMS && spec->num[i][0]; i++) {
		f->num_name[i] = spelling(rd, spec->num[i]);
		/*
		 * A reader of typeless text (QEMU's log) has the fields each
		 * line has: not this first line's lack, every line is judged.
		 */
		if (!f->num_name[i] && !rd->ops->field_index)
			f->num_name[i] = spec->num[i][0];
	}
	for (i = 0; spec && (d->comms || spec->texts) && i < MAX_TEXTS && spec->text[i]; i++)
		if (!rd->ops->field_text(rd->r, spec->text[i], buf, sizeof(buf)))
			f->text_name[i] = spec->text[i];
	f->by_index = rd->ops->field_index && rd->ops->fields_pick;
	for (i = 0; f->by_index && i < MAX_NUMS; i++)
		f->num_index[i] = f->num_name[i] ? rd->ops->field_index(rd->r, f->num_name[i]) : -1;
	for (i = 0; f->by_index && i < MAX_TEXTS; i++)
		f->text_index[i] = f->text_name[i] ? rd->ops->field_index(rd->r, f->text_name[i]) : -1;
	f->states = ctf_states;		/* hvtrace.ko: 0 is runnable, any state bit is not */
	settle(f, spec, false);
	return f;
}

/* The fields of @f's kind in @v, read by place in one pass. */
static void pick_fields(const struct hvt_event_format *f, struct hvt_reader *rd, struct fields *v)
{
	struct hvt_field_pick picks[MAX_NUMS + MAX_TEXTS];
	unsigned int i, n = 0;

	for (i = 0; i < MAX_NUMS; i++)
		if (f->num_index[i] >= 0)
			picks[n++] = (struct hvt_field_pick){ .index = f->num_index[i],
							      .num = &v->num[i] };
	for (i = 0; i < MAX_TEXTS; i++)
		if (f->text_index[i] >= 0)
			picks[n++] = (struct hvt_field_pick){ .index = f->text_index[i],
							      .text = v->text[i],
							      .len = HVT_COMM_LEN };
	rd->ops->fields_pick(rd->r, picks, n);
}

enum hvt_ev_kind hvt_decode_reader(struct hvt_event_decoder *d, struct hvt_reader *rd,
				   const struct hvt_reader_event *ev, struct hvt_typed_event *out)
{
	struct hvt_ftrace_cpu *c = hvt_reader_ftrace_cpu(rd);
	const struct hvt_event_format *f;
	struct fields v;
	unsigned int i;

	if (c) {
		struct hvt_ftrace_event fe = { .ts = ev->ts, .cpu = ev->cpu, .tid = ev->tid,
			.name = ev->name, .id = hvt_ftrace_cpu_event_id(c), .offset = ev->offset };

		return hvt_decode_ftrace(d, c, &fe, out);
	}
	if (!rd->ops)
		return out->kind = HVT_EV_OTHER;
	f = reader_format(d, rd, ev);
	if (!f->spec)
		return out->kind = HVT_EV_OTHER;
	memset(&v, 0, sizeof(v));
	if (f->by_index) {
		pick_fields(f, rd, &v);
		return finish(f, &v, out);
	}
	for (i = 0; i < MAX_NUMS; i++)	/* read by name: each event may lack one (QEMU's text) */
		if (f->num_name[i] && rd->ops->field_u64(rd->r, f->num_name[i], &v.num[i])) {
			if (i < f->spec->required)
				return out->kind = HVT_EV_OTHER;
			v.num[i] = 0;
		}
	for (i = 0; i < MAX_TEXTS; i++)
		if (f->text_name[i] && rd->ops->field_text(rd->r, f->text_name[i], v.text[i],
							   HVT_COMM_LEN))
			v.text[i][0] = '\0';
	return finish(f, &v, out);
}
