// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_tsv.c - host/clock.tsv and vm/NAME/sync.tsv: a header line, then
 * rows of unsigned decimal columns separated by tabs (docs/format.md).
 *
 * A row that does not parse is warned about (file and line) and skipped: a
 * crash can leave a half-written last line, and one bad line must not cost
 * the whole recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clocksync/tsc_timeline.h"
#include "lib/grow.h"
#include "lib/archive_format.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/archive/archive.h"
#include "tools/util/stream_warn.h"

#define TSV_MAX_COLS	8
#define TSV_MAX_ROWS	(1u << 22)	/* ~50 days of one row per second */
#define TSV_MAX_LINE	256		/* bytes: 8 columns of 20 digits and tabs fit */
#define TSV_MAX_BYTES	((uint64_t)TSV_MAX_ROWS * TSV_MAX_LINE)

typedef int (*tsv_row_fn)(void *ctx, const uint64_t *v, unsigned long line);

/* A whole column of decimal digits, no sign, no blanks. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int split_row(char *line, unsigned int ncols, uint64_t *v)
{
	char *rest = line;
	unsigned int i;

	for (i = 0; i < ncols; i++) {
		char *tok = strsep(&rest, "\t");

		if (!tok || parse_u64(tok, &v[i]))
			return -1;
	}
	return rest ? -1 : 0;	/* more columns than expected */
}

/*
 * The next line of @f into @line (TSV_MAX_LINE bytes), without its end: 1,
 * 0 at the end of the file, -1 for a line too long (skipped whole).
 */
static int next_line(FILE *f, char *line)
{
	size_t len;
	int c;

	if (!fgets(line, TSV_MAX_LINE, f))
		return 0;
	len = strlen(line);
	if (len && line[len - 1] != '\n' && !feof(f)) {
		while ((c = getc(f)) != EOF && c != '\n')
			;
		return -1;
	}
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	return 1;
}

