/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ctf_reader.h - decoding one guest CTF stream file (docs/format.md, sections
 * 2 and 3), packet by packet, with its trace's registry.
 *
 * Memory stays bounded by one packet per stream: the reader pread()s a
 * packet, hands out its events one at a time (pointing into that packet) and
 * only then reads the next packet.
 *
 * Input is untrusted. Every problem is a warning naming the file and byte
 * offset, counted in the stream's stats, and costs as little as possible:
 *   - a bad event (unknown id, running past content_size): the rest of its
 *     packet;
 *   - a packet whose header fails hvt_packet_check() but whose size can still
 *     be trusted (right magic, size within the file): that packet;
 *   - otherwise (bad magic, truncated packet): the rest of the stream.
 *
 * Events come out in stream order, as recorded. Whether a step back in time
 * is an error depends on the VM's clock (a backwards guest TSC jump repeats
 * values), so the timeline judges it after alignment (timeline.h).
 */
#ifndef HVT_TOOLS_READ_CTF_READER_H
#define HVT_TOOLS_READ_CTF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hvtrace/ctf.h>
#include "lib/event_registry.h"
#include "tools/read/field_subst.h"
#include "tools/util/text_buffer.h"

#define HVT_REGISTRY_FILE_MAX	(64u << 20)

/*
 * A trace's event types as its streams are decoded and printed: the
 * registry's descriptions, with what printing needs computed once per type
 * rather than per event.
 */
struct hvt_ctf_type {
	const struct hvt_event_type *reg;
	unsigned int name_len;			/* of reg->name */
	char *prefixes;				/* every field's " name=", back to back */
	uint16_t prefix_end[HVT_REG_MAX_FIELDS];	/* where field i's ends in prefixes */
};

struct hvt_ctf_types {
	struct hvt_ctf_type **by_id;		/* NULL: no such event */
	unsigned int nr;			/* ids below */
};

/* The types of @reg, which must outlive them; -1 if out of memory. */
int hvt_ctf_types_init(struct hvt_ctf_types *types, const struct hvt_registry *reg);
/*
 * The types of events @reg gained since, added; those there stay where
 * they are (an event decoded with one stays valid). -1 if out of memory.
 */
int hvt_ctf_types_update(struct hvt_ctf_types *types, const struct hvt_registry *reg);
void hvt_ctf_types_free(struct hvt_ctf_types *types);

static inline const struct hvt_ctf_type *hvt_ctf_type_get(const struct hvt_ctf_types *types,
							  uint32_t id)
{
	return id < types->nr ? types->by_id[id] : NULL;
}

struct hvt_ctf_event {
	uint64_t ts;				/* the trace's clock */
	const struct hvt_ctf_type *type;
	uint32_t cpu;				/* event context; HVT_CTF_NO_CPU if none */
	int32_t tid;
	const unsigned char *payload;		/* valid until the next hvt_ctf_next() */
	uint32_t payload_len;
	uint64_t offset;			/* of the event header in the file */
};

struct hvt_ctf_stats {
	uint64_t packets;		/* decoded */
	uint64_t skipped_packets;	/* whole packets skipped, each with a warning */
	uint64_t skipped_tails;		/* packets whose rest was skipped from a damaged event */
	uint64_t lost_events;		/* events_discarded of the last packet */
	uint64_t lost_packets;		/* gaps in packet_seq_num */
	unsigned long warnings;
};

struct hvt_ctf_stream;

/*
 * Opens @path (named @name in messages) for decoding with @uuid and @types,
 * which must outlive the stream. NULL after a warning if the file cannot be
 * opened; the warning is counted in *@warnings.
 */
struct hvt_ctf_stream *hvt_ctf_open(const char *path, const char *name,
				    const __u8 uuid[HVT_UUID_LEN],
				    const struct hvt_ctf_types *types, unsigned long *warnings);
/* The next event in stream order: 1, or 0 at the end of the stream (or of what is usable). */
int hvt_ctf_next(struct hvt_ctf_stream *s, struct hvt_ctf_event *ev);
/*
 * From now on, a packet whose stream_instance_id and cpu_id are not those
 * of the stream of guest CPU @cpu (HVT_CTF_NO_CPU: none) or thread @tid is
 * skipped with a warning: what the collector wrote there was checked to be.
 */
