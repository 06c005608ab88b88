// SPDX-License-Identifier: GPL-2.0-only
/*
 * output.c - merge's output formats (output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "tools/out/output.h"

/*
 * Our own stream, also for standard output (on a duplicate of fd 1), and
 * unbuffered: lines are assembled in the printer's buffer, which goes out
 * in one write when full. A file that was not there (@state) is created
 * only if it still is not: one made meanwhile is kept, as without --force.
 */
static FILE *open_file(const char *path, enum hvt_output_state state)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (state == HVT_OUTPUT_NEW ? O_EXCL : O_TRUNC);
	int fd = path ? open(path, flags, 0644) : fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!out) {
		if (errno == EEXIST)
			hvt_err("--output %s appeared while merge started, and is kept: name a new "
				"file, or replace it with --force", path);
		else
			hvt_err("cannot write %s: %s", path ? path : "standard output",
				strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	setvbuf(out, NULL, _IONBF, 0);
	return out;
}

static int text_open(struct hvt_output *o, struct hvt_session *ses)
{
	if (hvt_printer_init(&o->text, ses, o->opts->time, o->file))
		return -1;
	o->text.print_fmt = o->opts->print_fmt;
	o->text.names = o->opts->names;
	o->text.bounds = o->opts->bounds;
	o->text.delta = o->opts->delta;
	return 0;
}

static void text_event(struct hvt_output *o, struct hvt_source *s)
{
	hvt_printer_print(&o->text, s);
}

static void text_flush(struct hvt_output *o)
{
	hvt_text_flush(&o->text.text);
}

static int text_close(struct hvt_output *o)
{
	hvt_text_flush(&o->text.text);
	hvt_printer_free(&o->text);
	return 0;
}

static int json_open(struct hvt_output *o, struct hvt_session *ses)
{
	return hvt_json_init(&o->json, ses, o->file);
}

static void json_event(struct hvt_output *o, struct hvt_source *s)
{
	hvt_json_event(&o->json, s);
}

static int json_close(struct hvt_output *o)
{
	hvt_json_finish(&o->json);
	hvt_json_free(&o->json);
	return 0;
}

static int jsonl_open(struct hvt_output *o, struct hvt_session *ses)
{
	return hvt_jsonl_init(&o->jsonl, ses, o->opts->names, o->file);
}

static void jsonl_event(struct hvt_output *o, struct hvt_source *s)
{
	hvt_jsonl_event(&o->jsonl, s);
}

static void jsonl_flush(struct hvt_output *o)
{
	hvt_text_flush(&o->jsonl.text);
}

static int jsonl_close(struct hvt_output *o)
{
	hvt_jsonl_finish(&o->jsonl);
	return 0;
}

static int ctf_open(struct hvt_output *o, struct hvt_session *ses)
{
	return hvt_ctf_out_open(&o->ctf, ses, o->opts->path, o->opts->force);
}

static void ctf_event(struct hvt_output *o, struct hvt_source *s)
{
	hvt_ctf_out_event(&o->ctf, s);
}

static int ctf_close(struct hvt_output *o)
{
	return hvt_ctf_out_close(&o->ctf);
}

static int sqlite_open(struct hvt_output *o, struct hvt_session *ses)
{
	o->sql = hvt_sql_out_open(ses, o->opts->path, o->opts->force);
	return o->sql ? 0 : -1;
}

static void sqlite_event(struct hvt_output *o, struct hvt_source *s)
{
	hvt_sql_out_event(o->sql, s);
}

static int sqlite_close(struct hvt_output *o)
{
	return hvt_sql_out_close(o->sql);
}

static int null_open(struct hvt_output *o, struct hvt_session *ses)
{
	(void)o;
	(void)ses;
	return 0;
}

static void null_event(struct hvt_output *o, struct hvt_source *s)
{
	(void)o;
	(void)s;
}

static int null_close(struct hvt_output *o)
{
	(void)o;
	return 0;
}

static const struct hvt_output_format formats[] = {
	{ .name = "text", .help = "one line per event (default): time, layer, VM, CPU,\n"
		"thread (COMM-TID, as trace-cmd prints it), event,\n"
		"fields", .print_fmt = true, .writes = true,
	  .thread_names = true, .streams = true,
	  .open = text_open, .event = text_event, .close = text_close, .flush = text_flush },
	{ .name = "json", .help = "Chrome trace-event JSON, for Perfetto UI: a process per\n"
		"host and VM, a thread per CPU and per traced task",
	  .own_time = "has its own time: microseconds since the trace start", .writes = true,
	  .open = json_open, .event = json_event, .close = json_close },
	{ .name = "jsonl", .help = "JSON lines: an object per event (time_ns, realtime_ns,\n"
		"host_tsc, bound_ns, layer, vm, comm, event, args), for\n"
		"jq and programs; streams with --follow",
	  .own_time = "gives every time: time_ns, realtime_ns and host_tsc", .writes = true,
	  .thread_names = true, .streams = true,
	  .open = jsonl_open, .event = jsonl_event, .close = jsonl_close, .flush = jsonl_flush },
	{ .name = "ctf", .help = "a CTF 1.8 trace on one clock, the host TSC, for\n"
		"babeltrace2 and Trace Compass: --output names its\n"
		"directory, new or empty (--force: or one that holds\n"
		"a CTF trace only, replaced)",
	  .own_time = "has its own clock: the host TSC", .to_directory = true, .writes = true,
	  .open = ctf_open, .event = ctf_event, .close = ctf_close },
	{ .name = "sqlite", .help = "an SQLite database (docs/sql.md): every event, each\n"
		"machine's CPU slices and thread states, the vCPU\n"
		"states analyze counts, the clock exchanges;\n"
		"--output names its file",
	  .own_time = "has its own time: integer ns since the trace start",
	  .to_path = true, .writes = true,
	  .open = sqlite_open, .event = sqlite_event, .close = sqlite_close },
	{ .name = "null", .help = "decode and merge, print nothing (benchmarks, --stats)",
	  .streams = true, .open = null_open, .event = null_event, .close = null_close },
};

#define NR_FORMATS	(sizeof(formats) / sizeof(formats[0]))

const struct hvt_output_format *hvt_output_format_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_FORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

const struct hvt_output_format *hvt_output_format_default(void)
{
	return &formats[0];
}

void hvt_output_formats_list(FILE *out)
{
	size_t i;

	for (i = 0; i < NR_FORMATS; i++)
		fprintf(out, "%s%s", i ? "|" : "", formats[i].name);
}

void hvt_output_formats_help(FILE *out)
{
	size_t i;

	for (i = 0; i < NR_FORMATS; i++) {
		const char *p = formats[i].help, *nl;
		int col = fprintf(out, "  --format=%s", formats[i].name);

		for (; (nl = strchr(p, '\n')); p = nl + 1, col = 0)
			fprintf(out, "%*s%.*s\n", 20 - col, "", (int)(nl - p), p);
		fprintf(out, "%*s%s\n", 20 - col, "", p);
	}
}

const char *hvt_output_refuses(const struct hvt_output_format *f,
			       const struct hvt_output_opts *opts, char *buf, size_t len)
{
	if (f->own_time && opts->time != HVT_TIME_NS) {
		snprintf(buf, len, "--format=%s %s; leave out --time", f->name, f->own_time);
		return buf;
	}
	if (opts->print_fmt && !f->print_fmt)
		return "--print-fmt is for --format=text: the other formats keep every field "
		       "on its own";
	if (opts->delta && !f->print_fmt)
		return "--delta is for --format=text";
	if (opts->bounds && !f->print_fmt)
		return "--bounds is for --format=text: json has each guest event's bound in "
		       "args.bound_ns, ctf in the event context's bound_ns, sqlite in event.bound";
	if (f->to_directory && !opts->path) {
		snprintf(buf, len, "--format=%s writes a directory: name it with --output DIR",
			 f->name);
		return buf;
	}
	if (f->to_path && !opts->path) {
		snprintf(buf, len, "--format=%s writes a file of its own: name it with --output "
			 "FILE", f->name);
		return buf;
	}
	if (opts->force && (!opts->path || !f->writes))
		return "--force replaces an existing --output; without --output (or with "
		       "--format=null) nothing is written to replace";
	return NULL;
}

enum hvt_output_state hvt_output_check(const struct hvt_output_format *f,
				       const struct hvt_output_opts *opts)
{
	if (!f->writes || !opts->path)
		return HVT_OUTPUT_NEW;	/* standard output, or nothing */
	return hvt_output_path_check(opts->path, f->to_directory ? HVT_OUTPUT_DIR :
				     f->to_path ? HVT_OUTPUT_FILE : HVT_OUTPUT_STREAM, opts->force);
}

int hvt_output_open(struct hvt_output *o, const struct hvt_output_format *f,
		    struct hvt_session *ses, const struct hvt_output_opts *opts)
{
	enum hvt_output_state state = hvt_output_check(f, opts);

	memset(o, 0, sizeof(*o));
	o->fmt = f;
	o->opts = opts;
	if (state == HVT_OUTPUT_REFUSED)
		return -1;
	if (f->writes && !f->to_directory && !f->to_path && !(o->file = open_file(opts->path,
										   state)))
		return -1;
	if (f->open(o, ses)) {
		if (o->file) {
			hvt_err("out of memory");
			fclose(o->file);
			o->file = NULL;
		}
		return -1;
	}
	return 0;
}

int hvt_output_close(struct hvt_output *o)
{
	int failed = o->fmt->close(o) != 0;

	if (!o->file)
		return failed ? -1 : 0;
	failed = ferror(o->file);
	failed |= fclose(o->file) != 0;
	if (failed)
		hvt_err("writing %s failed: %s", o->opts->path ? o->opts->path : "standard output",
			strerror(errno));
	return failed ? -1 : 0;
}
