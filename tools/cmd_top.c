// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_top.c - `hvtrace top`: a live view of a recording in progress, every
 * -d seconds: per VM and vCPU the shares of the interval in the guest,
 * idle, in KVM, preempted and blocked on the host; the host tasks that
 * took the most; the guest threads that lost the most; the streams' rates
 * and losses; each VM's clock bound. It attaches to ARCHIVE as `hvtrace
 * record` writes it, or starts the recording itself (-- RECORD OPTIONS);
 * a recording already complete is shown whole, once.
 * Options, the terminal and the keys; the pass is top/top_live.h, the
 * screen top/top_screen.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/clock_now.h"
#include "lib/log.h"
#include "tools/commands.h"
#include "tools/merge/timeline.h"
#include "tools/session/session.h"
#include "tools/top/top_live.h"
#include "tools/top/top_screen.h"

#define TOP_ROWS	5	/* host tasks and guest threads per VM */

struct top_opts {
	const char *archive;
	double delay_s;			/* -d */
	int64_t lag_ns;			/* --lag */
	long iterations;		/* -n: screens, 0: until the end */
	bool batch;			/* -b, or not a terminal */
	const char *vm;			/* --vm */
	char **record_argv;		/* after --: hvtrace record's options */
	int record_argc;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace top [OPTIONS] ARCHIVE\n"
		"       hvtrace top [OPTIONS] -- RECORD-OPTIONS   (starts hvtrace record)\n\n"
		"A live view of a recording in progress, every -d seconds: per VM and vCPU\n"
		"the shares of the interval its thread spent running guest code, the\n"
		"guest idle, in KVM (exits per second, by reason), preempted on the host\n"
		"and blocked on the host; the host tasks that took the most from the\n"
		"vCPUs (preempted by them, or blocked with them next on the CPU); the\n"
		"guest threads that lost the most time, to host tasks, to KVM, or\n"
		"waiting runnable in the guest, and to which host task most; each VM's\n"
		"current clock bound; per layer the events per second and those lost.\n"
		"Events are counted as they become final (merge --follow's rule: --lag),\n"
		"with analyze's rules (hvtrace analyze --help), from when every VM is\n"
		"placed on the host's clock. ARCHIVE is what 'hvtrace record -o' writes;\n"
		"with -- the rest of the line are hvtrace record's options, and top runs\n"
		"it (its messages in ARCHIVE.record.log; -o ARCHIVE among them, or a new\n"
		"directory is made) and stops it (SIGINT) when you quit: the archive\n"
		"completes.\n\n"
		"  -d SECONDS         the interval (default 1, from 0.1 to 3600)\n"
		"  -b, --batch        no terminal control: one block per interval, as\n"
		"                     'top -b' (also when standard output is no terminal)\n"
		"  -n N               stop after N screens (default: when the recording\n"
		"                     ends; the last interval is shown then). A recording\n"
		"                     already complete is shown whole, in one screen: its\n"
		"                     totals from its start to its end\n"
		"  --vm NAME          show this VM only ('v' cycles)\n"
		"  --lag SECONDS      the longest an event waits for slower streams (default 2)\n"
		HVT_CLI_VERBOSITY_HELP
		"  -h, --help         this help\n\n"
		"Keys: q quit, p pause (the counting goes on), v next VM (or all), s the\n"
		"guest threads' order: lost in all, to the host, waiting in the guest.\n"
		"An 80 x 24 terminal shows one VM of up to 8 vCPUs whole; what does not\n"
		"fit is said.\n"
		"Exit status: 0 done (quit, -n, or the recording ended), 1 the archive\n"
		"cannot be read, or the recording it started failed, 2 usage error.\n");
}

static int parse_args(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "vm", required_argument, NULL, 'V' },
		{ "lag", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		HVT_CLI_VERBOSITY_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t n;
	double lag;
	int c, i;

	memset(o, 0, sizeof(*o));
	o->delay_s = 1;
	o->lag_ns = 2000000000;
	optind = 0;
	opterr = 0;
	hvt_cli_verbosity_reset();
	while ((c = getopt_long(argc, argv, "+hvqbd:n:", longopts, &i)) != -1) {
		if (hvt_cli_verbosity(c))
			continue;
		switch (c) {
		case 'h':
			usage(stdout);
			return 1;
		case 'b':
			o->batch = true;
			break;
		case 'd':
			if (hvt_parse_seconds("top", "-d", optarg, 0.1, 3600, &o->delay_s))
				return -1;
			break;
		case 'g':
			if (hvt_parse_seconds("top", "--lag", optarg, 0.001, 3600, &lag))
				return -1;
			o->lag_ns = (int64_t)(lag * 1e9);
			break;
		case 'n':
			if (hvt_parse_u64(optarg, 1, 1000000, &n)) {
				hvt_usage_error("top", "-n wants 1 to 1000000 screens, not '%s'",
						optarg);
				return -1;
			}
			o->iterations = (long)n;
			break;
		case 'V':
			o->vm = optarg;
			break;
		default:
			hvt_usage_bad_option("top", argv, "hvqbd:n:", longopts);
			return -1;
		}
	}
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		o->record_argv = argv + optind;
		o->record_argc = argc - optind;
		if (!o->record_argc) {
			hvt_usage_error("top", "-- wants hvtrace record's options after it");
			return -1;
		}
		return 0;
	}
	if (optind != argc - 1) {
		hvt_usage_error("top", "expected one ARCHIVE, or -- and hvtrace record's options");
		return -1;
	}
	o->archive = argv[optind];
	return 0;
}

/* The terminal, raw while top runs, as it was after. */
static struct termios term_was;
static bool term_raw;
static volatile sig_atomic_t top_stop, resized;

static void on_stop(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static void term_restore(void)
{
	if (!term_raw)
		return;
	fputs("\033[?25h\033[?1049l", stdout);	/* the cursor, the screen as it was */
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &term_was);
	term_raw = false;
}

static int term_setup(void)
{
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &term_was))
		return -1;
	raw = term_was;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw))
		return -1;
	term_raw = true;
	atexit(term_restore);
	fputs("\033[?1049h\033[?25l", stdout);	/* a screen of its own, no cursor */
	return 0;
}

static void term_size(struct hvt_top_view *v)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		v->width = ws.ws_col;
		v->height = ws.ws_row;
	} else {
		v->width = 80;
		v->height = 24;
	}
}

/* The pass, the view and the pace. */
struct top_run {
	struct hvt_top_live live;
	struct hvt_top_view view;
	const struct top_opts *o;
	int64_t next_ns;		/* the next screen's CLOCK_REALTIME */
	long screens;
	unsigned int started;		/* the analyses' starts seen */
};

static void show(struct top_run *r)
{
	r->view.now_ns = hvt_realtime_ns();
	if (!r->o->batch) {
		if (resized) {
			resized = 0;
			term_size(&r->view);
		}
		fputs("\033[H\033[2J", stdout);
	}
	hvt_top_screen(stdout, &r->live, &r->view);
	if (r->o->batch)
		fputs("\n", stdout);
	fflush(stdout);
}

/* A screen if its time came (or @force), and a new interval. */
static void maybe_show(struct top_run *r, bool force)
{
	int64_t now = hvt_realtime_ns();

	if (!force && now < r->next_ns)
		return;
	if (!r->view.paused || force) {
		show(r);
		hvt_top_live_reset(&r->live, now);
		r->screens++;
	}
	r->next_ns = now + (int64_t)(r->o->delay_s * 1e9);
	if (r->o->iterations && r->screens >= r->o->iterations)
		top_stop = 1;
}

static void caught_up(void *ctx)
{
	struct top_run *r = ctx;

	if (r->live.whole)
		return;		/* one screen, once all of it is read */
	if (hvt_top_live_ready(&r->live) && r->started != r->live.started) {
		r->started = r->live.started;
		hvt_top_live_reset(&r->live, hvt_realtime_ns());	/* shares from here */
	}
	maybe_show(r, false);
}

/* One key; false to quit. */
static bool key(struct top_run *r, char k)
{
	size_t n = r->live.ses->archive.nr_vms;

	switch (k) {
	case 'q':
		return false;
	case 'p':
		r->view.paused = !r->view.paused;
		show(r);
		break;
	case 'v':
		r->view.vm = r->view.vm == HVT_TOP_ALL_VMS ? (n ? 0 : HVT_TOP_ALL_VMS) :
			     r->view.vm + 1 < n ? r->view.vm + 1 : HVT_TOP_ALL_VMS;
		show(r);
		break;
	case 's':
		r->view.sort = (enum hvt_top_sort)((r->view.sort + 1) % HVT_TOP_NR_SORTS);
		show(r);
		break;
	default:
		break;
	}
	return true;
}

/* Between refreshes: the keys, for @ns. */
static bool wait_keys(void *ctx, int64_t ns)
{
	struct top_run *r = ctx;
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	int64_t end = hvt_realtime_ns() + ns;

	if (r->o->batch) {
		struct timespec ts = { ns / 1000000000, ns % 1000000000 };

		nanosleep(&ts, NULL);
		return !top_stop;
	}
	while (!top_stop) {
		int64_t left = end - hvt_realtime_ns();
		char k;

		if (left <= 0)
			break;
		if (poll(&p, 1, (int)(left / 1000000) + 1) > 0 && read(STDIN_FILENO, &k, 1) == 1 &&
		    !key(r, k))
			return false;
	}
	return !top_stop;
}

static int event(struct hvt_source *s, void *ctx)
{
	return hvt_top_live_event(s, &((struct top_run *)ctx)->live);
}

/* Index of VM @name in @ses, or HVT_TOP_ALL_VMS after a usage error. */
static size_t vm_index(const struct hvt_session *ses, const char *name)
{
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++)
		if (!strcmp(ses->archive.vms[i].name, name))
			return i;
	hvt_usage_error("top", "--vm %s: no VM of that name in %s", name, ses->archive.root);
	return HVT_TOP_ALL_VMS;
}

/* Follows @ses until the recording ends, -n, or quit; the exit status. */
static int run(struct hvt_session *ses, struct hvt_timeline *tl, const struct top_opts *o)
{
	const struct hvt_follow_sink sink = { .event = event, .caught_up = caught_up,
					      .wait = wait_keys };
	struct hvt_follow_opts fo = { .lag_ns = o->lag_ns, .stop = &top_stop };
	struct top_run r = { .o = o };
	int ret;

	fo.period_ns = o->lag_ns / 4 < 200000000 ? o->lag_ns / 4 : 200000000;
	r.view = (struct hvt_top_view){ .vm = HVT_TOP_ALL_VMS, .rows = TOP_ROWS,
					 .keys = !o->batch };
	if (o->vm && (r.view.vm = vm_index(ses, o->vm)) == HVT_TOP_ALL_VMS)
		return 2;
	if (!o->batch)
		term_size(&r.view);
	if (hvt_top_live_init(&r.live, tl, &fo)) {
		hvt_err("out of memory");
		return 1;
	}
	if (hvt_top_live_whole(&r.live))	/* complete already: all of it, once */
		r.started = r.live.started;
	r.next_ns = hvt_realtime_ns() + (int64_t)(o->delay_s * 1e9);
	ret = hvt_follow_run(&r.live.f, &sink, &r);
	if (!ret && !top_stop && !r.live.f.stopped) {
		/* the recording ended: its last interval (or all of it), runs closed */
		hvt_top_live_finish(&r.live);
		show(&r);	/* not reset: the keys show it again */
		while (!o->batch && wait_keys(&r, 1000000000))
			;		/* on screen until q */
	}
	term_restore();
	if (r.live.oom)
		hvt_err("out of memory: the counts are incomplete");
	if (r.live.f.ended)
		hvt_err("the recording ended without completing (its collector is gone, or it "
			"failed)");
	hvt_top_live_free(&r.live);
	return ret || r.live.oom ? 1 : 0;
}

/* The hvtrace record top started, and how it ended once reaped. */
struct record_child {
	pid_t pid;			/* 0: none */
	bool reaped;
	int status;
};

/* Whether the recording top started exited (it failed: the open says why). */
static bool record_exited(void *ctx)
{
	struct record_child *c = ctx;

	if (c->pid > 0 && !c->reaped && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
	return c->reaped;
}

/*
 * -- RECORD-OPTIONS: hvtrace record, with them, as a child whose messages
 * go to ARCHIVE.record.log; its pid, or -1 after an error. The archive is
 * -o's (or --output's), else a new directory under TMPDIR.
 */
static pid_t start_record(const struct top_opts *o, char *archive, size_t len)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char **argv = calloc((size_t)o->record_argc + 5, sizeof(*argv));
	char log[4200];
	int i, n = 0, fd;
	pid_t pid;

	if (!argv)
		return -1;
	argv[n++] = "hvtrace";
	argv[n++] = "record";
	archive[0] = 0;
	for (i = 0; i < o->record_argc; i++) {
		argv[n++] = o->record_argv[i];
		if ((!strcmp(o->record_argv[i], "-o") || !strcmp(o->record_argv[i], "--output")) &&
		    i + 1 < o->record_argc)
			snprintf(archive, len, "%s", o->record_argv[i + 1]);
		else if (!strncmp(o->record_argv[i], "--output=", 9))
			snprintf(archive, len, "%s", o->record_argv[i] + 9);
	}
	if (!archive[0]) {
		snprintf(archive, len, "%s/hvtrace-top-XXXXXX", tmp);
		if (!mkdtemp(archive)) {
			hvt_err("cannot make a directory in %s: %s", tmp, strerror(errno));
			free(argv);
			return -1;
		}
		argv[n++] = "--output";
		argv[n++] = archive;
	}
	snprintf(log, sizeof(log), "%s.record.log", archive);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		hvt_err("cannot write %s: %s", log, strerror(errno));
		free(argv);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		setpgid(0, 0);	/* Ctrl-C is top's: it stops the recording itself */
		execv("/proc/self/exe", argv);
		dprintf(fd, "hvtrace top: cannot run hvtrace record: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd);
	free(argv);
	if (pid < 0)
		hvt_err("cannot start hvtrace record: %s", strerror(errno));
	else
		hvt_info("recording into %s (hvtrace record's messages: %s)", archive, log);
	return pid;
}

/* The recording top started: stopped as Ctrl-C would, and waited for; 0 if it completed. */
static int stop_record(struct record_child *c, const char *archive)
{
	int i;

	if (c->pid <= 0)
		return 0;
	if (!c->reaped)
		kill(c->pid, SIGINT);
	for (i = 0; i < 600 && !record_exited(c); i++)
		usleep(100000);
	if (!c->reaped) {
		hvt_err("hvtrace record (pid %d) did not stop within 60 s of SIGINT; killed",
			(int)c->pid);
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		return 1;
	}
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0)
		return 0;
	hvt_err("hvtrace record did not complete (its messages: %s.record.log)", archive);
	return 1;
}

/* What the recording top started said, on standard error. */
static void say_record_log(const char *archive)
{
	char path[4200], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s.record.log", archive);
	f = fopen(path, "re");
	hvt_err("hvtrace record failed%s", f ? ":" : "");
	while (f && fgets(line, sizeof(line), f))
		fputs(line, stderr);
	if (f)
		fclose(f);
}

int hvt_cmd_top(int argc, char **argv)
{
	const struct hvt_session_opts so = { .follow = true };
	struct sigaction sa = { .sa_handler = on_stop };
	struct hvt_session ses;
	struct hvt_timeline tl;
	struct top_opts o;
	char archive[4096];
	struct record_child child = { 0, false, 0 };
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		o.batch = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	if (o.record_argv) {
		if ((child.pid = start_record(&o, archive, sizeof(archive))) < 0)
			return 1;
		o.archive = archive;
	}
	hvt_archive_wait_set_up(o.archive, 10, record_exited, &child);
	ret = 1;
	if (child.reaped) {	/* it failed as it started: its words */
		say_record_log(o.archive);
		return 1;
	}
	if (hvt_session_open(&ses, o.archive, &so))
		goto out;
	if (!hvt_timeline_init(&tl, &ses, NULL, NULL)) {
		if (!o.batch && term_setup())
			o.batch = true;
		ret = run(&ses, &tl, &o);
	}
	hvt_timeline_close(&tl);
	hvt_session_close(&ses);
out:
	if (stop_record(&child, o.archive))
		ret = 1;
	return ret;
}
