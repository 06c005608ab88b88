/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ctf_out.h - merged events as one CTF 1.8 trace (merge --format=ctf,
 * docs/format.md section 9).
 *
 * One clock, the host TSC, for every event; one stream class; one stream
 * file per source of the merge (a host CPU, a guest CPU or thread), so that
 * readers see the archive's structure, with each event's layer and VM in
 * its context. Stream ids follow the merge's tie-break (heap.h), so that
 * babeltrace2, which orders events of equal time by stream id, puts them in
 * hvtrace's order.
 *
 * Event classes are numbered as they first occur: guest events keep their
 * registry's fields, byte for byte; host events get their format file's
 * fields (each reader's tsdl_fields, reader.h). The metadata, which lists them, is
 * written last, by hvt_ctf_out_close().
 *
 * Memory: one packet buffer per source that has events.
 */
#ifndef HVT_TOOLS_OUT_CTF_OUT_H
#define HVT_TOOLS_OUT_CTF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hvtrace/ctf.h>
#include "tools/session/session.h"

#define HVT_CTF_OUT_PACKET	(64u << 10)	/* bytes; larger for an event that needs it */

struct hvt_ctf_out_stream;
struct hvt_ctf_out_class;
struct hvt_ctf_out_key;

/*
 * Where a finished packet goes when not to the stream's file in the output
 * directory (the relay's live trace, tools/relay/relay_trace.h): @data is
 * the whole packet, @pkt its header and context as written in it. 0, or -1
 * with errno.
 */
struct hvt_ctf_packet_sink {
	int (*packet)(void *ctx, const struct hvt_source *s, const char *file,
		      const void *data, size_t len, const struct hvt_ctf_packet *pkt);
	void *ctx;
};

struct hvt_ctf_out {
	struct hvt_session *ses;
	struct hvt_ctf_packet_sink sink;	/* .packet NULL: the stream files */
	bool discards_unsaid;		/* events_discarded always 0 (relay_feed.h says why) */
	char *dir;
	int dirfd;
	__u8 uuid[HVT_UUID_LEN];
	struct hvt_ctf_out_stream *streams;	/* by source index */
	size_t cap_streams;			/* grows with the session's sources (--follow) */
	struct hvt_ctf_out_class *classes;	/* by event class id */
	uint32_t nr_classes, cap_classes;
	struct hvt_ctf_out_key *keys;		/* event type -> class id, open addressing */
	size_t cap_keys;
	uint64_t clock_hz, clock_offset;	/* the CTF clock (put_clock()) */
	int64_t clock_offset_s;
	uint64_t max_tsc;			/* the last host TSC CTF readers can take */
	uint64_t beyond;			/* events after it, left out */
	int error;				/* errno of the first failed write */
	char *failed;				/* the file it failed on */
};

/*
 * Creates @dir (it may exist if empty; with @force, if it holds a CTF trace,
 * whose files are removed: util/output_path.h) for @ses's events; -1 after
 * an error message naming the problem. @dir NULL: no directory, the
 * packets go to o->sink (set after opening) and the metadata is the
 * caller's to write (hvt_ctf_out_put_head(), hvt_ctf_out_put_classes()).
 */
int hvt_ctf_out_open(struct hvt_ctf_out *o, struct hvt_session *ses, const char *dir,
		     bool force);
/* Appends the current event of @s. */
void hvt_ctf_out_event(struct hvt_ctf_out *o, struct hvt_source *s);
/*
 * Appends the current event of @s at host TSC @tsc with error bound
 * @bound_ns (-1: none guaranteed) instead of its own (the relay's late
 * events, placed later with their bound widened: relay_feed.h).
 */
void hvt_ctf_out_event_at(struct hvt_ctf_out *o, struct hvt_source *s, uint64_t tsc,
			  int64_t bound_ns);
/* Finishes every packet that holds events (a live trace, each period). */
void hvt_ctf_out_flush(struct hvt_ctf_out *o);
/* The metadata before the event classes: trace, clock, stream (TSDL). */
void hvt_ctf_out_put_head(FILE *f, const struct hvt_ctf_out *o);
/* The event classes from @from (class ids are given in order) to the last. */
void hvt_ctf_out_put_classes(FILE *f, const struct hvt_ctf_out *o, uint32_t from);
/* Writes the last packets and the metadata and frees @o; -1 after an error message. */
int hvt_ctf_out_close(struct hvt_ctf_out *o);

#endif
