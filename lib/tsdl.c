// SPDX-License-Identifier: GPL-2.0-only
/*
 * Field names are written with a leading underscore, as LTTng does: CTF
 * readers strip one leading underscore, and it keeps names such as "id" or
 * "string" from clashing with TSDL keywords.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <hvtrace/wire.h>
#include "lib/tsdl.h"

/*
 * The TSDL below spells out the layout of hvtrace/ctf.h; its numbers come
 * from there, and the field lists it writes out must add up to its sizes.
 */
#define ID_BITS		HVT_CTF_COMPACT_ID_BITS
#define TS_BITS		HVT_CTF_COMPACT_TS_BITS

_Static_assert(HVT_CTF_PACKET_HEADER_SIZE == 4 + HVT_UUID_LEN + 4 + 8 + 6 * 8 + 4,
	       "packet.header and packet_context below list struct hvt_ctf_packet");
_Static_assert(ID_BITS + TS_BITS == 8 * HVT_CTF_COMPACT_HEADER_SIZE,
	       "the compact event header is one 32-bit word");
_Static_assert(HVT_CTF_EXTENDED_ID == (1u << ID_BITS) - 1,
	       "the extended id is the largest compact id");
_Static_assert(HVT_CTF_EXTENDED_HEADER_SIZE == 1 + 4 + 8,
	       "the extended header: id byte, u32 id, u64 timestamp");
_Static_assert(HVT_CTF_EVENT_CONTEXT_SIZE == 4 + 4, "event.context: cpu_id, tid");

void hvt_uuid_format(const __u8 *u, char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		 u[11], u[12], u[13], u[14], u[15]);
}

/* Names were validated, this is belt and braces. */
void hvt_tsdl_put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20 && *s != 0x7f)
			fputc(*s, f);
	}
}

void hvt_tsdl_put_int_type(FILE *f, unsigned int bits, unsigned int flags)
{
	fprintf(f, "integer { size = %u; align = 8; signed = %s; base = %u;%s }",
		bits, (flags & HVT_FIELD_F_SIGNED) ? "true" : "false",
		(flags & HVT_FIELD_F_HEX) ? 16 : 10,
		(flags & HVT_FIELD_F_TEXT) ? " encoding = UTF8;" : "");
}

void hvt_tsdl_put_field(FILE *f, const struct hvt_reg_field *fd)
{
	fputs("\t\t", f);
	switch (fd->kind) {
	case HVT_FIELD_INT:
		hvt_tsdl_put_int_type(f, fd->int_bits, fd->flags);
		fprintf(f, " _%s;\n", fd->name);
		break;
	case HVT_FIELD_ARRAY:
		hvt_tsdl_put_int_type(f, fd->int_bits, fd->flags);
		fprintf(f, " _%s[%u];\n", fd->name, fd->length);
		break;
	case HVT_FIELD_STRING:
		fprintf(f, "string { encoding = UTF8; } _%s;\n", fd->name);
		break;
	case HVT_FIELD_BLOB:
		fprintf(f, "uint32_t _%s_len;\n\t\tuint8_t _%s[_%s_len];\n",
			fd->name, fd->name, fd->name);
		break;
	}
}

static void put_event(FILE *f, const struct hvt_event_type *ev)
{
	unsigned int i;

	fputs("event {\n\tname = \"", f);
	hvt_tsdl_put_escaped(f, ev->name);
	fprintf(f, "\";\n\tid = %u;\n\tstream_id = %u;\n\tfields := struct {\n",
		ev->id, HVT_CTF_STREAM_EVENTS);
	for (i = 0; i < ev->nr_fields; i++)
		hvt_tsdl_put_field(f, &ev->fields[i]);
	fputs("\t} align(8);\n};\n\n", f);
}

