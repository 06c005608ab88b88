// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ftrace_reader.c - the host layer: raw ring-buffer pages decoded with
 * libtraceevent.
 *
 * Synthetic pages (this kernel's header_page and sched_switch format) cover
 * time extends, several pages and damaged input. The live test records real
 * sched_switch events in a tracefs instance of its own (never the top-level
 * buffer), on the x86-tsc clock, and decodes them; it needs root and tracefs
 * and skips, saying why, without them.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <x86intrin.h>
#include <cmocka.h>
#include <tracefs.h>

#include "lib/fileio.h"
#include "tests/unit/archive_fixture.h"
#include "tools/read/ftrace_reader.h"

#define MAX_OUT 512

struct decoded {
	uint64_t ts;
	int32_t tid;
	uint32_t cpu;
	char name[32];
	char text[256];			/* as ftrace prints it */
	char fields[256];		/* name=value */
};

struct result {
	size_t n;
	struct decoded ev[MAX_OUT];
	struct hvt_ftrace_stats stats;
	unsigned long warnings;		/* opening */
};

static struct result result;

static int setup(void **state)
{
	char *root = calloc(1, 64);

	assert_int_equal(fx_mkdtemp(root, 64), 0);
	assert_int_equal(fx_write_ftrace_meta(root), 0);
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	fx_rm_rf(*state);
	free(*state);
	return 0;
}

/* Decodes ROOT/host/ftrace/@file as CPU @cpu into `result`. */
/* decode() with pages stamped outside [@lo, @hi] damaged (hvt_ftrace_set_span()). */
static struct result *decode_in(const char *root, const char *file, int cpu, uint32_t page_size,
				uint64_t lo, uint64_t hi)
{
	struct result *r = &result;
	struct hvt_ftrace_event ev;
	struct hvt_ftrace_cpu *c;
	struct hvt_ftrace *ft;
	char dir[128], path[192];

	memset(r, 0, sizeof(*r));
	snprintf(dir, sizeof(dir), "%s/host/ftrace", root);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ft = hvt_ftrace_open(dir, page_size, &r->warnings);
	assert_non_null(ft);
	hvt_ftrace_set_span(ft, lo, hi);
	c = hvt_ftrace_cpu_open(ft, path, file, cpu, &r->warnings);
	assert_non_null(c);
	while (hvt_ftrace_cpu_next(c, &ev)) {
		static struct decoded spare;	/* events past MAX_OUT: decoded, not kept */
		struct decoded *d = r->n < MAX_OUT ? &r->ev[r->n++] : &spare;
		FILE *f = fmemopen(d->text, sizeof(d->text) - 1, "w");
		FILE *g = fmemopen(d->fields, sizeof(d->fields) - 1, "w");
		struct hvt_text t;
		char buf[HVT_TEXT_MIN];

		d->ts = ev.ts;
		d->tid = ev.tid;
		d->cpu = ev.cpu;
		snprintf(d->name, sizeof(d->name), "%s", ev.name);
		hvt_text_init(&t, f, buf, sizeof(buf));
		hvt_ftrace_print_info(c, &t);
		hvt_text_flush(&t);
		fclose(f);
		hvt_text_init(&t, g, buf, sizeof(buf));
		hvt_ftrace_print_fields(c, &t, NULL);
		hvt_text_flush(&t);
		fclose(g);
	}
	r->stats = *hvt_ftrace_cpu_stats(c);
	hvt_ftrace_cpu_close(c);
	hvt_ftrace_close(ft);
	return r;
}

static struct result *decode(const char *root, const char *file, int cpu, uint32_t page_size)
{
	return decode_in(root, file, cpu, page_size, 0, UINT64_MAX);
}

static const struct fx_host_switch three[] = {
	{ 1000, 4321, "qemu-system-x86", 4321, 120, 1, "swapper/1", 0, 120 },
	{ 1500, 0, "swapper/1", 0, 120, 0, "qemu-system-x86", 4321, 120 },
	{ 1500 + (1ull << 29), 4321, "qemu-system-x86", 4321, 120, 2, "swapper/1", 0, 120 },
};

static void test_decode_pages(void **state)
{
	const char *root = *state;
	struct result *r;

	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu1.raw", 4096, three, 3), 0);
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->stats.warnings + r->warnings, 0);
	assert_int_equal(r->stats.pages, 1);
	assert_int_equal(r->ev[0].ts, 1000);
	assert_int_equal(r->ev[1].ts, 1500);
	assert_int_equal(r->ev[2].ts, 1500 + (1ull << 29));	/* after a time extend */
	assert_string_equal(r->ev[0].name, "sched_switch");
	assert_int_equal(r->ev[0].tid, 4321);
	assert_int_equal(r->ev[1].tid, 0);
	assert_int_equal(r->ev[0].cpu, 1);
	assert_string_equal(r->ev[0].text,
			    " prev_comm=qemu-system-x86 prev_pid=4321 prev_prio=120 prev_state=S"
			    " ==> next_comm=swapper/1 next_pid=0 next_prio=120");
	assert_string_equal(r->ev[1].text,
			    " prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R"
			    " ==> next_comm=qemu-system-x86 next_pid=4321 next_prio=120");
	assert_string_equal(r->ev[0].fields,
			    " prev_comm=qemu-system-x86 prev_pid=4321 prev_prio=120 prev_state=1"
			    " next_comm=swapper/1 next_pid=0 next_prio=120");
	assert_string_equal(r->ev[2].fields,
			    " prev_comm=qemu-system-x86 prev_pid=4321 prev_prio=120 prev_state=2"
			    " next_comm=swapper/1 next_pid=0 next_prio=120");
}