typedef void (*tsv_report_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* @report says why the whole file is unusable: hvt_err or hvt_warn. */
static int tsv_read(const char *path, const char *header, unsigned int ncols,
		    tsv_row_fn fn, void *ctx, tsv_report_fn report, unsigned long *warnings)
{
	uint64_t v[TSV_MAX_COLS], size;
	unsigned long lineno = 0, bad = 0;
	char line[TSV_MAX_LINE];
	int fd = hvt_open_regular(path, TSV_MAX_BYTES, &size), ret = 0, got;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f) {
		report("cannot open %s: %s", path, hvt_file_strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((got = next_line(f, line))) {
		if (got < 0 && lineno == 0) {
			report("%s: unexpected header line; expected \"%s\"", path, header);
			ret = -1;
			break;
		}
		if (got < 0) {
			hvt_stream_warn(&bad, path, "line %lu is longer than %u bytes; skipping it",
					++lineno, TSV_MAX_LINE - 2);
			continue;
		}
		if (++lineno == 1) {
			if (strcmp(line, header)) {
				report("%s: unexpected header line; expected \"%s\"", path, header);
				ret = -1;
				break;
			}
			continue;
		}
		if (!line[0])
			continue;
		if (split_row(line, ncols, v)) {
			hvt_stream_warn(&bad, path, "line %lu does not parse; skipping it", lineno);
			continue;
		}
		ret = fn(ctx, v, lineno);
		if (ret)
			break;
	}
	if (!ret && lineno == 0) {
		report("%s: empty file", path);
		ret = -1;
	}
	*warnings += bad;
	fclose(f);
	return ret < 0 ? -1 : 0;
}

/* The rows of a file so far: an array of @size-byte elements. */
struct tsv_rows {
	void *v;
	size_t n, cap, size;
	const char *path;
	unsigned long *warnings;
	unsigned long skipped;		/* rows skipped so far (the first few said) */
};

/* Room for one more row: its slot, or NULL after an error message (out of memory or rows). */
static void *tsv_push(struct tsv_rows *r)
{
	void *p;

	if (r->n >= TSV_MAX_ROWS) {
		hvt_err("%s: more than %u rows", r->path, TSV_MAX_ROWS);
		return NULL;
	}
	p = hvt_grow(r->v, r->n, &r->cap, r->size);
	if (!p) {
		hvt_err("out of memory reading %s", r->path);
		return NULL;
	}
	r->v = p;
	return (char *)p + r->n++ * r->size;
}

/*
 * A row that parsed but makes no sense: said (the first few of a file),
 * counted and skipped.
 */
static int tsv_skip(struct tsv_rows *r, unsigned long line, const char *why)
{
	hvt_stream_warn(&r->skipped, r->path, "line %lu: %s; skipping it", line, why);
	(*r->warnings)++;
	return 0;
}

/* @path's rows as a new array of @size-byte elements in *@rows; -1 after a message. */
static int tsv_read_rows(const char *path, const char *header, unsigned int ncols, size_t size,
			 tsv_row_fn fn, tsv_report_fn report, unsigned long *warnings,
			 void **rows, size_t *n)
{
	struct tsv_rows r = { .size = size, .path = path, .warnings = warnings };

	if (tsv_read(path, header, ncols, fn, &r, report, warnings)) {
		free(r.v);
		return -1;
	}
	*rows = r.v;
	*n = r.n;
	return 0;
}

static int clock_row(void *ctx, const uint64_t *v, unsigned long line)
{
	struct tsv_rows *r = ctx;
	const struct hvt_clock_pair *prev = r->n ? (struct hvt_clock_pair *)r->v + r->n - 1 : NULL;
	struct hvt_clock_pair *p;

	/* Below 2^62 ns (year 2116): conversions then cannot overflow (host_clock.c). */
	if (v[1] >= 1ull << 62 || v[2] >= 1ull << 62 ||
	    (prev && (v[0] <= prev->tsc || (int64_t)v[1] <= prev->mono_ns)))
		return tsv_skip(r, line, "clock values out of range or not increasing");
	p = tsv_push(r);
	if (!p)
		return -1;
	*p = (struct hvt_clock_pair){
		.tsc = v[0], .mono_ns = (int64_t)v[1], .real_ns = (int64_t)v[2],
		.uncertainty = v[3],
	};
	return 0;
}

int hvt_tsv_read_clock(const char *path, struct hvt_clock_pair **pairs, size_t *n,
		       unsigned long *warnings)
{
	void *rows;

	if (tsv_read_rows(path, HVT_CLOCK_TSV_HEADER, HVT_CLOCK_TSV_COLS, sizeof(**pairs),
			  clock_row, hvt_err, warnings, &rows, n))
		return -1;
	*pairs = rows;
	return 0;
}

/*
 * sync.tsv's rows, and the host send times seen: an exchange is one host
 * TSC instant, so a second row with the same one is a copy (damage), which
 * would also cost the estimator a pass over every sample per copy.
 */
struct sync_rows {
	struct tsv_rows r;		/* first: the rows' context */
	uint64_t *seen;			/* open addressing, 0 empty; host_send + 1 */
	size_t nr_seen, cap_seen;
	unsigned long copies;
};

/* Whether @host_send was seen; it is from now. -1 if out of memory. */
static int seen_before(struct sync_rows *s, uint64_t host_send)
{
	uint64_t key = host_send + 1 ? host_send + 1 : 1;
	size_t k;

	if ((s->nr_seen + 1) * 2 > s->cap_seen) {
		size_t cap = s->cap_seen ? s->cap_seen * 2 : 1024, i;
		uint64_t *t = calloc(cap, sizeof(*t));

		if (!t)
			return -1;
		for (i = 0; i < s->cap_seen; i++) {
			if (!s->seen[i])
				continue;
			for (k = (s->seen[i] * 0x9e3779b97f4a7c15ull) >> 1 & (cap - 1); t[k];
			     k = (k + 1) & (cap - 1))
				;
			t[k] = s->seen[i];
		}
		free(s->seen);
		s->seen = t;
		s->cap_seen = cap;
	}
	for (k = (key * 0x9e3779b97f4a7c15ull) >> 1 & (s->cap_seen - 1); s->seen[k];
	     k = (k + 1) & (s->cap_seen - 1))
		if (s->seen[k] == key)
			return 1;
	s->seen[k] = key;
	s->nr_seen++;
	return 0;
}

static int sync_row(void *ctx, const uint64_t *v, unsigned long line)
{
	struct sync_rows *s = ctx;
	struct tsv_rows *r = &s->r;
	struct hvt_sync_rec *rec;
	int seen;

	if (v[5] > UINT32_MAX || v[6] > UINT32_MAX)
		return tsv_skip(r, line, "CPU number out of range");
	/* Each side reads its clock before sending and after receiving. */
	if (v[4] < v[1] || v[3] < v[2])
		return tsv_skip(r, line, "a reply before its request");
	seen = seen_before(s, v[1]);
	if (seen < 0) {
		hvt_err("out of memory reading %s", r->path);
		return -1;
	}
	if (seen) {
		s->copies++;
		return tsv_skip(r, line, "an exchange sent at the same host TSC as an earlier row");
	}
	rec = tsv_push(r);
	if (!rec)
		return -1;
	*rec = (struct hvt_sync_rec){
		.seq = v[0],
		.ex = { .host_send = v[1], .guest_recv = v[2], .guest_send = v[3],
			.host_recv = v[4] },
		.cpu_recv = (uint32_t)v[5], .cpu_send = (uint32_t)v[6],
	};
	return 0;
}

int hvt_tsv_read_sync(const char *path, struct hvt_sync_rec **recs, size_t *n,
		      unsigned long *warnings)
{
	struct sync_rows s = { .r = { .size = sizeof(**recs), .path = path,
				      .warnings = warnings } };
	int ret = tsv_read(path, HVT_SYNC_TSV_HEADER, HVT_SYNC_TSV_COLS, sync_row, &s, hvt_warn,
			   warnings);

	free(s.seen);
	if (s.copies)
		hvt_warn("%s: %lu rows repeat an earlier exchange; skipped", path, s.copies);
	if (ret) {
		free(s.r.v);
		return -1;
	}
	*recs = s.r.v;
	*n = s.r.n;
	return 0;
}

/* KVM's vCPU ids are below KVM_MAX_VCPU_IDS, at most 4096 on x86 (a config option). */
#define KVM_VCPU_ID_LIMIT	(1u << 16)

static int kvm_row(void *ctx, const uint64_t *v, unsigned long line)
{
	struct tsv_rows *r = ctx;
	struct hvt_kvm_reading *k;

	if (v[1] < v[0] || v[2] != HVT_TSC_SRC_DEBUGFS ||
	    v[3] > INT32_MAX || v[4] >= KVM_VCPU_ID_LIMIT || v[7] > 63 ||
	    (v[6] == 0 && v[7] != 0))
		return tsv_skip(r, line, "values out of range");
	k = tsv_push(r);
	if (!k)
		return -1;
	*k = (struct hvt_kvm_reading){
		.before = v[0], .after = v[1], .source = (uint32_t)v[2], .vm_fd = (uint32_t)v[3],
		.vcpu = (uint32_t)v[4], .offset = v[5], .ratio = v[6], .frac = (uint32_t)v[7],
	};
	return 0;
}

int hvt_tsv_read_kvm_tsc(const char *path, struct hvt_kvm_reading **readings, size_t *n,
			 unsigned long *warnings)
{
	void *rows;

	*readings = NULL;
	*n = 0;
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	if (tsv_read_rows(path, HVT_KVM_TSC_TSV_HEADER, HVT_KVM_TSC_TSV_COLS, sizeof(**readings),
			  kvm_row, hvt_warn, warnings, &rows, n))
		return -1;
	*readings = rows;
	return 0;
}