void hvt_tsdl_put_int_aliases(FILE *f)
{
	fputs("/* CTF 1.8 */\n\n"
	      "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	      "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	      "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	      "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n", f);
}

static void put_preamble(FILE *f, const struct hvt_tsdl_trace *t)
{
	char uuid[37];

	hvt_uuid_format(t->uuid, uuid);
	hvt_tsdl_put_int_aliases(f);
	fprintf(f, "typealias integer { size = %u; align = 1; signed = false; } := uint%u_t;\n\n",
		ID_BITS, ID_BITS);
	fprintf(f, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n"
		"\tbyte_order = le;\n\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n\t\tuint8_t uuid[%u];\n\t\tuint32_t stream_id;\n"
		"\t\tuint64_t stream_instance_id;\n\t} align(8);\n};\n\n", uuid, HVT_UUID_LEN);
	fprintf(f, "env {\n\ttracer_name = \"hvtrace\";\n\ttracer_major = 0;\n"
		"\ttracer_minor = 1;\n\tdomain = \"");
	hvt_tsdl_put_escaped(f, t->domain);
	fputs("\";\n", f);
	if (t->vm) {
		fputs("\thvtrace_vm = \"", f);
		hvt_tsdl_put_escaped(f, t->vm);
		fputs("\";\n", f);
	}
	if (t->pid)
		fprintf(f, "\thvtrace_pid = %u;\n", t->pid);
	fputs("};\n\n", f);
}

static void put_clock_and_stream(FILE *f, const struct hvt_tsdl_trace *t)
{
	const char *c = t->clock_name;

	fprintf(f, "clock {\n\tname = \"%s\";\n\tdescription = \"", c);
	hvt_tsdl_put_escaped(f, t->clock_description);
	fprintf(f, "\";\n\tfreq = %llu;\n\tprecision = 1;\n\toffset_s = 0;\n"
		"\toffset = 0;\n\tabsolute = FALSE;\n};\n\n", (unsigned long long)t->freq_hz);
	fprintf(f, "typealias integer { size = %u; align = 1; signed = false; "
		"map = clock.%s.value; } := uint%u_clock_t;\n", TS_BITS, c, TS_BITS);
	fprintf(f, "typealias integer { size = 64; align = 8; signed = false; "
		"map = clock.%s.value; } := uint64_clock_t;\n\n", c);
	fputs("struct packet_context {\n\tuint64_clock_t timestamp_begin;\n"
	      "\tuint64_clock_t timestamp_end;\n\tuint64_t content_size;\n"
	      "\tuint64_t packet_size;\n\tuint64_t packet_seq_num;\n"
	      "\tuint64_t events_discarded;\n\tuint32_t cpu_id;\n} align(8);\n\n", f);
	fprintf(f, "struct event_header_compact {\n"
		"\tenum : uint%u_t { compact = 0 ... %u, extended = %u } id;\n"
		"\tvariant <id> {\n"
		"\t\tstruct { uint%u_clock_t timestamp; } compact;\n"
		"\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
		"\t} v;\n} align(8);\n\n", ID_BITS, HVT_CTF_EXTENDED_ID - 1,
		HVT_CTF_EXTENDED_ID, TS_BITS);
	fprintf(f, "stream {\n\tid = %u;\n\tevent.header := struct event_header_compact;\n"
		"\tpacket.context := struct packet_context;\n"
		"\tevent.context := struct {\n\t\tuint32_t _cpu_id;\n\t\tint32_t _tid;\n"
		"\t} align(8);\n};\n\n", HVT_CTF_STREAM_EVENTS);
}

/* The head (with @t) and the events of @r not yet in @declared, which they join. */
static char *render(const struct hvt_tsdl_trace *t, const struct hvt_registry *r,
		    unsigned char *declared)
{
	char *text = NULL;
	size_t len = 0;
	unsigned int id;
	FILE *f;

	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	if (t) {
		put_preamble(f, t);
		put_clock_and_stream(f, t);
	}
	for (id = 0; id < HVT_REG_MAX_EVENTS; id++) {
		const struct hvt_event_type *ev = hvt_registry_get(r, id);

		if (!ev || (declared && declared[id / 8] & (1u << (id % 8))))
			continue;
		put_event(f, ev);
		if (declared)
			declared[id / 8] |= (unsigned char)(1u << (id % 8));
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

char *hvt_tsdl_render(const struct hvt_tsdl_trace *t, const struct hvt_registry *r)
{
	return render(t, r, NULL);
}

char *hvt_tsdl_render_new(const struct hvt_tsdl_trace *t, const struct hvt_registry *r,
			  unsigned char declared[HVT_TSDL_DECLARED_BYTES])
{
	return render(t, r, declared);
}

void hvt_tsdl_guest_trace(struct hvt_tsdl_trace *t, const __u8 *uuid, unsigned int layer,
			  unsigned int domain, __u64 freq_hz, const char *vm, unsigned int pid)
{
	*t = (struct hvt_tsdl_trace){
		.uuid = uuid,
		.clock_name = domain == HVT_DOMAIN_GUEST_TSC ? "guest_tsc" :
			      domain == HVT_DOMAIN_TSC ? "host_tsc" : "monotonic_raw",
		.clock_description = domain == HVT_DOMAIN_GUEST_TSC ?
			"guest TSC (raw RDTSC in the VM)" : domain == HVT_DOMAIN_TSC ?
			"host TSC (raw RDTSC on the host)" :
			"CLOCK_MONOTONIC_RAW of its machine (not aligned with the host)",
		.freq_hz = freq_hz,
		.domain = layer == HVT_LAYER_KERNEL ? "kernel" : "ust",
		.vm = vm,
		.pid = pid,
	};
}

char *hvt_tsdl_render_event(const struct hvt_event_type *ev)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	put_event(f, ev);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
