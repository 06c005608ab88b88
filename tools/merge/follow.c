// SPDX-License-Identifier: GPL-2.0-only
/*
 * follow.c - a time line followed while its recording is written (follow.h).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock_now.h"
#include "tools/merge/follow.h"

void hvt_follow_init(struct hvt_follow *f, struct hvt_timeline *tl,
		     const struct hvt_follow_opts *opts)
{
	*f = (struct hvt_follow){ .tl = tl, .opts = *opts };
	f->complete = tl->ses->archive.complete;	/* opened whole: nothing more comes */
}

uint64_t hvt_follow_tsc_at(struct hvt_session *ses, int64_t realtime_ns)
{
	uint64_t lo = 0, hi = UINT64_MAX >> 1;

	if (!ses->clock.n)
		return 0;	/* no clock pairs: the lag cannot be placed */
	while (lo < hi) {	/* the first TSC at or after @realtime_ns */
		uint64_t mid = lo + (hi - lo) / 2;

		if (hvt_host_clock_realtime(&ses->clock, mid) < realtime_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The host TSC before which no followed stream can bring an event: the
 * least last event of the streams read to their end for now (a stream
 * with an event waiting in the time line is past the time line's next).
 */
static uint64_t read_past(const struct hvt_timeline *tl)
{
	const struct hvt_session *ses = tl->ses;
	uint64_t least = UINT64_MAX;
	size_t i;

	/*
	 * A VM not placed yet (its first exchanges to come) may bring
	 * anything; a placed one is bounded only up to the last exchange its
	 * alignment used: its events after it wait for the next refit.
	 */
	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_session_vm *st = &ses->vms[i];

		if (!st->loaded || !st->vm.nr_streams)
			continue;
		if (st->placed_until < least)
			least = st->placed_until;
	}

	for (i = 0; i < tl->nr_known; i++) {
		const struct hvt_source *s = tl->ses->sources[i];

		if (tl->queued[i] || !hvt_source_merged(s) || s->closed)
			continue;	/* a closed stream: what it had is all */
		if (!s->events)
			continue;	/* nothing yet: what it brings is recent, or late */
		if (s->host_tsc < least)
			least = s->host_tsc;
	}
	return least;
}

uint64_t hvt_follow_horizon(struct hvt_follow *f, int64_t now_ns)
{
	uint64_t past, aged;

	if (f->complete || f->ended)
		return UINT64_MAX;
	past = read_past(f->tl);
	aged = hvt_follow_tsc_at(f->tl->ses, now_ns - f->opts.lag_ns);
	return past > aged ? past : aged;
}

static bool stop_asked(struct hvt_follow *f)
{
	if (f->opts.stop && *f->opts.stop)
		f->stopped = true;
	return f->stopped;
}

/*
 * Hands on every event final now; false once stopped. A source that runs
 * dry on the way holds the others from then on: the horizon is made
 * again whenever the time line loses one.
 */
static bool hand_on(struct hvt_follow *f, const struct hvt_follow_sink *sink, void *ctx)
{
	struct hvt_source *s;
	uint64_t horizon;
	size_t queued;

	f->now_ns = f->opts.realtime ? f->opts.realtime() : hvt_realtime_ns();
	horizon = hvt_follow_horizon(f, f->now_ns);
	queued = f->tl->heap.n;
	while ((s = hvt_timeline_peek(f->tl))) {
		if (f->tl->heap.n < queued) {
			horizon = hvt_follow_horizon(f, f->now_ns);
			queued = f->tl->heap.n;
		}
		if (s->host_tsc >= horizon)
			break;
		hvt_timeline_next(f->tl);
		if (f->events && s->host_tsc < f->last_tsc)
			f->late++;
		else
			f->last_tsc = s->host_tsc;
		f->events++;
		if (sink->event(s, ctx) < 0)
			f->stopped = true;
		if (stop_asked(f))
			break;
	}
	if (sink->caught_up)
		sink->caught_up(ctx);
	return !f->stopped;
}

/* Sleeps a period (a signal cuts it short), or the sink waits; false if asked to stop. */
static bool wait_period(struct hvt_follow *f, const struct hvt_follow_sink *sink, void *ctx)
{
	struct timespec ts = { f->opts.period_ns / 1000000000, f->opts.period_ns % 1000000000 };

	if (sink->wait) {
		if (!sink->wait(ctx, f->opts.period_ns))
			f->stopped = true;
		return !stop_asked(f);
	}
	while (!stop_asked(f) && nanosleep(&ts, &ts) && errno == EINTR)
		;
	return !stop_asked(f);
}

/*
 * Whether the recording will never complete: its manifest says its setup
 * failed, or its collector ran on this host and is gone (killed, crashed).
 */
static bool recording_over(const struct hvt_archive *a)
{
	char host[sizeof(a->hostname)] = "";

	if (a->failed)
		return true;
	if (!a->collector_pid || a->collector_pid > INT32_MAX ||
	    gethostname(host, sizeof(host) - 1) || strcmp(host, a->hostname))
		return false;
	return kill((pid_t)a->collector_pid, 0) && errno == ESRCH;
}

static int refresh(struct hvt_follow *f)
{
	bool over = recording_over(&f->tl->ses->archive);	/* before: then all is read */

	int64_t t0 = hvt_monotonic_ns(), took;

	if (hvt_session_refresh(f->tl->ses) || hvt_timeline_refresh(f->tl))
		return -1;
	took = hvt_monotonic_ns() - t0;
	if (took > f->refresh_max_ns)
		f->refresh_max_ns = took;
	f->refreshes++;
	/* the manifest is read first: complete, what this refresh read is all */
	f->complete = f->tl->ses->archive.complete;
	f->ended = !f->complete && over;
	return 0;
}

int hvt_follow_run(struct hvt_follow *f, const struct hvt_follow_sink *sink, void *ctx)
{
	for (;;) {
		if (!hand_on(f, sink, ctx))
			return 0;
		if (f->complete || f->ended)
			return 0;	/* all handed on */
		if (!wait_period(f, sink, ctx))
			return 0;
		if (refresh(f))
			return -1;
	}
}
