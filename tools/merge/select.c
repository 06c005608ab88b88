// SPDX-License-Identifier: GPL-2.0-only
/*
 * select.c - which events a merge keeps (select.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/merge/select.h"
#include "tools/session/session.h"

static int add_name(char ***list, size_t *n, const char *name)
{
	char **l = realloc(*list, (*n + 1) * sizeof(*l));

	if (!l)
		return -1;
	*list = l;
	l[*n] = strdup(name);
	if (!l[*n])
		return -1;
	(*n)++;
	return 0;
}

/* A value the command line cannot take: one line, pointing to the command's --help. */
static int bad_value(const struct hvt_select *sel, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad_value(const struct hvt_select *sel, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hvt_usage_error(sel->cmd ? sel->cmd : "merge", "%s", msg);
	return -1;
}

static int add_layer(struct hvt_select *sel, const char *name)
{
	unsigned int l;

	for (l = 0; l < HVT_NR_LAYERS; l++) {
		if (!strcmp(name, hvt_layer_name(l))) {
			sel->layers |= 1u << l;
			return 0;
		}
	}
	return bad_value(sel, "--layer: unknown layer '%s' (host, kernel, user or vmm)", name);
}

static int parse_u32(const char *text, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (*text < '0' || *text > '9')
		return -1;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno || *end || n > UINT32_MAX)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

/*
 * "3" or "0-7": those CPUs of the host and those vCPUs of the VMs; as the
 * text output prints a CPU, "cpu3" a host CPU only, "vcpu3" a vCPU only.
 */
static int add_cpus(struct hvt_select *sel, char *item)
{
	char *dash, *number = item;
	uint32_t lo, hi, c, *cpus;
	unsigned char kind = HVT_SELECT_CPU_HOST | HVT_SELECT_CPU_GUEST, *kinds;

	if (!strncmp(number, "vcpu", 4)) {
		number += 4;
		kind = HVT_SELECT_CPU_GUEST;
	} else if (!strncmp(number, "cpu", 3)) {
		number += 3;
		kind = HVT_SELECT_CPU_HOST;
	}
	item = number;
	dash = strchr(item, '-');
	if (dash)
		*dash = '\0';
	if (parse_u32(item, &lo) || (dash ? parse_u32(dash + 1, &hi) : (hi = lo, 0)) ||
	    hi < lo || hi - lo >= 4096u) {
		return bad_value(sel, "--cpu: '%s%s%s' is not a CPU number or range (like 3 or 0-7)",
				 item, dash ? "-" : "", dash ? dash + 1 : "");
	}
	cpus = realloc(sel->cpus, (sel->nr_cpus + (hi - lo) + 1) * sizeof(*cpus));
	if (!cpus)
		return -1;
	sel->cpus = cpus;
	kinds = realloc(sel->cpu_kinds, (sel->nr_cpus + (hi - lo) + 1) * sizeof(*kinds));
	if (!kinds)
		return -1;
	sel->cpu_kinds = kinds;
	for (c = lo;; c++) {	/* no c <= hi: hi may be UINT32_MAX */
		kinds[sel->nr_cpus] = kind;
		cpus[sel->nr_cpus++] = c;
		if (c == hi)
			break;
	}
	return 0;
}

/* A thread id: "0" (the idle task) or more. */
static int add_tid(struct hvt_select *sel, const char *item)
{
	const char *dash = strrchr(item, '-');
	uint32_t tid;
	int32_t *tids;

	/*
	 * As the text output prints the thread: COMM-TID, a name then the tid
	 * ("tid=N" before). Not a range ("3-7": digits before the '-'), and
	 * not a negative tid ("<...>--1").
	 */
	if (dash && dash > item && dash[1] && strspn(item, "0123456789") < (size_t)(dash - item))
		item = dash[-1] == '-' ? dash : dash + 1;
	else if (!strncmp(item, "tid=", 4))
		item += 4;
	if (parse_u32(item, &tid) || tid > INT32_MAX)
		return bad_value(sel, "--tid: '%s' is not a thread id", item);
	tids = realloc(sel->tids, (sel->nr_tids + 1) * sizeof(*tids));
	if (!tids)
		return -1;
	sel->tids = tids;
	tids[sel->nr_tids++] = (int32_t)tid;
	return 0;
}

/* A process id: "0" (the idle task) or more. */
static int add_pid(struct hvt_select *sel, const char *item)
{
	uint32_t pid;
	int32_t *pids;

	if (parse_u32(item, &pid) || pid > INT32_MAX)
		return bad_value(sel, "--pid: '%s' is not a process id", item);
	pids = realloc(sel->pids, (sel->nr_pids + 1) * sizeof(*pids));
	if (!pids)
		return -1;
	sel->pids = pids;
	pids[sel->nr_pids++] = (int32_t)pid;
	return 0;
}

/*
 * Whether shell pattern @p is whole: every '[' closed by a ']' (fnmatch
 * takes an unclosed one for itself, so '[' would match nothing, silently).
 */
static bool pattern_whole(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')		/* "[]...]": the first ] is a member */
				q++;
			q = strchr(q, ']');
			if (!q)
				return false;
			p = q;
		}
	}
	return true;
}