/* Fields of every other shape, as text: __data_loc, pointers, odd widths. */
static void test_fields_text(void **state)
{
	static const struct fx_host_dyn dyn[] = {
		{ 1000, 9, "he\tllo", { 1, 2, 3 }, 0xdeadbeef, -5 },
	};
	const char *root = *state;
	struct result *r;

	assert_int_equal(fx_write_ftrace_dyn(root, "host/ftrace/cpu0.raw", 4096, dyn, 1), 0);
	r = decode(root, "cpu0.raw", 0, 4096);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->ev[0].fields, " name=he\\tllo ids=[1,2,3] ptr=0xdeadbeef "
			    "wide=0xabababababababababababababababab delta=-5");
}

static void test_many_pages(void **state)
{
	const char *root = *state;
	static struct fx_host_switch ev[300];
	struct result *r;
	size_t i;

	for (i = 0; i < 300; i++) {
		ev[i] = three[i % 2];
		ev[i].ts = 100 + i * 37;
	}
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu0.raw", 4096, ev, 300), 0);
	r = decode(root, "cpu0.raw", 0, 4096);
	assert_int_equal(r->n, 300);
	assert_int_equal(r->stats.warnings, 0);
	assert_true(r->stats.pages >= 5);
	for (i = 0; i < 300; i++)
		assert_int_equal(r->ev[i].ts, ev[i].ts);
}

/* cpu0.raw with 300 switches @ev from @ts0, 37 apart: the file's bytes, to damage. */
static char *pages_of_300(const char *root, struct fx_host_switch *ev, uint64_t ts0, size_t *len)
{
	char path[128], *data;
	size_t i;

	for (i = 0; i < 300; i++) {
		ev[i] = three[i % 2];
		ev[i].ts = ts0 + i * 37;
	}
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu0.raw", 4096, ev, 300), 0);
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu0.raw", root);
	assert_int_equal(hvt_read_file(path, 1 << 22, &data, len), 0);
	return data;
}

/*
 * One page of many stamped 2^64 - 1: that page is skipped, said; the pages
 * after it, which it would have put "before" it, are all read.
 */
static void test_page_stamped_out_of_line(void **state)
{
	const char *root = *state;
	static struct fx_host_switch ev[300];
	char *data;
	struct result *r;
	size_t i, len;

	data = pages_of_300(root, ev, 100, &len);
	assert_true(len >= 4 * 4096);
	hvt_put_u64((unsigned char *)data + 2 * 4096, UINT64_MAX);	/* the third page's stamp */
	assert_int_equal(fx_write(root, "host/ftrace/cpu0.raw", data, len), 0);
	free(data);
	r = decode(root, "cpu0.raw", 0, 4096);
	assert_int_equal(r->stats.warnings, 1);
	/* the one page's events only (a page holds at most 4080 / 68 of them), the last kept */
	assert_true(r->n < 300 && r->n >= 300 - 4080 / 68);
	assert_int_equal(r->ev[r->n - 1].ts, ev[299].ts);
	for (i = 1; i < r->n; i++)
		assert_true(r->ev[i].ts > r->ev[i - 1].ts);
}

