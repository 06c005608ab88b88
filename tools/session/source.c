// SPDX-License-Identifier: GPL-2.0-only
/*
 * source.c - one source of a session: its events in order on the host's
 * time line, and what the outputs ask of them (source.h).
 */
#include <inttypes.h>
#include <string.h>

#include "tools/util/stream_warn.h"
#include "tools/session/session.h"

/*
 * A source's events must come out in time order for the merge. Its reader
 * hands them out in stream order; a guest stream may legitimately step back
 * in guest time (a backwards TSC jump, which its VM's clock places), so the
 * order is judged here, on the host time alignment gave.
 */
static void warn_backwards(struct hvt_source *s, uint64_t t)
{
	if (s->guest_tl)
		hvt_stream_warn(&s->warnings, s->name, "event at offset %" PRIu64 ": guest "
				"timestamp %" PRIu64 " places it at host TSC %" PRIu64 ", before "
				"the previous event (%" PRIu64 "), and no clock change in sync.tsv "
				"explains the step back; dropping it", s->ev.offset,
				s->ev.ts, t, s->host_tsc);
	else
		hvt_stream_warn(&s->warnings, s->name, "%s at offset %" PRIu64 ": timestamp %"
				PRIu64 " is before the previous one (%" PRIu64 "); dropping it",
				s->layer == HVT_LAYER_HOST ? "record" : "event", s->ev.offset, t,
				s->host_tsc);
}

/*
 * At the end of a stream read whole: its packets, read or skipped with a
 * warning of their own, against what info.json recorded (fewer: lost
 * without a word; more, once the archive is complete: not the collector's).
 * Once.
 */
static void check_packets(struct hvt_source *s)
{
	struct hvt_reader_stats st = { 0 };
	uint64_t want, seen;

	if (s->expect_packets < 0 || !s->rd.ops || !s->rd.ops->stats)
		return;
	want = (uint64_t)s->expect_packets;
	s->expect_packets = -1;
	s->rd.ops->stats(s->rd.r, &st);
	seen = st.packets + st.skipped_packets;
	s->incomplete |= seen < want;
	if (seen < want)
		hvt_stream_warn(&s->warnings, s->name, "%" PRIu64 " packet%s, where info.json "
				"records %" PRIu64 ": %" PRIu64 " missing", seen, seen == 1 ? "" : "s",
				want, want - seen);
	else if (seen > want && s->expect_no_more)
		hvt_stream_warn(&s->warnings, s->name, "%" PRIu64 " packet%s, where info.json of "
				"a complete recording records %" PRIu64 ": %" PRIu64 " the collector "
				"did not write", seen, seen == 1 ? "" : "s", want, seen - want);
}

/* A CLOCK_REALTIME stamp on the host TSC; one far outside the recording has no bound. */
static uint64_t realtime_place(struct hvt_source *s)
{
	s->unbounded = !hvt_realtime_tsc_covers(s->realtime, (int64_t)s->ev.ts);
	s->outside += s->unbounded;
	return hvt_realtime_tsc(s->realtime, (int64_t)s->ev.ts);
}

/* At the end of a QEMU log: the lines placed from outside the recording, said once. */
static void check_outside(struct hvt_source *s)
{
	if (!s->outside || s->outside == UINT64_MAX)
		return;
	hvt_stream_warn(&s->warnings, s->name, "%" PRIu64 " line%s stamped more than 1 s "
			"before or after the recording's clock pairs (another run? a clock set "
			"wrong?): placed by extending the clock's line, with no bound", s->outside,
			s->outside == 1 ? "" : "s");
	s->outside = UINT64_MAX;	/* said */
}

/*
 * At the end of a stream of a complete recording: fewer events than the
 * collector counted in the packets it stored means events lost inside
 * packets that still read as whole (a damaged content size, say). The
 * events of packets skipped as damaged count as read: those were said.
 */
static void check_events(struct hvt_source *s)
{
	struct hvt_reader_stats st = { 0 };
	uint64_t want;

	if (s->expect_events < 0 || !s->rd.ops)
		return;
	want = (uint64_t)s->expect_events;
	s->expect_events = -1;
	hvt_reader_stats(&s->rd, &st);
	if (st.skipped_packets || s->events >= want)
		return;
	s->incomplete = true;
	hvt_stream_warn(&s->warnings, s->name, "%" PRIu64 " event%s, where info.json records %"
			PRIu64 " in its packets: %" PRIu64 " missing (a damaged packet?)", s->events,
			s->events == 1 ? "" : "s", want, want - s->events);
}

/*
 * At the end of a stream: packets, pages or records it skipped as damaged
 * (each said) are recorded events the output lacks.
 */
static void check_skipped(struct hvt_source *s)
{
	struct hvt_reader_stats st = { 0 };

	hvt_reader_stats(&s->rd, &st);
	s->incomplete |= st.skipped_packets || st.skipped_records;
}

