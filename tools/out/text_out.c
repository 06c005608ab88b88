// SPDX-License-Identifier: GPL-2.0-only
/*
 * text_out.c - merged events as text, one line per event:
 *
 *       0.001234567 host   -     cpu1  qemu-system-x86-4321  sched_switch prev_comm=...
 *       0.001240000 kernel demo  vcpu0 hvdemo-77             sched_switch prev_comm=...
 *
 * time (with --bounds, then its error bound), layer, VM ('-' on the host),
 * CPU (a VM's events: the vCPU), thread, event, fields. The thread is
 * COMM-TID, as trace-cmd report prints it, in one word: a blank in the
 * name is shown as '_' ("CPU_0/TCG-5321"), a name not known yet as
 * "<...>", the idle task as "<idle>".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/session/thread_names.h"
#include "tools/out/text_out.h"

#define TIME_WIDTH	16	/* the time is right-aligned in as many columns */
#define LAYER_WIDTH	6
#define VM_WIDTH	5
#define CPU_WIDTH	5	/* vcpuN */
#define THREAD_WIDTH	21	/* a 15-character name, '-', a 5-digit tid */
#define BOUND_WIDTH	12	/* +/-1234.567 (us) */
#define OUTPUT_BUFFER	(1u << 20)

/* The layer and VM columns of @s, in @c. */
static void fill_cols(const struct hvt_printer *p, const struct hvt_source *s,
		      struct hvt_source_cols *c)
{
	int n = snprintf(c->text, sizeof(c->text), "%-*s %-*s ", LAYER_WIDTH,
			 hvt_layer_name(s->layer), p->vm_width, s->vm ? s->vm : "-");

	c->len = n > 0 && (size_t)n < sizeof(c->text) ? (unsigned int)n : 0;
}

/* Columns for the session's sources up to its last: 0, or -1 if out of memory. */
static int cover_sources(struct hvt_printer *p)
{
	struct hvt_source_cols *grown;
	size_t i, n = p->ses->nr_sources;

	if (n <= p->nr_cols)
		return 0;
	grown = realloc(p->cols, n * sizeof(*grown));
	if (!grown)
		return -1;
	p->cols = grown;
	for (i = p->nr_cols; i < n; i++)
		fill_cols(p, p->ses->sources[i], &p->cols[i]);
	p->nr_cols = n;
	return 0;
}

int hvt_printer_init(struct hvt_printer *p, struct hvt_session *ses,
		     enum hvt_time_mode mode, FILE *out)
{
	char *buf = malloc(OUTPUT_BUFFER);
	size_t i;

	memset(p, 0, sizeof(*p));
	p->ses = ses;
	/* the VM column fits the longest name of the VMs whose events are shown */
	p->vm_width = VM_WIDTH;
	for (i = 0; i < ses->nr_sources; i++) {
		const struct hvt_source *s = ses->sources[i];

		if (s->vm && s->aligned && !s->unwanted && strlen(s->vm) > (size_t)p->vm_width)
			p->vm_width = (int)strlen(s->vm);
	}
	if (!buf || cover_sources(p) || hvt_sched_state_init(&p->states)) {
		free(buf);
		free(p->cols);
		hvt_sched_state_free(&p->states);
		return -1;
	}
	hvt_text_init(&p->text, out, buf, OUTPUT_BUFFER);
	p->mode = mode;
	p->clock = &ses->clock;
	return 0;
}

void hvt_printer_free(struct hvt_printer *p)
{
	free(p->text.buf);
	free(p->cols);
	hvt_sched_state_free(&p->states);
	memset(p, 0, sizeof(*p));
}

/*
 * "+/-B " with B the event's error bound in us, to the ns rounded up:
 * 0.000 on the host TSC, "?" where none is guaranteed.
 */
static void print_bound(struct hvt_printer *pr, struct hvt_source *s)
{
	int64_t ns = hvt_session_event_bound_ns(pr->ses, s);
	char text[40];
	int n;

	if (ns < 0)
		n = snprintf(text, sizeof(text), "+/-?");
	else
		n = snprintf(text, sizeof(text), "+/-%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
	while (n < BOUND_WIDTH)
		text[n++] = ' ';
	text[n++] = ' ';
	hvt_text_mem(&pr->text, text, (size_t)n);
}

/* COMM-TID, padded to THREAD_WIDTH, then a blank. */
static void print_thread(struct hvt_printer *pr, struct hvt_source *s)
{
	int32_t tid = hvt_source_tid(s);
	const char *comm = pr->names ? hvt_thread_names_get(pr->names, s) : NULL;
	char word[HVT_COMM_TABLE_LEN];
	char *start = hvt_text_room(&pr->text, THREAD_WIDTH + 32);
	size_t n;

	if (comm) {
		hvt_thread_name_word(comm, word);
		comm = word;
	} else {
		comm = tid ? "<...>" : "<idle>";
	}
	n = strlen(comm);
	memcpy(start, comm, n);
	start[n++] = '-';
	if (tid < 0)
		start[n++] = '-';
	n += hvt_u64_text(start + n, tid < 0 ? -(uint64_t)tid : (uint64_t)tid);
	while (n < THREAD_WIDTH)
		start[n++] = ' ';
	start[n++] = ' ';
	pr->text.p = start + n;
}

void hvt_printer_print(struct hvt_printer *pr, struct hvt_source *s)
{
	struct hvt_text *t = &pr->text;
	uint32_t cpu = hvt_source_cpu(s);
	char time[HVT_TIME_TEXT_MAX], *p;
	unsigned int len, pad, n;

	if (pr->delta) {
		len = hvt_time_format_delta(time, pr->mode, pr->clock,
					    pr->prev_tsc ? pr->prev_tsc : s->host_tsc, s->host_tsc);
		pr->prev_tsc = s->host_tsc;
	} else {
		len = hvt_time_format(time, pr->mode, pr->clock, s->host_tsc);
	}

	/* time, right-aligned */
	pad = len < TIME_WIDTH ? TIME_WIDTH - len : 0;
	p = hvt_text_room(t, TIME_WIDTH + HVT_TIME_TEXT_MAX);
	memset(p, ' ', pad);
	memcpy(p + pad, time, len);
	p[pad + len] = ' ';
	t->p += pad + len + 1;
	if (pr->bounds)
		print_bound(pr, s);
	/* layer and VM: the same for every line of the source (one a refresh added: now) */
	if (s->index < pr->nr_cols || !cover_sources(pr)) {
		hvt_text_mem(t, pr->cols[s->index].text, pr->cols[s->index].len);
	} else {
		struct hvt_source_cols c;

		fill_cols(pr, s, &c);
		hvt_text_mem(t, c.text, c.len);
	}
	/* cpuN or -, then the thread */
	p = hvt_text_room(t, 48);
	if (cpu != HVT_CTF_NO_CPU && s->vm_number) {
		memcpy(p, "vcpu", 4);
		n = 4 + hvt_u64_text(p + 4, cpu);
	} else if (cpu != HVT_CTF_NO_CPU) {
		memcpy(p, "cpu", 3);
		n = 3 + hvt_u64_text(p + 3, cpu);
	} else {
		*p = '-';
		n = 1;
	}
	while (n < CPU_WIDTH)
		p[n++] = ' ';
	p[n++] = ' ';
	t->p += n;
	print_thread(pr, s);
	hvt_source_print_name(s, t);
	hvt_source_print_fields(s, t, pr->print_fmt, hvt_sched_state_of(&pr->states, s));
	hvt_text_char(t, '\n');
}