/*
 * A time extend that jumps past the recording's span (what a damaged one
 * does): the events from it on are skipped, said, not placed far away
 * (where they would also put the next pages out of order).
 */
static void test_time_extend_outside_the_span(void **state)
{
	const char *root = *state;
	static struct fx_host_switch ev[300];
	struct result *r;
	size_t i;

	for (i = 0; i < 300; i++) {
		ev[i] = three[i % 2];
		ev[i].ts = 1000 + i * 37 + (i >= 100 ? 1ull << 50 : 0);
	}
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu0.raw", 4096, ev, 300), 0);
	r = decode_in(root, "cpu0.raw", 0, 4096, 500, 1000000);
	assert_int_equal(r->n, 100);
	for (i = 0; i < r->n; i++)
		assert_true(r->ev[i].ts <= 1000000);
	assert_true(r->stats.warnings >= 1);
	assert_true(r->stats.skipped_pages >= 1);
}

/*
 * A page whose commit word was zeroed: stamped, but no data. The kernel
 * hands out no such page: it is said and counted as skipped (before: its
 * events gone with no warning), the other pages all read.
 */
static void test_page_commit_zeroed(void **state)
{
	const char *root = *state;
	static struct fx_host_switch ev[300];
	char *data;
	struct result *r;
	size_t len;

	data = pages_of_300(root, ev, 100, &len);
	assert_true(len >= 4 * 4096);
	hvt_put_u64((unsigned char *)data + 2 * 4096 + 8, 0);	/* the third page's commit */
	assert_int_equal(fx_write(root, "host/ftrace/cpu0.raw", data, len), 0);
	free(data);
	r = decode(root, "cpu0.raw", 0, 4096);
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->stats.skipped_pages, 1);
	assert_true(r->n < 300 && r->n >= 300 - 4080 / 68);
	assert_int_equal(r->ev[r->n - 1].ts, ev[299].ts);
}

/*
 * The first page stamped 0 and the last 2^63 - 2: neither has a page on
 * both sides to be judged against, but both lie outside the recording's
 * span: each is skipped, said, and the pages between are read in order.
 */
static void test_page_stamped_outside_the_span(void **state)
{
	const char *root = *state;
	static struct fx_host_switch ev[300];
	char *data;
	struct result *r;
	size_t i, len, pages;

	data = pages_of_300(root, ev, 1000, &len);
	pages = len / 4096;
	assert_true(pages >= 4);
	hvt_put_u64((unsigned char *)data, 0);
	hvt_put_u64((unsigned char *)data + (pages - 1) * 4096, (1ull << 63) - 2);
	assert_int_equal(fx_write(root, "host/ftrace/cpu0.raw", data, len), 0);
	free(data);
	r = decode_in(root, "cpu0.raw", 0, 4096, 500, 1000000);
	assert_int_equal(r->stats.warnings, 2);
	assert_true(r->n < 300 - 2 && r->n >= 300 - 2 * (4080 / 68));
	assert_true(r->ev[0].ts > ev[0].ts && r->ev[r->n - 1].ts < ev[299].ts);
	for (i = 1; i < r->n; i++)
		assert_true(r->ev[i].ts > r->ev[i - 1].ts);
	/* without the span the first page is taken, at its damaged stamp */
	r = decode(root, "cpu0.raw", 0, 4096);
	assert_true(r->ev[0].ts < 500);
}

static unsigned char *page_file(const char *root, size_t *len)
{
	char path[128], *data;

	snprintf(path, sizeof(path), "%s/host/ftrace/cpu1.raw", root);
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", "", 0), 0);
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu1.raw", 4096, three, 3), 0);
	assert_int_equal(hvt_read_file(path, 1 << 20, &data, len), 0);
	return (unsigned char *)data;
}

static void test_damaged_pages(void **state)
{
	const char *root = *state;
	size_t len;
	unsigned char *page = page_file(root, &len), *two = malloc(2 * len);
	struct result *r;

	/* A commit larger than the page: skip that page, keep the next. */
	memcpy(two, page, len);
	memcpy(two + len, page, len);
	hvt_put_u64(two + 8, 5000);
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", two, 2 * len), 0);
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->stats.warnings, 1);
	/* A truncated last page. */
	memcpy(two, page, len);
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", two, len + 100), 0);
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->stats.warnings, 1);
	/* The last record claims 112 bytes: it would run past the page's data. */
	memcpy(two, page, len);
	two[16 + 68 + 68 + 8] = (two[16 + 68 + 68 + 8] & ~31) | 28;
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", two, len), 0);
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->stats.warnings, 1);
	/* An event type no format describes. */
	memcpy(two, page, len);
	two[16 + 68 + 4] = 0xe7;
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", two, len), 0);
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->stats.warnings, 1);
	free(two);
	/* Pages of zeros before and after the data: one warning per run, events kept. */
	two = calloc(1, 7 * len);
	memcpy(two + 3 * len, page, len);
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", two, 7 * len), 0);
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->stats.warnings, 2);
	free(two);
	free(page);
}

