/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsdl.h - rendering the CTF 1.8 metadata (TSDL text) of an hvtrace trace
 * from its registry. The layout it declares is the one of hvtrace/ctf.h.
 */
#ifndef HVT_TSDL_H
#define HVT_TSDL_H

#include <hvtrace/ctf.h>
#include "lib/registry.h"

struct hvt_tsdl_trace {
	const __u8 *uuid;		/* HVT_UUID_LEN bytes */
	const char *clock_name;		/* identifier, e.g. "guest_tsc" */
	const char *clock_description;
	__u64 freq_hz;
	const char *domain;		/* env.domain: "kernel" or "ust" */
	const char *vm;			/* env.hvtrace_vm, may be NULL */
	unsigned int pid;		/* env.hvtrace_pid when non-zero */
};

/* A malloc'd NUL-terminated TSDL text, or NULL if out of memory. */
char *hvt_tsdl_render(const struct hvt_tsdl_trace *t, const struct hvt_registry *r);
void hvt_uuid_format(const __u8 *uuid, char out[37]);

#endif
