/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * textout.h - the few pieces merged lines are made of, written without
 * printf: merging prints millions of lines, and format parsing was most of
 * the time it took. All use the stream unlocked: the commands are
 * single-threaded.
 */
#ifndef HVT_TOOLS_TEXTOUT_H
#define HVT_TOOLS_TEXTOUT_H

#include <stdint.h>
#include <stdio.h>

void hvt_out_str(FILE *out, const char *s);
/* @s left-aligned in @width columns, then one space. */
void hvt_out_col(FILE *out, const char *s, unsigned int width);
void hvt_out_u64(FILE *out, uint64_t v);
void hvt_out_s64(FILE *out, int64_t v);
void hvt_out_hex(FILE *out, uint64_t v);	/* 0x1f */
/* Decimal digits of @v into @buf (at least 21 bytes), NUL-terminated; returns the length. */
unsigned int hvt_u64_text(char *buf, uint64_t v);

#endif