static void test_bad_metadata(void **state)
{
	const char *root = *state;
	unsigned long warnings = 0;
	char dir[128];
	struct result *r;

	snprintf(dir, sizeof(dir), "%s/host/ftrace", root);
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu1.raw", 4096, three, 3), 0);
	/* A format that does not parse: a warning, and its events are unknown. */
	assert_int_equal(fx_write(root, "host/ftrace/events/sched/sched_switch/format",
				  "garbage", 7), 0);
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->warnings, 1);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->stats.warnings, 3);
	/* An empty one is said to be empty (libtraceevent: "failed to allocate memory"). */
	{
		FILE *err = tmpfile();
		int saved = dup(STDERR_FILENO);
		char said[512] = "";

		assert_int_equal(fx_write(root, "host/ftrace/events/sched/sched_switch/format",
					  "", 0), 0);
		fflush(stderr);
		dup2(fileno(err), STDERR_FILENO);
		r = decode(root, "cpu1.raw", 1, 4096);
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
		close(saved);
		rewind(err);
		assert_true(fread(said, 1, sizeof(said) - 1, err) > 0);
		fclose(err);
		assert_int_equal(r->warnings, 1);
		assert_int_equal(r->n, 0);
		assert_non_null(strstr(said, "sched_switch/format: empty; that event will not be "
					     "decoded\n"));
		assert_null(strstr(said, "allocate"));
	}
	/* No header_page: the host layer cannot be read at all. */
	assert_int_equal(fx_write(root, "host/ftrace/header_page", "junk", 4), 0);
	assert_null(hvt_ftrace_open(dir, 4096, &warnings));
	snprintf(dir, sizeof(dir), "%s/nonexistent", root);
	assert_null(hvt_ftrace_open(dir, 4096, &warnings));
}

/* Replaces @from with @to in the sched_switch format file. */
static void damage_format(const char *root, const char *from, const char *to)
{
	char path[128], *text, *at, *damaged;
	size_t len;

	snprintf(path, sizeof(path), "%s/host/ftrace/events/sched/sched_switch/format", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, from);
	assert_non_null(at);
	assert_true(asprintf(&damaged, "%.*s%s%s", (int)(at - text), text, to,
			     at + strlen(from)) > 0);
	assert_int_equal(fx_write(root, "host/ftrace/events/sched/sched_switch/format", damaged,
				  strlen(damaged)), 0);
	free(damaged);
	free(text);
}

/*
 * A format that parses but puts a field outside any record (a page holds at
 * most 4096 - 16 bytes of data): libtraceevent would read there; or a field
 * line it cannot read (it keeps the fields before it), a scalar of no
 * bytes, an array its size cannot divide. The format is refused with a
 * warning, and its events are unknown.
 */
