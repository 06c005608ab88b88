// SPDX-License-Identifier: GPL-2.0-only
/*
 * selection_report.c - a selection that misses the archive, said with what
 * the archive holds (selection_report.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/merge/timeline.h"
#include "tools/out/selection_report.h"

#define NAMES_KEPT	512	/* distinct event names counted; more are "others" */
#define NAMES_SHOWN	5
#define CPUS_KEPT	1024	/* CPUs listed per machine; higher ones are counted */

/* What one machine's events used: a CPU set. */
struct machine_cpus {
	uint8_t used[CPUS_KEPT / 8];
	uint64_t beyond;		/* events on CPUs past CPUS_KEPT */
	uint64_t events;
};

struct name_count {
	char *name;			/* copied: the session's registries go first */
	uint64_t n;
};

struct holdings {
	uint64_t layer[HVT_NR_LAYERS];
	struct machine_cpus *machines;	/* host, then each VM */
	struct name_count names[NAMES_KEPT];
	size_t nr_names;
	uint64_t other_names;
	struct hvt_span span;
};

static void count_name(struct holdings *h, const char *name)
{
	size_t i;

	char *copy;

	for (i = 0; i < h->nr_names; i++)
		if (!strcmp(h->names[i].name, name)) {
			h->names[i].n++;
			return;
		}
	if (h->nr_names == NAMES_KEPT || !(copy = strdup(name))) {
		h->other_names++;
		return;
	}
	h->names[h->nr_names++] = (struct name_count){ copy, 1 };
}

static void count_event(struct holdings *h, const struct hvt_source *s, size_t nr_vms)
{
	struct machine_cpus *m;
	uint32_t cpu = hvt_source_cpu(s);

	if (s->vm_number > nr_vms)	/* a VM the archive gained since the merge opened it */
		return;
	m = &h->machines[s->vm_number];
	h->layer[s->layer]++;
	m->events++;
	if (cpu < CPUS_KEPT)
		m->used[cpu / 8] |= (uint8_t)(1u << (cpu % 8));
	else if (cpu != HVT_NO_CPU)
		m->beyond++;
	count_name(h, hvt_source_event_name(s));
	hvt_span_add(&h->span, s->host_tsc);
}

/* The CPUs of @m as ranges, "0-3,6", into @t. */
static void print_cpus(FILE *t, const struct machine_cpus *m)
{
	unsigned int c = 0, start;
	bool first = true;

	while (c < CPUS_KEPT) {
		if (!(m->used[c / 8] & (1u << (c % 8)))) {
			c++;
			continue;
		}
		for (start = c; c + 1 < CPUS_KEPT && (m->used[(c + 1) / 8] & (1u << ((c + 1) % 8)));)
			c++;
		fprintf(t, start == c ? "%s%u" : "%s%u-%u", first ? "" : ",", start, c);
		first = false;
		c++;
	}
	if (first)
		fprintf(t, "none");
	if (m->beyond)
		fprintf(t, " (and %" PRIu64 " events on CPUs past %d)", m->beyond,
				CPUS_KEPT - 1);
}

static int by_count(const void *a, const void *b)
{
	const struct name_count *x = a, *y = b;

	return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->name, y->name);
}

/* What @sel asks for, as options: " --cpu 7 --event nosuch". */
static void print_selection(FILE *t, const struct hvt_select *sel)
{
	size_t i;
	int l;

	if (sel->layers) {
		fprintf(t, " --layer ");
		for (l = 0, i = 0; l < HVT_NR_LAYERS; l++)
			if (sel->layers & (1u << l))
				fprintf(t, "%s%s", i++ ? "," : "", hvt_layer_name((enum hvt_layer)l));
	}
	for (i = 0; i < sel->nr_vms; i++)
		fprintf(t, "%s%s", i ? "," : " --vm ", sel->vms[i]);
	for (i = 0; i < sel->nr_cpus && i < 16; i++)
		fprintf(t, "%s%s%" PRIu32, i ? "," : " --cpu ",
			sel->cpu_kinds[i] == HVT_SELECT_CPU_GUEST ? "vcpu" :
			sel->cpu_kinds[i] == HVT_SELECT_CPU_HOST ? "cpu" : "", sel->cpus[i]);
	if (sel->nr_cpus > 16)
		fprintf(t, ",...");
	for (i = 0; i < sel->nr_tids; i++)
		fprintf(t, "%s%" PRId32, i ? "," : " --tid ", sel->tids[i]);
	for (i = 0; i < sel->nr_pids; i++)
		fprintf(t, "%s%" PRId32, i ? "," : " --pid ", sel->pids[i]);
	for (i = 0; i < sel->nr_comms; i++)
		fprintf(t, "%s%s", i ? "," : " --comm ", sel->comms[i]);
	for (i = 0; i < sel->nr_events; i++)
		fprintf(t, "%s%s", i ? "," : " --event ", sel->events[i]);
	if (sel->from_text)
		fprintf(t, " --from %s", sel->from_text);
	if (sel->to_text)
		fprintf(t, " --to %s", sel->to_text);
}

