// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_relay.c - `hvtrace relay`: a recording, while it is written (or once
 * finished), served to LTTng live viewers (babeltrace2, Trace Compass) as
 * lttng-relayd serves an LTTng session.
 *
 * One process, one thread: the follower (merge/follow.h) hands the events
 * on as they become final, the feed (relay/relay_feed.h) writes them as the
 * CTF trace `merge --format=ctf` would write, and between two refreshes of
 * the follower the server (relay/relay_server.h) answers the viewers. The
 * recording is only read: a viewer can slow or break nothing but its own
 * connection. `hvtrace record --live` starts it with its listening socket.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/clock_now.h"
#include "lib/log.h"
#include "tools/commands.h"
#include "tools/merge/follow.h"
#include "tools/relay/relay_feed.h"
#include "lib/live_addr.h"
#include "tools/relay/relay_server.h"
#include "tools/session/session.h"

struct relay_opts {
	const char *archive;
	const char *listen;		/* [ADDR:]PORT */
	int listen_fd;			/* --fd: given by hvtrace record --live; -1 */
	double lag_s, linger_s, wait_s, viewer_idle_s;
	bool from_start;		/* viewers read from the first packets */
};

static void usage(FILE *out)
{
	fputs("usage: hvtrace relay ARCHIVE [--listen [ADDR:]PORT] [--from-start]\n"
	      "                     [--lag SECONDS] [--linger SECONDS] [--wait SECONDS]\n"
	      "                     [--viewer-idle SECONDS] [-v|-q]\n\n"
	      "Serves a recording to LTTng live viewers, as lttng-relayd serves an LTTng\n"
	      "session, while hvtrace record writes it, or once finished: then from its\n"
	      "start, until Ctrl-C.\n"
	      "Start it, wait for its line \"serving NAME live: babeltrace2 URL\", then run:\n"
	      "  babeltrace2 URL --params='session-not-found-action=\"end\"'\n"
	      "(without the option babeltrace2 waits for the next session of that name when\n"
	      "the recording ends). Viewers get what merge --format=ctf writes: every layer\n"
	      "(QEMU's own events only from a finished recording: the collector adds them at\n"
	      "its end), on the host's clock, each event's error bound in ns as\n"
	      "bound_ns (-1: none guaranteed), each event once it is final (merge --follow's\n"
	      "rule). hvtrace record --live starts one beside the recording.\n\n"
	      "  ARCHIVE           the recording's directory; the relay waits for it to be\n"
	      "                    created (--wait). NAME in the URL is its last component,\n"
	      "                    HOSTNAME the recording host's name: copy the URL printed\n"
	      "  --listen [ADDR:]PORT  where viewers connect (default 127.0.0.1:"
	      HVT_LIVE_DEFAULT_PORT ",\n"
	      "                    lttng-relayd's live port; PORT 0: a free one, printed).\n"
	      "                    The protocol has no authentication. Every local user can\n"
	      "                    read the recording. With another ADDR (0.0.0.0: all),\n"
	      "                    so can every host that reaches it\n"
	      "  --from-start      every viewer gets the recording from its first event.\n"
	      "                    Without it a viewer gets each stream from its next packet,\n"
	      "                    when it asks for \"from now\", as babeltrace2 always does\n"
	      "  --lag SECONDS     the longest an event waits for slower streams (default 2)\n"
	      "  --linger SECONDS  once the recording ended, how long the connected viewers\n"
	      "                    get to read the rest and leave (default 10); the relay\n"
	      "                    exits then, or when they have left\n"
	      "  --wait SECONDS    how long to wait for ARCHIVE to be created (default 60)\n"
	      "  --viewer-idle SECONDS  when all " HVT_RELAY_XSTR(HVT_RELAY_MAX_VIEWERS) " viewer places are taken, a new\n"
	      "                    viewer gets the place of one that did nothing this long\n"
	      "                    (no command, no reply read; default 10)\n"
	      "  -v, --verbose     also print each viewer that comes and goes\n"
	      "  -q, --quiet       warnings and errors only\n"
	      "  -h, --help        this text\n\n"
	      "No event goes to viewers before one they were sent: an event that comes later\n"
	      "than one with a later time (a stream that stalled past --lag, the first\n"
	      "events of a new stream, a guest event the clock's refit moved) is sent at that\n"
	      "later time, its bound widened by as much, and counted in the last line. Events\n"
	      "the producers lost are counted there too: viewers show no discarded events.\n"
	      "The relay keeps what it serves, a CTF copy of the recording, in a directory\n"
	      "under $TMPDIR (default /var/tmp), removed when it exits (not if it is killed).\n"
	      "Ctrl-C disconnects the viewers and stops the relay, not the recording.\n"
	      "Exit status: 0 when the recording completed (also on Ctrl-C after that), 1 when\n"
	      "it ended otherwise or could not be served, 2 on a usage error, 130 on Ctrl-C.\n", out);
}

