// SPDX-License-Identifier: GPL-2.0-only
/*
 * relay_feed.c - followed events into the live trace (relay_feed.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/relay/relay_feed.h"

/* The event classes not in the metadata yet (and its head, first); -1 with errno. */
static int put_metadata(struct hvt_relay_feed *fd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (fd->t->metadata_len && fd->classes_put == fd->ctf.nr_classes)
		return 0;
	f = open_memstream(&text, &len);
	if (!f)
		return -1;
	/*
	 * Each part starts with the signature: babeltrace2 2.0 parses what one
	 * round of GET_METADATA brought as a text of its own, whose version it
	 * reads there (without one it reads garbage and refuses the trace).
	 */
	fputs("/* CTF 1.8 */\n", f);
	if (!fd->t->metadata_len)
		hvt_ctf_out_put_head(f, &fd->ctf);
	hvt_ctf_out_put_classes(f, &fd->ctf, fd->classes_put);
	if (fclose(f)) {
		free(text);
		return -1;
	}
	ret = hvt_relay_trace_metadata(fd->t, text, len);
	if (!ret)
		fd->classes_put = fd->ctf.nr_classes;
	free(text);
	return ret;
}

/* ctf_out's packet sink: the metadata first, then the packet. */
static int put_packet(void *ctx, const struct hvt_source *s, const char *file, const void *data,
		      size_t len, const struct hvt_ctf_packet *pkt)
{
	struct hvt_relay_feed *fd = ctx;
	struct hvt_relay_index ix = {
		.packet_size = pkt->packet_size, .content_size = pkt->content_size,
		.timestamp_begin = pkt->timestamp_begin, .timestamp_end = pkt->timestamp_end,
		.events_discarded = pkt->events_discarded,
	};

	(void)s;
	if (put_metadata(fd))
		return -1;
	return hvt_relay_trace_packet(fd->t, file, data, len, &ix) < 0 ? -1 : 0;
}

int hvt_relay_feed_open(struct hvt_relay_feed *fd, struct hvt_relay_trace *t,
			struct hvt_session *ses, const struct hvt_follow *f)
{
	memset(fd, 0, sizeof(*fd));
	fd->t = t;
	fd->f = f;
	if (hvt_ctf_out_open(&fd->ctf, ses, NULL, false))
		return -1;
	fd->ctf.sink.packet = put_packet;
	fd->ctf.sink.ctx = fd;
	fd->ctf.discards_unsaid = true;
	if (put_metadata(fd)) {
		hvt_err("cannot write the live trace's metadata in %s: %s", t->dir,
			strerror(errno));
		hvt_ctf_out_close(&fd->ctf);
		return -1;
	}
	return 0;
}

int hvt_relay_feed_event(struct hvt_source *s, void *ctx)
{
	struct hvt_relay_feed *fd = ctx;
	uint64_t floor = fd->max_ts, tsc = s->host_tsc;	/* the beacon is no later */
	int64_t bound;

	bound = hvt_session_event_bound_ns(fd->ctf.ses, s);
	if (tsc < floor) {
		/*
		 * in ns by the trace's clock, 100 ppm more: the clocks that read it
		 * (the session's fit, the manifest's tsc_freq_hz) differ by ppm
		 */
		uint64_t ticks = floor - tsc + (floor - tsc) / 10000 + 1;
		uint64_t shift_ns = (uint64_t)(((unsigned __int128)ticks * 1000000000u +
						fd->ctf.clock_hz - 1) / fd->ctf.clock_hz);

		tsc = floor;
		if (bound >= 0)
			bound = shift_ns > (uint64_t)(INT64_MAX - bound) ? INT64_MAX :
				bound + (int64_t)shift_ns;
		if (shift_ns > fd->late_max_ns)
			fd->late_max_ns = shift_ns;
		fd->late++;
	}
	if (hvt_span_hist_add(&fd->delay, fd->f->now_ns -
			      hvt_host_clock_realtime(&fd->ctf.ses->clock, s->host_tsc))) {
		fd->error = ENOMEM;
		return -1;
	}
	if (tsc > fd->max_ts && tsc <= fd->ctf.max_tsc)
		fd->max_ts = tsc;
	hvt_ctf_out_event_at(&fd->ctf, s, tsc, bound);
	fd->events++;
	if (fd->ctf.error) {
		fd->error = fd->ctf.error;
		return -1;
	}
	return 0;
}

void hvt_relay_feed_caught_up(void *ctx)
{
	struct hvt_relay_feed *fd = ctx;
	uint64_t horizon;

	if (fd->error)
		return;
	hvt_ctf_out_flush(&fd->ctf);
	if (!fd->ctf.error && put_metadata(fd))
		fd->ctf.error = errno ? errno : EIO;
	if (fd->ctf.error) {
		fd->error = fd->ctf.error;
		return;
	}
	horizon = hvt_follow_horizon((struct hvt_follow *)fd->f, fd->f->now_ns);
	if (horizon > fd->max_ts)
		horizon = fd->max_ts;
	if (horizon > fd->t->beacon)
		fd->t->beacon = horizon;
}

int hvt_relay_feed_close(struct hvt_relay_feed *fd)
{
	int ret = 0;

	if (!fd->error) {
		hvt_ctf_out_flush(&fd->ctf);
		if (!fd->ctf.error && put_metadata(fd))
			fd->ctf.error = errno ? errno : EIO;
	}
	if (fd->ctf.error && !fd->error)
		fd->error = fd->ctf.error;
	if (fd->error) {
		hvt_err("writing the live trace in %s failed: %s; viewers get what was "
			"written before", fd->t->dir, strerror(fd->error));
		ret = -1;
	}
	fd->t->beacon = fd->max_ts > fd->t->beacon ? fd->max_ts : fd->t->beacon;
	fd->t->done = true;
	if (hvt_ctf_out_close(&fd->ctf))
		ret = -1;
	return ret;
}

void hvt_relay_feed_free(struct hvt_relay_feed *fd)
{
	hvt_span_hist_free(&fd->delay);
}