static void test_field_outside_record(void **state)
{
	static const char *const damage[][2] = {
		{ "char prev_comm[16];\toffset:8;", "char prev_comm[16];\toffset:4000000;" },
		{ "int next_prio;\toffset:60;\tsize:4;", "int next_prio;\toffset:4078;\tsize:4;" },
		{ "int common_pid;\toffset:4;", "int common_pid;\toffset:4000000;" },
		{ "short common_type;\toffset:0;\tsize:2;",
		  "short common_type;\toffset:2147483647;\tsize:2;" },
		/* read back as offset -8 */
		{ "long prev_state;\toffset:32;\tsize:8;",
		  "long prev_state;\toffset:4294967288;\tsize:8;" },
		/* written as -8: libtraceevent stops reading fields there */
		{ "int prev_prio;\toffset:28;", "int prev_prio;\toffset:-8;" },
		/* a value of no bytes; an array its size cannot divide */
		{ "pid_t next_pid;\toffset:56;\tsize:4;", "pid_t next_pid;\toffset:56;\tsize:0;" },
		{ "char prev_comm[16];\toffset:8;\tsize:16;",
		  "char prev_comm[16];\toffset:8;\tsize:15;" },
	};
	const char *root = *state;
	struct result *r;
	size_t i;

	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu1.raw", 4096, three, 3), 0);
	for (i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		assert_int_equal(fx_write_ftrace_meta(root), 0);
		damage_format(root, damage[i][0], damage[i][1]);
		r = decode(root, "cpu1.raw", 1, 4096);
		assert_int_equal(r->warnings, 1);
		assert_int_equal(r->n, 0);
		assert_int_equal(r->stats.warnings, 3);	/* each record: unknown type */
	}
	/*
	 * Inside a page's data, but past the records' 64 bytes: the format is
	 * taken, and every record, shorter than its fields, is skipped with a
	 * warning (it was read as zeros before, silently).
	 */
	assert_int_equal(fx_write_ftrace_meta(root), 0);
	damage_format(root, "int next_prio;\toffset:60;\tsize:4;",
		      "int next_prio;\toffset:4076;\tsize:4;");
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->warnings, 0);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->stats.warnings, 3);
	/* One byte short of the records: every record decodes. */
	assert_int_equal(fx_write_ftrace_meta(root), 0);
	damage_format(root, "int next_prio;\toffset:60;\tsize:4;",
		      "int next_prio;\toffset:59;\tsize:4;");
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->warnings, 0);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->stats.warnings, 0);
}

/*
 * A format file damaged so that it still parses but declares no common
 * fields (its field lines gone): refused with a warning, not taken for an
 * event with no fields.
 */
static void test_format_without_common_fields(void **state)
{
	const char *root = *state;
	struct result *r;

	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu1.raw", 4096, three, 3), 0);
	assert_int_equal(fx_write_ftrace_meta(root), 0);
	damage_format(root, "\tfield:unsigned short common_type;",
		      "\tfield:unsigned short common_tpye;");
	r = decode(root, "cpu1.raw", 1, 4096);
	assert_int_equal(r->warnings, 1);
	assert_int_equal(r->n, 0);
}

static void test_fuzz_bytes(void **state)
{
	const char *root = *state;
	size_t len, i;
	unsigned char *page = page_file(root, &len);
	static const unsigned char values[] = { 0x00, 0xff, 0x1c, 0x1d, 0x1e, 0x1f, 0x80 };
	int saved_stderr = dup(2), devnull = open("/dev/null", O_WRONLY);

	assert_true(saved_stderr >= 0 && devnull >= 0);
	dup2(devnull, 2);
	for (i = 0; i < 16 + 3 * 68 + 8; i++) {
		unsigned char saved = page[i];
		size_t v;

		for (v = 0; v < sizeof(values); v++) {
			page[i] = values[v];
			assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", page, len), 0);
			decode(root, "cpu1.raw", 1, 4096);
		}
		page[i] = saved;
	}
	dup2(saved_stderr, 2);
	close(saved_stderr);
	close(devnull);
	free(page);
}

/* --- live: a tracefs instance of our own ------------------------------- */

struct capture {
	uint64_t tsc_before, tsc_after;
	uint32_t page_size;
	int nr_cpus;
};

static int copy_instance_file(struct tracefs_instance *inst, const char *file,
			      const char *root, const char *rel)
{
	int size = 0;
	char *text = tracefs_instance_file_read(inst, file, &size);
	int ret = text && size > 0 ? fx_write(root, rel, text, (size_t)size) : -1;

	free(text);
	return ret;
}

static void make_context_switches(void)
{
	int i;

	for (i = 0; i < 20; i++)
		usleep(500);
}

static int drain_cpu(struct tracefs_instance *inst, int cpu, const char *root,
		     uint32_t page_size)
{
	char file[64], rel[64];
	unsigned char *page = malloc(page_size);
	int fd, ret = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	snprintf(rel, sizeof(rel), "host/ftrace/cpu%d.raw", cpu);
	fd = tracefs_instance_file_open(inst, file, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || !page || fx_write(root, rel, "", 0)) {
		ret = -1;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, page, page_size);

		if (n <= 0)
			break;		/* EAGAIN: drained */
		if (fx_append(root, rel, page, (size_t)n))
			ret = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(page);
	return ret;
}