static int parse_args(int argc, char **argv, struct relay_opts *o)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "fd", required_argument, NULL, 'F' },
		{ "lag", required_argument, NULL, 'g' },
		{ "linger", required_argument, NULL, 'L' },
		{ "wait", required_argument, NULL, 'W' },
		{ "viewer-idle", required_argument, NULL, 'I' },
		{ "from-start", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		HVT_CLI_VERBOSITY_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t fd;
	int c;

	memset(o, 0, sizeof(*o));
	o->listen_fd = -1;
	o->lag_s = 2;
	o->linger_s = 10;
	o->wait_s = 60;
	o->viewer_idle_s = HVT_RELAY_IDLE_S;
	optind = 0;
	opterr = 0;
	hvt_cli_verbosity_reset();
	while ((c = getopt_long(argc, argv, "vqh", longopts, NULL)) != -1) {
		if (hvt_cli_verbosity(c))
			continue;
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 'F':
			if (hvt_parse_u64(optarg, 3, 1 << 20, &fd))
				return hvt_usage_error("relay", "--fd takes a descriptor number "
						       "(hvtrace record --live gives it), not '%s'",
						       optarg), -1;
			o->listen_fd = (int)fd;
			break;
		case 'g':
			if (hvt_parse_seconds("relay", "--lag", optarg, 0.001, 3600, &o->lag_s))
				return -1;
			break;
		case 'L':
			if (hvt_parse_seconds("relay", "--linger", optarg, 0, 86400, &o->linger_s))
				return -1;
			break;
		case 'W':
			if (hvt_parse_seconds("relay", "--wait", optarg, 0, 86400, &o->wait_s))
				return -1;
			break;
		case 'I':
			if (hvt_parse_seconds("relay", "--viewer-idle", optarg, 0.001, 86400,
					      &o->viewer_idle_s))
				return -1;
			break;
		case 's': o->from_start = true; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			hvt_usage_bad_option("relay", argv, "vqh", longopts);
			return -1;
		}
	}
	if (optind != argc - 1)
		return hvt_usage_error("relay", optind >= argc ? "expected the ARCHIVE directory" :
				       "expected one ARCHIVE directory"), -1;
	if (o->listen && o->listen_fd >= 0)
		return hvt_usage_error("relay", "--listen and --fd: give one"), -1;
	o->archive = argv[optind];
	return 0;
}

static volatile sig_atomic_t relay_stop;

static void on_stop(int sig)
{
	(void)sig;
	relay_stop = 1;
}

struct relay_run {
	struct hvt_relay_feed feed;
	struct hvt_relay_server server;
	const char *url;
	bool said;			/* that the session is listed, with its URL */
};

static int run_event(struct hvt_source *s, void *ctx)
{
	return hvt_relay_feed_event(s, &((struct relay_run *)ctx)->feed);
}

static void run_caught_up(void *ctx)
{
	hvt_relay_feed_caught_up(&((struct relay_run *)ctx)->feed);
}