void hvt_ctf_expect_stream(struct hvt_ctf_stream *s, uint32_t cpu, int32_t tid);
/*
 * From now on, the stream's timestamps are known never to step back (its
 * clock has no backwards jump), so that damage to one packet's times stays
 * in that packet: a packet whose times lie after the whole next one, while
 * the packets around it agree, is skipped; an event later than the next
 * packet's beginning ends its packet; "after" meaning by more than 2^32
 * ticks. Each with a warning. Without this, one such timestamp makes every
 * later event look earlier than it.
 */
void hvt_ctf_time_monotonic(struct hvt_ctf_stream *s);
const struct hvt_ctf_stats *hvt_ctf_stats(const struct hvt_ctf_stream *s);
/*
 * Reads the stream only up to @bytes (packets the collector recorded whole,
 * for a file still being written), which may lie past the end read so far:
 * the next hvt_ctf_next() then goes on from where the stream stopped.
 */
void hvt_ctf_limit(struct hvt_ctf_stream *s, uint64_t bytes);
void hvt_ctf_close(struct hvt_ctf_stream *s);

/*
 * Loads a registry file record by record. A record that fails validation is
 * warned about with its byte offset, and it and the rest of the file are
 * ignored: events with the ids it would have described are then reported as
 * unknown. Returns the warnings issued (0: the whole file was valid).
 */
unsigned long hvt_ctf_registry_load(struct hvt_registry *reg, const char *path,
				    const char *name);
/*
 * The same from byte *@at on, which is then where it stopped (SIZE_MAX
 * after a bad record: nothing more is taken). With @growing, the file is
 * being appended to: a record at its end that is not whole yet is left for
 * the next call, not a warning.
 */
unsigned long hvt_ctf_registry_load_more(struct hvt_registry *reg, const char *path,
					 const char *name, size_t *at, bool growing);

/* Payload fields (ctf_fields.c). */

/* Writes " name=value" for each field, in registry order; field @sub->name, if @sub, as @sub->text. */
void hvt_ctf_print_fields(struct hvt_text *t, const struct hvt_ctf_event *ev,
			  const struct hvt_field_subst *sub);
/*
 * Writes ,"name":value for each field: integers as numbers (hex ones as
 * "0x.." strings), arrays as arrays, strings and text arrays as strings, a
 * blob as {"blob":"DECODER","bytes":N}; field @sub->name, if @sub, as the
 * string @sub->text.
 */
void hvt_ctf_json_fields(struct hvt_text *t, const struct hvt_ctf_event *ev,
			 const struct hvt_field_subst *sub);
/*
 * The integer field @name of @ev (signed ones sign-extended): 0, or -1 if
 * the event has no integer field of that name.
 */
int hvt_ctf_field_u64(const struct hvt_ctf_event *ev, const char *name, uint64_t *v);
/*
 * The text field @name of @ev (a string, or a char array with the text
 * flag), cut at its first NUL and to @len - 1 bytes, in @buf: 0, or -1 if
 * the event has no text field of that name.
 */
int hvt_ctf_field_text(const struct hvt_ctf_event *ev, const char *name, char *buf, size_t len);

/*
 * Fields of an event read by their place in its type, in one walk: the
 * decoders' way to read several fields of every event of a type, where
 * looking each up by name would walk the payload once per field.
 */
struct hvt_field_pick {
	int index;		/* the field's place in the event's type; -1: none */
	uint64_t *num;		/* an integer field: its value here */
	char *text;		/* a text field: here, as hvt_ctf_field_text() cuts it */
	size_t len;
};

/* The place of field @name in @ev's type, or -1 if it has none of that name. */
int hvt_ctf_field_index(const struct hvt_ctf_event *ev, const char *name);
/*
 * Each pick of @picks whose field @ev has, of the kind asked, in one walk:
 * how many were read. A pick not read keeps its destination as it was.
 */
unsigned int hvt_ctf_fields_pick(const struct hvt_ctf_event *ev, const struct hvt_field_pick *picks,
				 unsigned int n);

#endif