/*
 * At the end of a host CPU file: shorter than hvtrace.json records, its
 * last pages are missing (truncated or emptied since). Once.
 */
static void check_bytes(struct hvt_source *s)
{
	if (s->expect_bytes < 0)
		return;
	s->incomplete |= s->file_bytes < s->expect_bytes;
	if (s->file_bytes < s->expect_bytes)
		hvt_stream_warn(&s->warnings, s->name, "%" PRId64 " bytes, where hvtrace.json "
				"records %" PRId64 ": %" PRId64 " bytes of events are missing "
				"(truncated or emptied)", s->file_bytes, s->expect_bytes,
				s->expect_bytes - s->file_bytes);
	s->expect_bytes = -1;
}

int hvt_source_next(struct hvt_source *s)
{
	for (;;) {
		uint64_t t;

		if (!hvt_reader_next(&s->rd, &s->ev)) {
			check_packets(s);
			check_events(s);
			check_bytes(s);
			check_skipped(s);
			check_outside(s);
			return 0;
		}
		/* Every event through the cursor, in stream order, dropped ones too. */
		if (s->guest_tl)
			t = hvt_tsc_timeline_to_host(s->guest_tl, &s->cur, s->ev.ts);
		else if (s->realtime)
			t = realtime_place(s);
		else
			t = s->ev.ts;
		s->shift = 0;
		if (t < s->held) {	/* placed anew after a refresh, not before the last */
			s->shift = s->held - t;
			t = s->held;
		}
		if (s->events && t < s->host_tsc) {
			warn_backwards(s, t);
			continue;
		}
		if (!s->events)
			s->first_tsc = t;
		s->prev_tsc = s->host_tsc;
		s->host_tsc = t;
		s->events++;
		s->pending = true;
		return 1;
	}
}

uint32_t hvt_source_cpu(const struct hvt_source *s)
{
	return s->ev.cpu;
}

int32_t hvt_source_tid(const struct hvt_source *s)
{
	return s->ev.tid;
}

const char *hvt_source_event_name(const struct hvt_source *s)
{
	return s->ev.name;
}

void hvt_source_print_name(const struct hvt_source *s, struct hvt_text *t)
{
	hvt_text_mem(t, s->ev.name, s->ev.name_len);
}

void hvt_source_print_fields(struct hvt_source *s, struct hvt_text *t, bool print_fmt,
			     const struct hvt_field_subst *sub)
{
	s->rd.ops->print_fields(s->rd.r, t, print_fmt, sub);
}

void hvt_source_json_fields(struct hvt_source *s, struct hvt_text *t,
			    const struct hvt_field_subst *sub)
{
	s->rd.ops->json_fields(s->rd.r, t, sub);
}

int hvt_source_field_u64(struct hvt_source *s, const char *name, uint64_t *v)
{
	return s->rd.ops->field_u64(s->rd.r, name, v);
}

int hvt_source_field_text(struct hvt_source *s, const char *name, char *buf, size_t len)
{
	return s->rd.ops->field_text(s->rd.r, name, buf, len);
}

bool hvt_source_merged(const struct hvt_source *s)
{
	return s->aligned && !s->unwanted && hvt_reader_opened(&s->rd);
}

uint64_t hvt_source_lost(const struct hvt_source *s)
{
	struct hvt_reader_stats st;

	hvt_reader_stats(&s->rd, &st);
	return st.lost_events;
}

uint64_t hvt_source_missing_packets(const struct hvt_source *s)
{
	struct hvt_reader_stats st;

	hvt_reader_stats(&s->rd, &st);
	return st.lost_packets;
}

unsigned long hvt_source_warnings(const struct hvt_source *s)
{
	struct hvt_reader_stats st;

	hvt_reader_stats(&s->rd, &st);
	return s->warnings + st.warnings;
}

/*
 * Host ticks a guest value may have been read before the host TSC that
 * KVM's exact transform @x gives it: hvt_tsc_to_host() rounds up to the
 * first host tick showing the value, and a guest TSC slower than the host's
 * shows each value for up to 2^frac / ratio host ticks.
 */
static uint64_t exact_slack(const struct hvt_tsc_xform *x)
{
	unsigned __int128 one = (unsigned __int128)1 << x->frac;

	if (x->ratio >= one)
		return 0;
	return (uint64_t)((one + x->ratio - 1) / x->ratio) - 1;
}

int hvt_source_error_bound(struct hvt_session_vm *vm, const struct hvt_source *s,
			   uint64_t *bound)
{
	uint64_t placed = s->host_tsc - s->shift;	/* where its clock put it */

	if (vm->al.exact)
		*bound = exact_slack(&hvt_tsc_timeline_at(s->guest_tl, placed)->x);
	else if (hvt_vm_clock_event_bound(&vm->al.clock, s->ev.ts, placed, bound))
		return -1;
	*bound += s->shift;
	return 0;
}