/* The URL, once viewers can attach (the session has metadata and a stream). */
static void say_serving(struct relay_run *run)
{
	if (!run->said && run->server.t->listed) {
		hvt_info("serving %s live: babeltrace2 %s", run->server.t->session, run->url);
		run->said = true;
	}
}

static bool run_wait(void *ctx, int64_t ns)
{
	struct relay_run *run = ctx;

	say_serving(run);
	hvt_relay_server_run(&run->server, ns);
	return !relay_stop;
}

/* hvt_archive_wait_set_up()'s give_up: viewers are served while it waits. */
static bool serve_while_waiting(void *ctx)
{
	hvt_relay_server_run(ctx, 0);
	return relay_stop;
}

/*
 * Once the recording ended: the viewers still connected get --linger to
 * read the rest and leave (babeltrace2 leaves once it was told that every
 * stream ended, with session-not-found-action=end; by default it waits for
 * the next session of that name).
 */
static void linger(struct hvt_relay_server *srv, double seconds)
{
	int64_t end = hvt_monotonic_ns() + (int64_t)(seconds * 1e9);

	if (hvt_relay_server_connected(srv))
		hvt_info("the recording ended; the viewers connected get up to %g s to read the "
			 "rest and leave", seconds);
	while (!relay_stop && hvt_relay_server_connected(srv) && hvt_monotonic_ns() < end)
		hvt_relay_server_run(srv, 200000000);
	if (hvt_relay_server_reading(srv))
		hvt_warn("a viewer had not read everything when the relay stopped (--linger "
			 "gives it longer)");
}

/* How many viewers came, and those turned away or closed by the relay. */
static void say_viewers(const struct hvt_relay_server *s)
{
	if (!s->accepted && !s->refused)
		return;
	hvt_info("viewers: %llu connected, %llu refused (all %d places taken), %llu closed idle "
		 "for a newcomer, %llu closed on a protocol error",
		 (unsigned long long)s->accepted, (unsigned long long)s->refused,
		 HVT_RELAY_MAX_VIEWERS, (unsigned long long)s->evicted,
		 (unsigned long long)s->dropped);
}

/* A recording complete when opened: served from its start until Ctrl-C. */
static void serve_finished(struct relay_run *run)
{
	say_serving(run);
	hvt_info("the recording is complete: serving it from its start until Ctrl-C");
	while (!relay_stop)
		hvt_relay_server_run(&run->server, 1000000000);
}