/* Everything between creating and destroying the instance; no asserts in here. */
static const char *record(struct tracefs_instance *inst, const char *root, struct capture *cap)
{
	int cpu;

	/* A new instance starts with tracing on: off until the window opens. */
	if (tracefs_trace_off(inst))
		return "cannot turn tracing off";
	if (tracefs_instance_file_write(inst, "trace_clock", "x86-tsc") <= 0)
		return "cannot select the x86-tsc trace clock";
	if (tracefs_event_enable(inst, "sched", "sched_switch"))
		return "cannot enable sched:sched_switch";
	cap->tsc_before = __rdtsc();
	if (tracefs_trace_on(inst))
		return "cannot turn tracing on";
	make_context_switches();
	tracefs_trace_off(inst);
	cap->tsc_after = __rdtsc();
	if (copy_instance_file(inst, "events/header_page", root, "host/ftrace/header_page") ||
	    copy_instance_file(inst, "events/header_event", root, "host/ftrace/header_event") ||
	    copy_instance_file(inst, "events/sched/sched_switch/format", root,
			       "host/ftrace/events/sched/sched_switch/format"))
		return "cannot copy header_page, header_event or the format";
	for (cpu = 0; cpu < cap->nr_cpus; cpu++)
		if (drain_cpu(inst, cpu, root, cap->page_size))
			return "cannot read trace_pipe_raw";
	return NULL;
}

static const char *tracefs_available(void)
{
	if (geteuid() != 0)
		return "not root";
	if (tracefs_tracing_dir())
		return NULL;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) && errno != EBUSY)
		return "tracefs is not mounted and cannot be";
	return tracefs_tracing_dir() ? NULL : "tracefs not found";
}

static void check_live_events(const char *root, const struct capture *cap, size_t *total)
{
	int cpu;

	for (cpu = 0; cpu < cap->nr_cpus; cpu++) {
		char file[32];
		struct result *r;
		size_t i;

		snprintf(file, sizeof(file), "cpu%d.raw", cpu);
		r = decode(root, file, cpu, cap->page_size);
		assert_int_equal(r->warnings + r->stats.warnings, 0);
		for (i = 0; i < r->n; i++) {
			char pid[32];

			assert_string_equal(r->ev[i].name, "sched_switch");
			assert_int_equal(r->ev[i].cpu, cpu);
			assert_true(r->ev[i].tid >= 0);
			if (r->ev[i].ts < cap->tsc_before || r->ev[i].ts > cap->tsc_after)
				fail_msg("cpu %d event %zu ts %llu outside [%llu, %llu]", cpu, i, (unsigned long long)r->ev[i].ts, (unsigned long long)cap->tsc_before, (unsigned long long)cap->tsc_after);
			assert_true(i == 0 || r->ev[i].ts >= r->ev[i - 1].ts);
			assert_non_null(strstr(r->ev[i].text, " ==> next_comm="));
			/* The task switching out is the one that emitted the event. */
			snprintf(pid, sizeof(pid), " prev_pid=%d ", r->ev[i].tid);
			assert_non_null(strstr(r->ev[i].text, pid));
		}
		*total += r->n;
	}
}

static void test_live_tracefs(void **state)
{
	const char *root = *state;
	struct tracefs_instance *inst;
	struct capture cap;
	char name[64];
	const char *why = tracefs_available();
	size_t total = 0;

	if (why) {
		print_message("skipping the live ftrace test: %s\n", why);
		skip();
	}
	memset(&cap, 0, sizeof(cap));
	cap.page_size = (uint32_t)getpagesize();
	cap.nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	snprintf(name, sizeof(name), "hvtrace-test-%d", (int)getpid());
	inst = tracefs_instance_create(name);
	if (!inst) {
		print_message("skipping the live ftrace test: cannot create instance %s\n", name);
		skip();
	}
	why = record(inst, root, &cap);
	tracefs_instance_destroy(inst);		/* always, before any assert */
	tracefs_instance_free(inst);
	if (why && !strcmp(why, "cannot select the x86-tsc trace clock")) {
		print_message("skipping the live ftrace test: %s\n", why);
		skip();
	}
	assert_null(why);
	check_live_events(root, &cap, &total);
	assert_true(total > 0);
	print_message("decoded %zu live sched_switch events\n", total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fields_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decode_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_stamped_out_of_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_commit_zeroed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_extend_outside_the_span, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_stamped_outside_the_span, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_metadata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_outside_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_without_common_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fuzz_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_tracefs, setup, teardown),
	};

	return cmocka_run_group_tests_name("ftrace_reader", tests, NULL, NULL);
}