static int add_item(struct hvt_select *sel, const char *opt, char *item)
{
	if (!*item) {
		return bad_value(sel, "--%s: an empty item in the list", opt);
	}
	if (!strcmp(opt, "layer"))
		return add_layer(sel, item);
	if (!strcmp(opt, "cpu"))
		return add_cpus(sel, item);
	if (!strcmp(opt, "tid"))
		return add_tid(sel, item);
	if (!strcmp(opt, "pid"))
		return add_pid(sel, item);
	if ((!strcmp(opt, "comm") || !strcmp(opt, "event")) && !pattern_whole(item))
		return bad_value(sel, "--%s: '%s' is not a whole pattern: a '[' without its ']'",
				 opt, item);
	if (!strcmp(opt, "comm"))
		return add_name(&sel->comms, &sel->nr_comms, item);
	if (!strcmp(opt, "vm"))
		return add_name(&sel->vms, &sel->nr_vms, item);
	return add_name(&sel->events, &sel->nr_events, item);
}

int hvt_select_add(struct hvt_select *sel, const char *opt, const char *value)
{
	char *copy, *item, *save = NULL;
	int ret = 0;

	if (!strcmp(opt, "from") || !strcmp(opt, "to")) {
		const char **at = !strcmp(opt, "from") ? &sel->from_text : &sel->to_text;

		if (*at)	/* the second would silently win */
			return bad_value(sel, "--%s is given twice (%s, then %s): give it once",
					 opt, *at, value);
		*at = value;
		return 0;
	}
	copy = strdup(value);
	if (!copy) {
		hvt_err("out of memory");
		return -1;
	}
	/* strtok_r would skip empty items; they are mistakes worth naming */
	for (item = copy; !ret && item; item = save) {
		save = strchr(item, ',');
		if (save)
			*save++ = '\0';
		ret = add_item(sel, opt, item);
	}
	free(copy);
	return ret;
}

/* [-]S[.N] with at most 9 digits of N, as nanoseconds. */
static int parse_seconds(const char *text, int64_t *ns)
{
	const char *p = text + (*text == '-');
	uint64_t sec = 0, frac = 0;
	unsigned int digits = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > (uint64_t)INT64_MAX / 1000000000u / 10u)
			return -1;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (digits < 9)
				frac = frac * 10 + (uint64_t)(*p - '0');
			else if (*p != '0')
				return -1;	/* below a nanosecond */
		}
	}
	if (*p)
		return -1;
	for (; digits < 9; digits++)
		frac *= 10;
	if (sec * 1000000000u + frac > (uint64_t)INT64_MAX)
		return -1;
	*ns = (int64_t)(sec * 1000000000u + frac);
	if (*text == '-')
		*ns = -*ns;
	return 0;
}

static int parse_time(const struct hvt_select *sel, const char *opt, const char *text,
		      enum hvt_time_mode mode, int64_t *ns, uint64_t *tsc)
{
	unsigned long long v;
	char *end;

	if (mode == HVT_TIME_HOST_TSC) {
		errno = 0;
		v = *text >= '0' && *text <= '9' ? strtoull(text, &end, 10) : 0;
		if (*text >= '0' && *text <= '9' && !errno && !*end) {
			*tsc = v;
			return 0;
		}
		return bad_value(sel, "--%s: '%s' is not a host TSC value (with --time=host-tsc, "
				 "times are TSC ticks)", opt, text);
	}
	if (!parse_seconds(text, ns))
		return 0;
	return bad_value(sel, "--%s: '%s' is not a time in seconds (like 1.5 or 0.000123456; %s)",
			 opt, text, mode == HVT_TIME_REALTIME ?
			 "with --time=realtime, seconds since the epoch" :
			 "seconds since the trace started, as merge prints them");
}