/* The directory of what is served, under $TMPDIR; NULL after an error message. */
static char *served_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/hvtrace-relay.XXXXXX", tmp && *tmp ? tmp : "/var/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		hvt_err("cannot make a directory for the live trace in %s: %s (set TMPDIR)",
			tmp && *tmp ? tmp : "/var/tmp", strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* The session's name: the archive directory's last component. */
static void session_name(const char *archive, char *name, size_t size)
{
	char copy[4096];
	char *base;

	snprintf(copy, sizeof(copy), "%s", archive);
	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = 0;
	base = basename(copy);
	snprintf(name, size, "%s", base);
}

/* Follows the recording into the served trace; 0 if it completed. */
static int follow(struct relay_run *run, struct hvt_session *ses, const struct relay_opts *o,
		  const char *url)
{
	const struct hvt_follow_sink sink = { .event = run_event, .caught_up = run_caught_up,
					      .wait = run_wait };
	struct hvt_follow_opts fo = { .lag_ns = (int64_t)(o->lag_s * 1e9), .stop = &relay_stop };
	struct hvt_timeline tl;
	struct hvt_follow f;
	int ret = 1;

	fo.period_ns = fo.lag_ns / 4 < 200000000 ? fo.lag_ns / 4 : 200000000;
	if (hvt_timeline_init(&tl, ses, NULL, NULL))
		return 1;
	hvt_follow_init(&f, &tl, &fo);
	run->url = url;
	if (!hvt_relay_feed_open(&run->feed, run->server.t, ses, &f)) {
		ret = hvt_follow_run(&f, &sink, run) ? 1 : 0;
		if (hvt_relay_feed_close(&run->feed))
			ret = 1;
		if (!ret && f.ended)
			ret = 1;
		if (!ret && !f.complete)
			ret = relay_stop ? 130 : 1;
		hvt_info("served %llu events%s; %llu placed later than their time, bound widened "
			 "as much (at most %.3f ms); %llu lost by the producers (viewers are not "
			 "told)", (unsigned long long)run->feed.events,
			 f.complete ? ", all of the recording" : "",
			 (unsigned long long)run->feed.late, run->feed.late_max_ns / 1e6,
			 (unsigned long long)hvt_session_lost(ses));
		if (run->feed.delay.n && f.refreshes)	/* followed while written */
			hvt_info("published %.3f s after their time at the median, %.3f s at p99, "
				 "%.3f s at most (--lag %g s)",
				 hvt_span_hist_quantile(&run->feed.delay, 0.5) / 1e9,
				 hvt_span_hist_quantile(&run->feed.delay, 0.99) / 1e9,
				 run->feed.delay.max / 1e9, o->lag_s);
		hvt_relay_feed_free(&run->feed);
	}
	hvt_timeline_close(&tl);
	return ret;
}

int hvt_cmd_relay(int argc, char **argv)
{
	const struct hvt_session_opts so = { .follow = true };
	struct sigaction sa = { .sa_handler = on_stop };
	struct relay_opts o;
	struct relay_run *run;
	struct hvt_relay_trace t;
	struct hvt_session ses;
	char bound[200], err[300], name[256], host[256], url[1024];
	char *dir;
	int ret = parse_args(argc, argv, &o), fd;

	if (ret)
		return ret > 0 ? 0 : 2;
	fd = o.listen_fd >= 0 ? o.listen_fd :
	     hvt_live_listen(o.listen ? o.listen : HVT_LIVE_DEFAULT_PORT, bound, sizeof(bound),
			      err, sizeof(err));
	if (fd < 0) {
		hvt_err("%s%s", err, o.listen ? "" : " (--listen PORT: another one)");
		return 1;
	}
	if (o.listen_fd >= 0)
		hvt_live_bound(fd, bound, sizeof(bound));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART: waits end at once */
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	session_name(o.archive, name, sizeof(name));
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[63] = 0;	/* the protocol's hostname field */
	dir = served_dir();
	run = calloc(1, sizeof(*run));
	if (!dir || !run || hvt_relay_trace_init(&t, dir, name, host)) {
		if (!run)
			hvt_err("out of memory");
		close(fd);
		free(dir);
		free(run);
		return 1;
	}
	hvt_relay_server_init(&run->server, fd, &t);
	run->server.from_start = o.from_start;
	run->server.idle_ns = (int64_t)(o.viewer_idle_s * 1e9);
	hvt_info("listening on %s for LTTng live viewers", bound);
	ret = 1;
	if (!hvt_archive_wait_set_up(o.archive, (int)o.wait_s, serve_while_waiting, &run->server)) {
		if (!relay_stop)
			hvt_err("%s was not set up within %g s: is hvtrace record writing it?",
				o.archive, o.wait_s);
	} else if (!hvt_session_open(&ses, o.archive, &so)) {
		bool finished = ses.archive.complete;

		if (finished)
			run->server.from_start = true;	/* "from now" would be nothing */
		if (ses.archive.hostname[0] && strcmp(ses.archive.hostname, host)) {
			free(t.hostname);
			t.hostname = strndup(ses.archive.hostname, 63);
		}
		snprintf(url, sizeof(url), "net://%s/host/%s/%s", bound, t.hostname ? t.hostname :
			 host, name);
		ret = follow(run, &ses, &o, url);
		hvt_session_close(&ses);
		if (ret != 130 && finished)
			serve_finished(run);
		else if (ret != 130)
			linger(&run->server, o.linger_s);
	}
	if (relay_stop && ret != 0)
		ret = 130;
	say_viewers(&run->server);
	hvt_relay_server_close(&run->server);
	hvt_relay_trace_free(&t);
	free(dir);
	free(run);
	return ret;
}