static void print_holdings(FILE *t, struct holdings *h, const struct hvt_session *ses)
{
	char a[HVT_TIME_TEXT_MAX], b[HVT_TIME_TEXT_MAX];
	struct hvt_host_clock *clock = (struct hvt_host_clock *)&ses->clock;
	size_t i, shown;

	fprintf(t, "the archive holds %" PRIu64 " events (host %" PRIu64 ", kernel %" PRIu64
		", user %" PRIu64, h->layer[HVT_LAYER_HOST] + h->layer[HVT_LAYER_KERNEL] +
		h->layer[HVT_LAYER_USER] + h->layer[HVT_LAYER_VMM], h->layer[HVT_LAYER_HOST],
		h->layer[HVT_LAYER_KERNEL], h->layer[HVT_LAYER_USER]);
	if (h->layer[HVT_LAYER_VMM])
		fprintf(t, ", vmm %" PRIu64, h->layer[HVT_LAYER_VMM]);
	fprintf(t, ")");
	if (!h->span.any)
		return;
	hvt_time_format(a, HVT_TIME_NS, clock, h->span.first);
	hvt_time_format(b, HVT_TIME_NS, clock, h->span.last);
	fprintf(t, " from %s to %s s since its start (realtime ", a, b);
	hvt_time_format(a, HVT_TIME_REALTIME, clock, h->span.first);
	hvt_time_format(b, HVT_TIME_REALTIME, clock, h->span.last);
	fprintf(t, "%s to %s); CPUs: ", a, b);
	for (i = 0, shown = 0; i <= ses->archive.nr_vms; i++) {
		if (!h->machines[i].events)
			continue;
		fprintf(t, "%s%s%s ", shown++ ? ", " : "", i ? "vm " : "host",
			i ? ses->archive.vms[i - 1].name : "");
		print_cpus(t, &h->machines[i]);
	}
	qsort(h->names, h->nr_names, sizeof(h->names[0]), by_count);
	fprintf(t, "; %zu%s event name%s, most frequent: ", h->nr_names,
		h->other_names ? " or more" : "", h->nr_names == 1 ? "" : "s");
	for (i = 0; i < h->nr_names && i < NAMES_SHOWN; i++)
		fprintf(t, "%s%s (%" PRIu64 ")", i ? ", " : "", h->names[i].name,
				h->names[i].n);
}

/*
 * "--event sched:sched_switch" names a host event as record -e does: say
 * that merge names it without its system, when the archive has it so.
 */
static void system_hint(FILE *t, const struct holdings *h, const struct hvt_select *sel)
{
	const char *tail;
	size_t i, k;

	for (i = 0; i < sel->nr_events; i++) {
		if (!(tail = strchr(sel->events[i], ':')))
			continue;
		for (k = 0; k < h->nr_names && strcmp(h->names[k].name, tail + 1); k++)
			;
		if (k < h->nr_names)
			fprintf(t, "; host events are named without their system: --event %s, "
				"not %s", tail + 1, sel->events[i]);
	}
}

/* A --comm name longer than a thread's name can be (the kernel keeps 15 characters). */
static void comm_hint(FILE *t, const struct hvt_select *sel)
{
	size_t i;

	for (i = 0; i < sel->nr_comms; i++)
		if (strlen(sel->comms[i]) > 15 && !strpbrk(sel->comms[i], "*?[")) {
			fprintf(t, "; --comm %s: the kernel keeps a thread's name to 15 characters "
				"(%.15s), or give a pattern (%.14s*)", sel->comms[i], sel->comms[i],
				sel->comms[i]);
			return;
		}
}

/* --pid with an archive that lists no host thread: why host events have no process. */
static void pid_hint(FILE *t, const struct hvt_session *ses, const struct hvt_select *sel)
{
	if (sel->nr_pids && ses->ftrace && !ses->archive.nr_host_tasks)
		fprintf(t, "; --pid: the archive lists no host thread (host/ftrace/tasks.tsv, "
			"written by the recordings of this version on), so its host events "
			"have no process");
}

void hvt_selection_empty_report(const struct hvt_session *ses, const struct hvt_session_opts *so,
				const struct hvt_select *sel)
{
	struct hvt_session again;
	struct hvt_timeline tl;
	struct hvt_source *s;
	struct holdings *h = calloc(1, sizeof(*h));
	struct hvt_host_clock *clock = (struct hvt_host_clock *)&ses->clock;
	char *text = NULL, why_buf[160];
	const char *why;
	size_t i, len = 0;
	FILE *t;

	if (!h || !(h->machines = calloc(ses->archive.nr_vms + 1, sizeof(*h->machines)))) {
		free(h);
		hvt_warn("no event was selected (out of memory to say what the archive holds)");
		return;
	}
	hvt_log_mute();		/* the first open said it all */
	if (!hvt_session_open(&again, ses->archive.root, so)) {
		if (!hvt_timeline_init(&tl, &again, NULL, NULL))
			while ((s = hvt_timeline_next(&tl)))
				count_event(h, s, ses->archive.nr_vms);
		hvt_timeline_close(&tl);
		hvt_session_close(&again);
	}
	hvt_log_unmute();
	if ((t = open_memstream(&text, &len))) {
		print_selection(t, sel);
		if (h->span.any && (why = hvt_select_span_miss(sel, clock, &h->span, why_buf,
							       sizeof(why_buf))))
			fprintf(t, " (%s%s)", why, hvt_select_unit_hint(sel->mode));
		fprintf(t, "; ");
		print_holdings(t, h, ses);
		system_hint(t, h, sel);
		pid_hint(t, ses, sel);
		comm_hint(t, sel);
		fclose(t);
	}
	hvt_warn("no event was selected by%s", text ? text : "(out of memory)");
	free(text);
	for (i = 0; i < h->nr_names; i++)
		free(h->names[i].name);
	free(h->machines);
	free(h);
}
