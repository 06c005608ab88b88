/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * event.h - the part of an event definition shared by kernel and user space.
 *
 * An event is defined once, with the five parts of the kernel's TRACE_EVENT:
 *
 *   HVT_PROTO(...)   the typed prototype of the call site
 *   HVT_ARGS(...)    the argument names
 *   HVT_FIELDS(...)  the record layout, one tuple per field:
 *                      (int, TYPE, NAME)        integer, signedness from TYPE
 *                      (hex, TYPE, NAME)        integer printed in hex
 *                      (text, NAME, LEN)        char NAME[LEN], text
 *                      (array, TYPE, NAME, LEN) TYPE NAME[LEN]
 *                      (string, NAME)           NUL-terminated, any length
 *                      (blob, NAME, DECODER)    __u32 NAME_len, then the bytes,
 *                                               parsed by the decoder DECODER
 *                    string and blob have no fixed size: one of them, last,
 *                    and the event says how many bytes it adds (kernel:
 *                    HVTRACE_OWN_EVENT_DYN)
 *   HVT_ASSIGN(...)  the fast assignment, writing __entry->NAME
 *   HVT_PRINT(fmt)   the print format
 *
 * From HVT_FIELDS this header generates the packed record struct (written in
 * place into the ring buffer) and the field table of the registry record
 * (hvtrace/registry.h) that describes it, so the layout and its description
 * cannot disagree. The kernel (guest-kmod/hvtrace_event.h) and the user
 * library (hvtrace/hvtrace.h) add their probe and registration around it.
 */
#ifndef HVTRACE_EVENT_H
#define HVTRACE_EVENT_H

#include <hvtrace/registry.h>

#define HVT_PROTO(...)		__VA_ARGS__
#define HVT_ARGS(...)		__VA_ARGS__
#define HVT_FIELDS(...)		(__VA_ARGS__)
#define HVT_ASSIGN(...)		__VA_ARGS__
#define HVT_PRINT(fmt)		fmt
#define HVT_UNPACK(...)		__VA_ARGS__

/* Apply M to each of up to 24 arguments. */
#define HVT_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14,	\
		   _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, N, ...) N