int hvt_select_finish(struct hvt_select *sel, enum hvt_time_mode mode)
{
	sel->mode = mode;
	if ((sel->from_text && parse_time(sel, "from", sel->from_text, mode, &sel->from_ns,
					 &sel->from_tsc)) ||
	    (sel->to_text && parse_time(sel, "to", sel->to_text, mode, &sel->to_ns, &sel->to_tsc)))
		return -1;
	if (sel->from_text && sel->to_text &&
	    (mode == HVT_TIME_HOST_TSC ? sel->to_tsc < sel->from_tsc : sel->to_ns < sel->from_ns)) {
		return bad_value(sel, "--to %s is before --from %s", sel->to_text, sel->from_text);
	}
	return 0;
}

bool hvt_select_any(const struct hvt_select *sel)
{
	return sel->layers || sel->nr_vms || sel->nr_cpus || sel->nr_tids || sel->nr_pids ||
	       sel->nr_comms ||
	       sel->nr_events || sel->from_text || sel->to_text;
}

/* Whether CPU @cpu, a VM's vCPU if @guest, else a host CPU, is selected. */
static bool cpu_selected(const struct hvt_select *sel, uint32_t cpu, bool guest)
{
	unsigned char kind = guest ? HVT_SELECT_CPU_GUEST : HVT_SELECT_CPU_HOST;
	size_t i;

	for (i = 0; i < sel->nr_cpus; i++)
		if (sel->cpus[i] == cpu && (sel->cpu_kinds[i] & kind))
			return true;
	return false;
}

static bool tid_selected(const struct hvt_select *sel, int32_t tid)
{
	size_t i;

	for (i = 0; i < sel->nr_tids; i++)
		if (sel->tids[i] == tid)
			return true;
	return false;
}

/* Whether @s's thread belongs to a --pid process (one the archive does not place: no). */
static bool pid_selected(const struct hvt_select *sel, const struct hvt_source *s)
{
	int32_t pid = sel->processes ? hvt_thread_pids_get(sel->processes, s) : -1;
	size_t i;

	for (i = 0; pid >= 0 && i < sel->nr_pids; i++)
		if (sel->pids[i] == pid)
			return true;
	return false;
}

/* Whether @sel's --layer, --vm and a host CPU file's --cpu take source @s. */
static bool source_selected(const struct hvt_select *sel, const struct hvt_source *s)
{
	size_t i;

	if (sel->layers && !(sel->layers & (1u << s->layer)))
		return false;
	if (sel->nr_vms && s->vm) {
		for (i = 0; i < sel->nr_vms && strcmp(sel->vms[i], s->vm); i++)
			;
		if (i == sel->nr_vms)
			return false;
	}
	/* a host CPU file holds that CPU's events only */
	if (sel->nr_cpus && s->host_cpu >= 0 && !cpu_selected(sel, (uint32_t)s->host_cpu, false))
		return false;
	return true;
}

bool hvt_select_source(const struct hvt_source *s, void *ctx)
{
	const struct hvt_select *sel = ctx;

	/* --comm learns names from every scheduling event: those sources are read */
	if (sel->nr_comms && (s->layer == HVT_LAYER_HOST || s->layer == HVT_LAYER_KERNEL))
		return true;
	return source_selected(sel, s);
}

void hvt_select_bind(struct hvt_select *sel, const struct hvt_thread_names *names,
		     const struct hvt_thread_pids *processes)
{
	sel->names = names;
	sel->processes = processes;
}

/* Whether @comm, or the word text output shows for it, matches a --comm pattern. */
static bool comm_matches(const struct hvt_select *sel, const char *comm)
{
	char word[HVT_COMM_TABLE_LEN];
	size_t i;

	if (!comm)
		return false;
	for (i = 0; i < sel->nr_comms; i++)
		if (!fnmatch(sel->comms[i], comm, 0))
			return true;
	if (!hvt_thread_name_word(comm, word))
		return false;
	for (i = 0; i < sel->nr_comms; i++)
		if (!fnmatch(sel->comms[i], word, 0))
			return true;
	return false;
}

