/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * hvtrace.h - libhvtrace: the guest trace clock and user tracepoints.
 *
 *   cc app.c $(pkg-config --cflags --libs hvtrace)
 *
 * Clock. hvt_clock_read() returns the raw trace clock: the guest TSC, the
 * same value the guest kernel module stamps its events with, read without a
 * syscall. hvt_clock_host_ns() turns "now" into host CLOCK_MONOTONIC ns with
 * the transform the host collector published through the module's clock page.
 * Without the module (not a guest, module not loaded) the library falls back
 * to CLOCK_MONOTONIC_RAW for the whole life of the process and says so in
 * hvt_clock_info(); it never mixes the two domains.
 *
 * Tracepoints. Define an event once, in a header, with the five parts of the
 * kernel's TRACE_EVENT (see hvtrace/event.h for the field tuples):
 *
 *   HVT_TRACEPOINT_EVENT(myapp, request,
 *	HVT_PROTO(uint64_t id, uint64_t bytes, uint64_t usecs),
 *	HVT_ARGS(id, bytes, usecs),
 *	HVT_FIELDS((int, uint64_t, id), (int, uint64_t, bytes),
 *		   (int, uint64_t, usecs)),
 *	HVT_ASSIGN(__entry->id = id; __entry->bytes = bytes;
 *		   __entry->usecs = usecs;),
 *	HVT_PRINT("id=%lu bytes=%lu usecs=%lu"))
 *
 * and emit it with hvt_tracepoint(myapp, request, id, bytes, usecs). The call
 * is a typed inline function; while the event is disabled it costs one
 * predictable branch. Events are enabled while the guest agent
 * (hvtrace agent) records; the README lists the environment variables.
 */
#ifndef HVTRACE_HVTRACE_H
#define HVTRACE_HVTRACE_H

#include <stdint.h>
#include <hvtrace/event.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hvt_clock_source {
	HVT_CLOCK_GUEST_TSC = 1,	/* the module's clock: aligned with the host */
	HVT_CLOCK_MONOTONIC_RAW = 2,	/* fallback: this machine only, not aligned */
};

struct hvt_clock_info {
	enum hvt_clock_source source;
	uint64_t freq_hz;		/* ticks of hvt_clock_read() per second */
	uint64_t generation;		/* changes with every new host transform */
	uint64_t error_ns;		/* bound of hvt_clock_host_ns(); UINT64_MAX: none */
	int synced;			/* 1 if a host transform is published */
};

uint64_t hvt_clock_read(void);
int64_t hvt_clock_host_ns(void);
int hvt_clock_info(struct hvt_clock_info *info);

/* One per definition of an event in a translation unit. */
struct hvt_event {
	const char *name;		/* "provider:event" */
	const struct hvt_reg_field *fields;
	unsigned int nr_fields;
	const char *print_fmt;
	unsigned int payload_size;
	volatile int enabled;		/* read by the call site */
	uint32_t id;			/* set by hvt_event_register() */
	struct hvt_event *next;
};

/* An event being written; filled by hvt_event_reserve(). */
struct hvt_write {
	void *buffer;
	uint64_t ts;
	uint64_t end;
};

/* Copies text into a fixed-size (text, NAME, LEN) field, zero-filling the rest. */
static inline void hvt_text_copy(char *dst, const char *src, unsigned int size)
{
	unsigned int i = 0;

	for (; i < size && src[i]; i++)
		dst[i] = src[i];
	for (; i < size; i++)
		dst[i] = '\0';
}

void hvt_event_register(struct hvt_event *event);
void *hvt_event_reserve(struct hvt_event *event, unsigned int size, struct hvt_write *w);
void hvt_event_commit(struct hvt_write *w);

#define HVT_TRACEPOINT_EVENT(_prov, _name, _proto, _args, _fields, _assign, _print) \
	HVT_EVENT_RECORD(hvt_rec_##_prov##_##_name, _fields);			\
	HVT_EVENT_FIELD_TABLE(hvt_fields_##_prov##_##_name, _fields);		\
	static struct hvt_event hvt_event_##_prov##_##_name = {			\
		#_prov ":" #_name,						\
		hvt_fields_##_prov##_##_name,					\
		sizeof(hvt_fields_##_prov##_##_name) /				\
			sizeof(hvt_fields_##_prov##_##_name[0]),		\
		_print,								\
		sizeof(struct hvt_rec_##_prov##_##_name),			\
		0, 0, 0,							\
	};									\
	__attribute__((constructor)) static void				\
	hvt_register_##_prov##_##_name(void)					\
	{									\
		hvt_event_register(&hvt_event_##_prov##_##_name);		\
	}									\
	static inline void hvt_trace_##_prov##_##_name(_proto)			\
	{									\
		struct hvt_rec_##_prov##_##_name *__entry;			\
		struct hvt_write __w;						\
									\
		if (__builtin_expect(!hvt_event_##_prov##_##_name.enabled, 1))	\
			return;							\
		__entry = (struct hvt_rec_##_prov##_##_name *)			\
			hvt_event_reserve(&hvt_event_##_prov##_##_name,		\
					  sizeof(*__entry), &__w);		\
		if (!__entry)							\
			return;							\
		_assign								\
		hvt_event_commit(&__w);						\
	}

#define hvt_tracepoint(_prov, _name, ...) hvt_trace_##_prov##_##_name(__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* HVTRACE_HVTRACE_H */
