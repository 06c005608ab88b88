// SPDX-License-Identifier: GPL-2.0-only
/*
 * progress.c - a merge's progress line (progress.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/clock_now.h"
#include "lib/fileio.h"
#include "tools/out/progress.h"

#define REDRAW_NS	250000000	/* at most four lines a second */

static uint64_t file_size(const struct hvt_session *ses, const struct hvt_source *s)
{
	char *path = hvt_join(ses->archive.root, s->name);
	struct stat st;
	uint64_t n = path && !stat(path, &st) ? (uint64_t)st.st_size : 0;

	free(path);
	return n;
}

void hvt_progress_init(struct hvt_progress *p, struct hvt_timeline *tl, FILE *out,
		       int64_t delay_ns, uint32_t every)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->out = out;
	p->tl = tl;
	p->delay_ns = delay_ns;
	p->redraw_ns = REDRAW_NS;
	p->every = every ? every : 1;
	p->countdown = p->every;
	p->start_ns = hvt_monotonic_ns();
	for (i = 0; out && i < tl->ses->nr_sources; i++)
		if (hvt_source_merged(tl->ses->sources[i]))
			p->total_bytes += file_size(tl->ses, tl->ses->sources[i]);
}

/* Bytes read so far: up to each stream's current event. */
static uint64_t bytes_done(const struct hvt_timeline *tl)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < tl->ses->nr_sources; i++) {
		const struct hvt_source *s = tl->ses->sources[i];

		if (hvt_source_merged(s) && s->events)
			n += s->ev.offset;
	}
	return n;
}

static void human(char *buf, size_t len, double v, const char *unit)
{
	static const char *const prefix[] = { "", "k", "M", "G", "T" };
	unsigned int i = 0;

	while (v >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s%s" : "%.0f %s%s", v, prefix[i], unit);
}

void hvt_progress_update(struct hvt_progress *p)
{
	int64_t t = hvt_monotonic_ns();
	const uint64_t *e = p->tl->events;
	uint64_t done = bytes_done(p->tl);
	char bytes[32], total[32], events[32];
	double pct;

	p->countdown = p->every;
	if (t - p->start_ns < p->delay_ns || (p->shown && t - p->last_ns < p->redraw_ns))
		return;
	p->last_ns = t;
	pct = p->total_bytes ? 100.0 * (double)done / (double)p->total_bytes : 0;
	human(bytes, sizeof(bytes), (double)done, "B");
	human(total, sizeof(total), (double)p->total_bytes, "B");
	human(events, sizeof(events), (double)(e[0] + e[1] + e[2]), "events");
	fprintf(p->out, "\rmerging: %3.0f%% (%s of %s), %s\033[K", pct > 100 ? 100 : pct, bytes,
		total, events);
	fflush(p->out);
	p->shown = true;
}

void hvt_progress_end(struct hvt_progress *p)
{
	if (p->out && p->shown) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
	}
	p->shown = false;
}