/*
 * Whether the thread of @s's current event is named as --comm asks: by the
 * last name a sched_switch of its machine gave it, or, for a user event,
 * by its process's name (thread_names.h, which learnt from every event).
 */
static bool comm_selected(struct hvt_select *sel, struct hvt_source *s)
{
	int32_t tid = hvt_source_tid(s);
	uint32_t cpu = hvt_source_cpu(s);
	char idle[32];

	if (!sel->names || !source_selected(sel, s))
		return false;
	if (tid == 0) {	/* the idle task: as shown, or as the kernel names it on that CPU */
		snprintf(idle, sizeof(idle), "swapper/%" PRIu32, cpu);
		return comm_matches(sel, "<idle>") || (cpu != HVT_NO_CPU && comm_matches(sel, idle));
	}
	return comm_matches(sel, hvt_thread_names_get(sel->names, s)) ||
	       comm_matches(sel, hvt_thread_names_process(sel->names, s));
}

static bool name_selected(struct hvt_select *sel, const char *name)
{
	size_t slot = ((uintptr_t)name >> 3) % HVT_SELECT_CACHE, i;
	bool match = false;

	if (sel->cache[slot].name == name)
		return sel->cache[slot].match;
	for (i = 0; i < sel->nr_events && !match; i++)
		match = !fnmatch(sel->events[i], name, 0);
	sel->cache[slot].name = name;
	sel->cache[slot].match = match;
	return match;
}

/* -1 before --from, 1 after --to, else 0. */
static int time_place(const struct hvt_select *sel, struct hvt_host_clock *clock, uint64_t tsc)
{
	int64_t ns;

	if (sel->mode == HVT_TIME_HOST_TSC)
		return sel->from_text && tsc < sel->from_tsc ? -1 :
		       sel->to_text && tsc > sel->to_tsc ? 1 : 0;
	ns = sel->mode == HVT_TIME_REALTIME ? hvt_host_clock_realtime(clock, tsc) :
	     hvt_host_clock_since_start(clock, tsc);
	return sel->from_text && ns < sel->from_ns ? -1 : sel->to_text && ns > sel->to_ns ? 1 : 0;
}

int hvt_select_event(struct hvt_select *sel, struct hvt_host_clock *clock,
		     struct hvt_source *s)
{
	bool comm_ok = !sel->nr_comms || comm_selected(sel, s);

	if (sel->from_text || sel->to_text) {
		int place = time_place(sel, clock, s->host_tsc);

		if (place > 0)
			return sel->mode == HVT_TIME_REALTIME ? 0 : -1;
		if (place < 0)
			return 0;
	}
	if (!comm_ok)
		return 0;
	if (sel->nr_cpus && !cpu_selected(sel, hvt_source_cpu(s), s->vm_number != 0))
		return 0;
	if (sel->nr_tids && !tid_selected(sel, hvt_source_tid(s)))
		return 0;
	if (sel->nr_pids && !pid_selected(sel, s))
		return 0;
	return !sel->nr_events || name_selected(sel, hvt_source_event_name(s));
}

void hvt_select_free(struct hvt_select *sel)
{
	size_t i;

	for (i = 0; i < sel->nr_vms; i++)
		free(sel->vms[i]);
	for (i = 0; i < sel->nr_events; i++)
		free(sel->events[i]);
	free(sel->vms);
	free(sel->events);
	free(sel->cpus);
	free(sel->cpu_kinds);
	free(sel->tids);
	free(sel->pids);
	for (i = 0; i < sel->nr_comms; i++)
		free(sel->comms[i]);
	free(sel->comms);
	memset(sel, 0, sizeof(*sel));
}

int hvt_select_check_vms(const struct hvt_select *sel, const struct hvt_archive *a)
{
	char names[256];
	size_t i, j;

	for (i = 0; i < sel->nr_vms; i++) {
		for (j = 0; j < a->nr_vms && strcmp(sel->vms[i], a->vms[j].name); j++)
			;
		if (j == a->nr_vms) {
			hvt_err("--vm %s: %s has no VM of that name (%s)", sel->vms[i], a->root,
				hvt_archive_vm_list(a, names, sizeof(names)));
			return -1;
		}
	}
	return 0;
}
