// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracedat.c - the host layer from a trace-cmd recording (trace.dat), read
 * through libtracecmd, for `merge --host-trace` (ftrace_reader.h).
 *
 * Its timestamps must be the host TSC, as the archive's are: the file must
 * have been recorded with `trace-cmd record -C x86-tsc` (and without
 * --tsc2nsec, which the timeline catches: the times would not fall within
 * the archive's clock pairs). libtracecmd parses the file; what it hands
 * out is checked as the raw pages are: each format's fields must lie
 * within a page, each record must fit in one, and records are copied into
 * the reader's zero-padded scratch before libtraceevent reads them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/read/ftrace_private.h"
#include "tools/util/stream_warn.h"

/*
 * Exported by libtracecmd (trace-cmd 3.1) but declared only in its private
 * header: the number of CPUs of a file, its page size, its trace clock, and
 * the handle's flags.
 */
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
void tracecmd_set_flag(struct tracecmd_input *handle, int flag);

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

bool hvt_ftrace_unsafe(const struct hvt_ftrace *ft, int id)
{
	return bsearch(&id, ft->unsafe, ft->nr_unsafe, sizeof(int), cmp_int) != NULL;
}

/*
 * Events whose fields a record of a page cannot hold, or with no common_type:
 * never decoded (a warning each).
 */
static int find_unsafe(struct hvt_ftrace *ft, const char *path, unsigned long *warnings)
{
	struct tep_event **events = tep_list_events(ft->tep, TEP_EVENT_SORT_ID);
	int i, n = tep_get_events_count(ft->tep);

	ft->unsafe = calloc((size_t)n + 1, sizeof(int));
	if (!ft->unsafe)
		return -1;
	for (i = 0; events && i < n; i++) {
		const struct tep_format_field *bad =
			hvt_ftrace_field_outside(events[i]->format.common_fields, ft->page_size);

		if (!bad)
			bad = hvt_ftrace_field_outside(events[i]->format.fields, ft->page_size);
		if (!bad)
			bad = hvt_ftrace_field_malformed(events[i]);
		if (!bad && !tep_find_common_field(events[i], "common_type")) {
			hvt_warn("%s: event %s: no common_type field (a damaged format?); that "
				 "event will not be decoded", path, events[i]->name);
			(*warnings)++;
			ft->unsafe[ft->nr_unsafe++] = events[i]->id;
			continue;
		}
		if (!bad)
			continue;
		hvt_warn("%s: event %s: field %s (offset %d, size %d) lies outside any record "
			 "of a %u-byte page or cannot hold a value; that event will not be decoded",
			 path, events[i]->name, bad->name, bad->offset, bad->size, ft->page_size);
		(*warnings)++;
		ft->unsafe[ft->nr_unsafe++] = events[i]->id;
	}
	qsort(ft->unsafe, ft->nr_unsafe, sizeof(int), cmp_int);
	return 0;
}

struct hvt_ftrace *hvt_ftrace_open_tracedat(const char *path, const char **clock_out,
					    unsigned long *warnings)
{
	struct hvt_ftrace *ft = calloc(1, sizeof(*ft));
	const char *clock;
	uint64_t size;
	int fd;

	if (!ft) {
		hvt_err("out of memory");
		return NULL;
	}
	ft->span_hi = UINT64_MAX;
	/* libtracecmd would wait forever on a FIFO: a regular file only. */
	fd = hvt_open_regular(path, UINT64_MAX, &size);
	if (fd < 0) {
		hvt_err("cannot read %s: %s", path, hvt_file_strerror(errno));
		goto fail;
	}
	close(fd);
	tracecmd_set_loglevel(TEP_LOG_NONE);	/* its errors come back as NULL */
	ft->tc = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS |
			       TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!ft->tc) {
		hvt_err("%s: libtracecmd cannot read it as a trace-cmd trace.dat", path);
		goto fail;
	}
	clock = tracecmd_get_trace_clock(ft->tc);
	if (clock_out) {
		*clock_out = clock ? clock : "unknown";
	} else if (!clock || strcmp(clock, "x86-tsc")) {
		hvt_err("%s: recorded with trace clock '%s'; merging with an archive needs the "
			"host TSC: trace-cmd record -C x86-tsc", path, clock ? clock : "unknown");
		goto fail;
	}
	ft->tep = tracecmd_get_tep(ft->tc);
	ft->page_size = (uint32_t)tracecmd_page_size(ft->tc);
	if (!ft->tep || ft->page_size < 64 || ft->page_size > (1u << 20) ||
	    tracecmd_cpus(ft->tc) <= 0) {
		hvt_err("%s: no usable page size, CPUs or event formats", path);
		goto fail;
	}
	if (find_unsafe(ft, path, warnings)) {
		hvt_err("out of memory");
		goto fail;
	}
	return ft;
fail:
	hvt_ftrace_close(ft);
	return NULL;
}

/* trace-cmd-private.h's flag (the same value since trace-cmd 2.9): raw timestamps. */
#define HVT_TRACECMD_FL_RAW_TS	(1 << 3)

void hvt_ftrace_tracedat_raw(struct hvt_ftrace *ft)
{
	if (ft->tc)
		tracecmd_set_flag(ft->tc, HVT_TRACECMD_FL_RAW_TS);
}

int hvt_ftrace_nr_cpus(const struct hvt_ftrace *ft)
{
	return ft->tc ? tracecmd_cpus(ft->tc) : 0;
}

uint64_t hvt_ftrace_first_ts(const struct hvt_ftrace *ft)
{
	return ft->tc ? tracecmd_get_first_ts(ft->tc) : 0;
}

void hvt_tracedat_close(struct hvt_ftrace *ft)
{
	tracecmd_close(ft->tc);
	ft->tc = NULL;
	ft->tep = NULL;
}

int hvt_tracedat_next(struct hvt_ftrace_cpu *c, struct hvt_ftrace_event *ev)
{
	for (;;) {
		struct tep_record *r = c->first ? tracecmd_read_cpu_first(c->ft->tc, (int)c->cpu) :
				       tracecmd_read_data(c->ft->tc, (int)c->cpu);
		int ret = 0;

		c->first = false;
		if (!r)
			return 0;
		if (r->missed_events > 0)
			c->stats.lost_events += (uint64_t)r->missed_events;
		else if (r->missed_events < 0)
			c->stats.lost_events++;	/* lost, uncounted: at least one */
		if (r->size < 0 || (uint32_t)r->size > c->ft->page_size || !r->data)
			hvt_stream_warn(&c->stats.warnings, c->name, "record at offset %llu: "
					"%d bytes do not fit in a page; skipping it",
					r->offset, r->size);
		else
			ret = hvt_ftrace_take(c, r->data, (size_t)r->size, r->ts, r->offset, ev);
		tracecmd_free_record(r);
		if (ret > 0)
			return 1;
	}
}