#define HVT_NARGS(...)								\
	HVT_NARGS_(__VA_ARGS__, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,	\
		   12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define HVT_CAT_(a, b)		a##b
#define HVT_CAT(a, b)		HVT_CAT_(a, b)
#define HVT_FE_1(M, x)		M x
#define HVT_FE_2(M, x, ...)	M x HVT_FE_1(M, __VA_ARGS__)
#define HVT_FE_3(M, x, ...)	M x HVT_FE_2(M, __VA_ARGS__)
#define HVT_FE_4(M, x, ...)	M x HVT_FE_3(M, __VA_ARGS__)
#define HVT_FE_5(M, x, ...)	M x HVT_FE_4(M, __VA_ARGS__)
#define HVT_FE_6(M, x, ...)	M x HVT_FE_5(M, __VA_ARGS__)
#define HVT_FE_7(M, x, ...)	M x HVT_FE_6(M, __VA_ARGS__)
#define HVT_FE_8(M, x, ...)	M x HVT_FE_7(M, __VA_ARGS__)
#define HVT_FE_9(M, x, ...)	M x HVT_FE_8(M, __VA_ARGS__)
#define HVT_FE_10(M, x, ...)	M x HVT_FE_9(M, __VA_ARGS__)
#define HVT_FE_11(M, x, ...)	M x HVT_FE_10(M, __VA_ARGS__)
#define HVT_FE_12(M, x, ...)	M x HVT_FE_11(M, __VA_ARGS__)
#define HVT_FE_13(M, x, ...)	M x HVT_FE_12(M, __VA_ARGS__)
#define HVT_FE_14(M, x, ...)	M x HVT_FE_13(M, __VA_ARGS__)
#define HVT_FE_15(M, x, ...)	M x HVT_FE_14(M, __VA_ARGS__)
#define HVT_FE_16(M, x, ...)	M x HVT_FE_15(M, __VA_ARGS__)
#define HVT_FE_17(M, x, ...)	M x HVT_FE_16(M, __VA_ARGS__)
#define HVT_FE_18(M, x, ...)	M x HVT_FE_17(M, __VA_ARGS__)
#define HVT_FE_19(M, x, ...)	M x HVT_FE_18(M, __VA_ARGS__)
#define HVT_FE_20(M, x, ...)	M x HVT_FE_19(M, __VA_ARGS__)
#define HVT_FE_21(M, x, ...)	M x HVT_FE_20(M, __VA_ARGS__)
#define HVT_FE_22(M, x, ...)	M x HVT_FE_21(M, __VA_ARGS__)
#define HVT_FE_23(M, x, ...)	M x HVT_FE_22(M, __VA_ARGS__)
#define HVT_FE_24(M, x, ...)	M x HVT_FE_23(M, __VA_ARGS__)
#define HVT_FOR_EACH(M, ...)	HVT_CAT(HVT_FE_, HVT_NARGS(__VA_ARGS__))(M, __VA_ARGS__)

/* Record members, one per field tuple. */
#define HVT_MEMBER_(kind, ...)		HVT_MEMBER_##kind(__VA_ARGS__)
#define HVT_MEMBER_int(type, name)	type name;
#define HVT_MEMBER_hex(type, name)	type name;
#define HVT_MEMBER_text(name, len)	char name[len];
#define HVT_MEMBER_array(type, name, len) type name[len];
#define HVT_MEMBER_string(name)		char name[];
#define HVT_MEMBER_blob(name, decoder)	__u32 name##_len; __u8 name[];

/* Registry field descriptions, one per field tuple. */
#define HVT_IS_SIGNED(type)		((type)-1 < (type)1)
#define HVT_INT_FLAGS(type)		(HVT_IS_SIGNED(type) ? HVT_FIELD_F_SIGNED : 0)
#define HVT_DESC_(kind, ...)		HVT_DESC_##kind(__VA_ARGS__)
#define HVT_DESC_int(type, name)						\
	{ #name, HVT_FIELD_INT, sizeof(type) * 8, HVT_INT_FLAGS(type), 0, 0, "" },
#define HVT_DESC_hex(type, name)						\
	{ #name, HVT_FIELD_INT, sizeof(type) * 8,				\
	  HVT_INT_FLAGS(type) | HVT_FIELD_F_HEX, 0, 0, "" },
#define HVT_DESC_text(name, len)						\
	{ #name, HVT_FIELD_ARRAY, 8, HVT_FIELD_F_TEXT, 0, len, "" },
#define HVT_DESC_array(type, name, len)						\
	{ #name, HVT_FIELD_ARRAY, sizeof(type) * 8, HVT_INT_FLAGS(type), 0, len, "" },
#define HVT_DESC_string(name)							\
	{ #name, HVT_FIELD_STRING, 8, 0, 0, 0, "" },
#define HVT_DESC_blob(name, decoder)						\
	{ #name, HVT_FIELD_BLOB, 8, 0, 0, 0, decoder },

/* struct TAG: the packed record an event's payload is, as HVT_FIELDS says. */
#define HVT_EVENT_RECORD(tag, fields)						\
	struct tag { HVT_FOR_EACH(HVT_MEMBER_, HVT_UNPACK fields) } __attribute__((packed))

/*
 * A name of HVT_FIELD_NAME_MAX characters would still initialise the char
 * array, silently without its NUL: refuse it at compile time (C11 in the
 * kernel and C, static_assert in C++ applications).
 */
#ifdef __cplusplus
#define HVT_STATIC_ASSERT(cond, msg)	static_assert(cond, msg)
#else
#define HVT_STATIC_ASSERT(cond, msg)	_Static_assert(cond, msg)
#endif
#define HVT_FIELD_NAME_FITS(name)						\
	HVT_STATIC_ASSERT(sizeof(#name) <= HVT_FIELD_NAME_MAX,			\
			  "field name " #name " is longer than HVT_FIELD_NAME_MAX - 1");
#define HVT_NAME_CHECK_(kind, ...)	HVT_NAME_CHECK_##kind(__VA_ARGS__)
#define HVT_NAME_CHECK_int(type, name)	HVT_FIELD_NAME_FITS(name)
#define HVT_NAME_CHECK_hex(type, name)	HVT_FIELD_NAME_FITS(name)
#define HVT_NAME_CHECK_text(name, len)	HVT_FIELD_NAME_FITS(name)
#define HVT_NAME_CHECK_array(type, name, len) HVT_FIELD_NAME_FITS(name)
#define HVT_NAME_CHECK_string(name)	HVT_FIELD_NAME_FITS(name)
#define HVT_NAME_CHECK_blob(name, decoder) HVT_FIELD_NAME_FITS(name)		\
	HVT_STATIC_ASSERT(sizeof(decoder) <= HVT_DECODER_NAME_MAX,		\
			  "decoder name of " #name " is longer than HVT_DECODER_NAME_MAX - 1");

/* const struct hvt_reg_field TAG[]: the registry description of the record. */
#define HVT_EVENT_FIELD_TABLE(tag, fields)					\
	HVT_FOR_EACH(HVT_NAME_CHECK_, HVT_UNPACK fields)			\
	static const struct hvt_reg_field tag[] = {				\
		HVT_FOR_EACH(HVT_DESC_, HVT_UNPACK fields)			\
	}

#endif /* HVTRACE_EVENT_H */
