/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsdl.h - rendering the CTF 1.8 metadata (TSDL text) of an hvtrace trace
 * from its registry. The layout it declares is the one of hvtrace/ctf.h.
 */
#ifndef HVT_LIB_TSDL_H
#define HVT_LIB_TSDL_H

#include <stdio.h>

#include <hvtrace/ctf.h>
#include "lib/event_registry.h"

struct hvt_tsdl_trace {
	const __u8 *uuid;		/* HVT_UUID_LEN bytes */
	const char *clock_name;		/* identifier, e.g. "guest_tsc" */
	const char *clock_description;
	__u64 freq_hz;
	const char *domain;		/* env.domain: "kernel" or "ust" */
	const char *vm;			/* env.hvtrace_vm, may be NULL */
	unsigned int pid;		/* env.hvtrace_pid when non-zero */
};

/*
 * The description of a guest trace as the collector renders it: its clock
 * by @domain (HVT_DOMAIN_*), its env by @layer (HVT_LAYER_*), @vm and @pid.
 */
void hvt_tsdl_guest_trace(struct hvt_tsdl_trace *t, const __u8 *uuid, unsigned int layer,
			  unsigned int domain, __u64 freq_hz, const char *vm, unsigned int pid);
/* A malloc'd NUL-terminated TSDL text, or NULL if out of memory. */
char *hvt_tsdl_render(const struct hvt_tsdl_trace *t, const struct hvt_registry *r);
/*
 * The same in pieces, for a metadata file that only grows: with @t, the
 * head; then the events of @r whose bit in @declared (one per id) is clear,
 * which are then set. TSDL declarations may follow each other in any order,
 * so the pieces appended one after the other declare what hvt_tsdl_render()
 * declares (events in the order they came).
 */
#define HVT_TSDL_DECLARED_BYTES	(HVT_REG_MAX_EVENTS / 8)
char *hvt_tsdl_render_new(const struct hvt_tsdl_trace *t, const struct hvt_registry *r,
			  unsigned char declared[HVT_TSDL_DECLARED_BYTES]);
void hvt_uuid_format(const __u8 *uuid, char out[37]);
/* One event's declaration, as the texts above hold it; NULL if out of memory. */
char *hvt_tsdl_render_event(const struct hvt_event_type *ev);

/* Pieces of the text, for other writers of TSDL (tools/ctf_out.c). */

/* The CTF 1.8 comment line, and typealiases uint8_t ... uint64_t and int32_t. */
void hvt_tsdl_put_int_aliases(FILE *f);
/* The body of a TSDL string literal: quotes and backslashes escaped, controls dropped. */
void hvt_tsdl_put_escaped(FILE *f, const char *s);
/* integer { size = @bits; ... } with HVT_FIELD_F_* @flags: sign, base 16, UTF8 text. */
void hvt_tsdl_put_int_type(FILE *f, unsigned int bits, unsigned int flags);
/* One registry field as a member line of a TSDL struct: "\t\tTYPE _NAME;\n". */
void hvt_tsdl_put_field(FILE *f, const struct hvt_reg_field *fd);

#endif
