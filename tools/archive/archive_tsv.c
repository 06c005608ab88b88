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
#include "lib/log.h"
#include "tools/archive/archive.h"
#include "tools/util/stream_warn.h"

#define TSV_MAX_COLS	8
#define TSV_MAX_ROWS	(1u << 22)	/* ~50 days of one row per second */

typedef int (*tsv_row_fn)(void *ctx, const uint64_t *v, const char *path,
			  unsigned long line);

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

static void chomp(char *line)
{
	size_t len = strlen(line);

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
}

typedef void (*tsv_report_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* @report says why the whole file is unusable: hvt_err or hvt_warn. */
static int tsv_read(const char *path, const char *header, unsigned int ncols,
		    tsv_row_fn fn, void *ctx, tsv_report_fn report, unsigned long *warnings)
{
	uint64_t v[TSV_MAX_COLS];
	unsigned long lineno = 0, bad = 0;
	size_t cap = 0;
	char *line = NULL;
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f) {
		report("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		chomp(line);
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
		ret = fn(ctx, v, path, lineno);
		if (ret)
			break;
	}
	if (!ret && lineno == 0) {
		report("%s: empty file", path);
		ret = -1;
	}
	*warnings += bad;
	free(line);
	fclose(f);
	return ret < 0 ? -1 : 0;
}

/*
 * Makes room for element @n of @array (capacity *@cap); returns the array,
 * possibly moved, or NULL (the old array is kept) when out of memory or rows.
 */
static void *grow(void *array, size_t n, size_t *cap, size_t size, const char *path)
{
	void *p;

	if (n >= TSV_MAX_ROWS) {
		hvt_err("%s: more than %u rows", path, TSV_MAX_ROWS);
		return NULL;
	}
	p = hvt_grow(array, n, cap, size);
	if (!p)
		hvt_err("out of memory reading %s", path);
	return p;
}

struct clock_ctx {
	struct hvt_clock_pair *pairs;
	size_t n, cap;
	unsigned long *warnings;
};

static int clock_row(void *vctx, const uint64_t *v, const char *path, unsigned long line)
{
	struct clock_ctx *c = vctx;
	struct hvt_clock_pair p = {
		.tsc = v[0], .mono_ns = (int64_t)v[1], .real_ns = (int64_t)v[2],
		.uncertainty = v[3],
	};
	const struct hvt_clock_pair *prev = c->n ? &c->pairs[c->n - 1] : NULL;
	struct hvt_clock_pair *p_new;

	/* Below 2^62 ns (year 2116): conversions then cannot overflow (host_clock.c). */
	if (v[1] >= 1ull << 62 || v[2] >= 1ull << 62 ||
	    (prev && (p.tsc <= prev->tsc || p.mono_ns <= prev->mono_ns))) {
		hvt_warn("%s: line %lu: clock values out of range or not increasing; skipping it",
			 path, line);
		(*c->warnings)++;
		return 0;
	}
	p_new = grow(c->pairs, c->n, &c->cap, sizeof(*c->pairs), path);
	if (!p_new)
		return -1;
	c->pairs = p_new;
	c->pairs[c->n++] = p;
	return 0;
}

int hvt_tsv_read_clock(const char *path, struct hvt_clock_pair **pairs, size_t *n,
		       unsigned long *warnings)
{
	struct clock_ctx c = { NULL, 0, 0, warnings };

	if (tsv_read(path, HVT_CLOCK_TSV_HEADER, HVT_CLOCK_TSV_COLS, clock_row, &c,
		     hvt_err, warnings)) {
		free(c.pairs);
		return -1;
	}
	*pairs = c.pairs;
	*n = c.n;
	return 0;
}

struct sync_ctx {
	struct hvt_sync_rec *recs;
	size_t n, cap;
	unsigned long *warnings;
};

static int sync_row(void *vctx, const uint64_t *v, const char *path, unsigned long line)
{
	struct sync_ctx *c = vctx;
	struct hvt_sync_rec *r_new;

	if (v[5] > UINT32_MAX || v[6] > UINT32_MAX) {
		hvt_warn("%s: line %lu: CPU number out of range; skipping it", path, line);
		(*c->warnings)++;
		return 0;
	}
	/* Each side reads its clock before sending and after receiving. */
	if (v[4] < v[1] || v[3] < v[2]) {
		hvt_warn("%s: line %lu: a reply before its request; skipping it", path, line);
		(*c->warnings)++;
		return 0;
	}
	r_new = grow(c->recs, c->n, &c->cap, sizeof(*c->recs), path);
	if (!r_new)
		return -1;
	c->recs = r_new;
	c->recs[c->n].seq = v[0];
	c->recs[c->n].ex.host_send = v[1];
	c->recs[c->n].ex.guest_recv = v[2];
	c->recs[c->n].ex.guest_send = v[3];
	c->recs[c->n].ex.host_recv = v[4];
	c->recs[c->n].cpu_recv = (uint32_t)v[5];
	c->recs[c->n].cpu_send = (uint32_t)v[6];
	c->n++;
	return 0;
}

int hvt_tsv_read_sync(const char *path, struct hvt_sync_rec **recs, size_t *n,
		      unsigned long *warnings)
{
	struct sync_ctx c = { NULL, 0, 0, warnings };

	if (tsv_read(path, HVT_SYNC_TSV_HEADER, HVT_SYNC_TSV_COLS, sync_row, &c, hvt_warn,
		     warnings)) {
		free(c.recs);
		return -1;
	}
	*recs = c.recs;
	*n = c.n;
	return 0;
}

struct kvm_ctx {
	struct hvt_kvm_reading *v;
	size_t n, cap;
	unsigned long *warnings;
};

/* KVM's vCPU ids are below KVM_MAX_VCPU_IDS, at most 4096 on x86 (a config option). */
#define KVM_VCPU_ID_LIMIT	(1u << 16)

static int kvm_row(void *vctx, const uint64_t *v, const char *path, unsigned long line)
{
	struct kvm_ctx *c = vctx;
	struct hvt_kvm_reading *r_new;

	if (v[1] < v[0] || v[2] != HVT_TSC_SRC_DEBUGFS ||
	    v[3] > INT32_MAX || v[4] >= KVM_VCPU_ID_LIMIT || v[7] > 63 ||
	    (v[6] == 0 && v[7] != 0)) {
		hvt_warn("%s: line %lu: values out of range; skipping it", path, line);
		(*c->warnings)++;
		return 0;
	}
	r_new = grow(c->v, c->n, &c->cap, sizeof(*c->v), path);
	if (!r_new)
		return -1;
	c->v = r_new;
	c->v[c->n++] = (struct hvt_kvm_reading){
		.before = v[0], .after = v[1], .source = (uint32_t)v[2], .vm_fd = (uint32_t)v[3],
		.vcpu = (uint32_t)v[4], .offset = v[5], .ratio = v[6], .frac = (uint32_t)v[7],
	};
	return 0;
}

int hvt_tsv_read_kvm_tsc(const char *path, struct hvt_kvm_reading **readings, size_t *n,
			 unsigned long *warnings)
{
	struct kvm_ctx c = { NULL, 0, 0, warnings };

	*readings = NULL;
	*n = 0;
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	if (tsv_read(path, HVT_KVM_TSC_TSV_HEADER, HVT_KVM_TSC_TSV_COLS, kvm_row, &c, hvt_warn,
		     warnings)) {
		free(c.v);
		return -1;
	}
	*readings = c.v;
	*n = c.n;
	return 0;
}
