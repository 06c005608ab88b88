// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_registry.c - registry records: what the event macros generate is
 * accepted; every way a record can be broken is refused, and a refused
 * update leaves the registry as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <hvtrace/event.h>

#include "lib/event_registry.h"

/* An event defined the way applications and the module define them. */
HVT_EVENT_RECORD(rec_sample, HVT_FIELDS((int, uint64_t, a), (int, int32_t, b),
					(hex, uint16_t, c), (text, comm, 16),
					(array, uint32_t, v, 3)));
HVT_EVENT_FIELD_TABLE(fields_sample, HVT_FIELDS((int, uint64_t, a), (int, int32_t, b),
						 (hex, uint16_t, c), (text, comm, 16),
						 (array, uint32_t, v, 3)));
#define NFIELDS (sizeof(fields_sample) / sizeof(fields_sample[0]))

static unsigned char buf[8192];

static uint32_t make(uint32_t id, const char *name)
{
	return hvt_reg_event_write(buf, id, name, fields_sample, NFIELDS, "a=%lu b=%d");
}

static void test_macros_describe_the_record(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct rec_sample), 8 + 4 + 2 + 16 + 12);
	assert_int_equal(fields_sample[0].int_bits, 64);
	assert_int_equal(fields_sample[0].flags, 0);
	assert_int_equal(fields_sample[1].flags, HVT_FIELD_F_SIGNED);
	assert_int_equal(fields_sample[2].flags, HVT_FIELD_F_HEX);
	assert_int_equal(fields_sample[3].kind, HVT_FIELD_ARRAY);
	assert_int_equal(fields_sample[3].flags, HVT_FIELD_F_TEXT);
	assert_int_equal(fields_sample[3].length, 16);
	assert_int_equal(fields_sample[4].int_bits, 32);
	assert_int_equal(fields_sample[4].length, 3);
	assert_string_equal(fields_sample[4].name, "v");
}

static void test_valid_record(void **state)
{
	struct hvt_registry r;
	const struct hvt_event_type *ev;
	char err[128];
	uint32_t n = make(7, "app:sample");

	(void)state;
	hvt_registry_init(&r);
	assert_int_equal(hvt_registry_add(&r, buf, n, err, sizeof(err)), 1);
	ev = hvt_registry_get(&r, 7);
	assert_non_null(ev);
	assert_string_equal(ev->name, "app:sample");
	assert_int_equal(ev->nr_fields, NFIELDS);
	assert_string_equal(ev->print_fmt, "a=%lu b=%d");
	/* The same record again is fine and adds nothing. */
	assert_int_equal(hvt_registry_add(&r, buf, n, err, sizeof(err)), 0);
	assert_null(hvt_registry_get(&r, 6));
	hvt_registry_free(&r);
}

/*
 * Breaks one thing in a good record; the registry must refuse it for that
 * reason: @what is part of lib/registry.c's message for the check meant.
 */
static void expect_refused(void (*breakit)(unsigned char *), const char *what)
{
	struct hvt_registry r;
	char err[128] = "";
	uint32_t n = make(3, "ok");

	breakit(buf);
	hvt_registry_init(&r);
	assert_int_equal(hvt_registry_add(&r, buf, n, err, sizeof(err)), -1);
	if (!strstr(err, what))
		fail_msg("refused with '%s', expected a message with '%s'", err, what);
	assert_null(hvt_registry_get(&r, 3));
	hvt_registry_free(&r);
}

#define FIELD0 (sizeof(struct hvt_reg_event))
static void bad_magic(unsigned char *p) { p[0] ^= 1; }
static void bad_size(unsigned char *p) { p[4] += 8; }
static void bad_id(unsigned char *p) { hvt_put_u32(p + 8, HVT_REG_MAX_EVENTS); }
static void bad_name(unsigned char *p) { p[16] = '/'; }
static void unterminated_name(unsigned char *p) { memset(p + 16, 'a', HVT_NAME_MAX); }
static void bad_kind(unsigned char *p) { p[FIELD0 + 32] = 9; }
static void bad_bits(unsigned char *p) { p[FIELD0 + 33] = 12; }
static void bad_field_name(unsigned char *p) { p[FIELD0] = '9'; }
static void dup_field(unsigned char *p) { memcpy(p + FIELD0 + sizeof(struct hvt_reg_field), "a", 2); }
static void bad_fmt(unsigned char *p)
{
	uint32_t size = hvt_get_u32(p + 4);

	memset(p + FIELD0 + NFIELDS * sizeof(struct hvt_reg_field), 'x', size - FIELD0 -
	       NFIELDS * sizeof(struct hvt_reg_field));
}
/* nr_fields past the limit, everything else (print_fmt_len) within it */
static void too_many_fields(unsigned char *p)
{
	__u16 nr = HVT_REG_MAX_FIELDS + 1, fmt_len;

	memcpy(p + offsetof(struct hvt_reg_event, nr_fields), &nr, sizeof(nr));
	memcpy(&fmt_len, p + offsetof(struct hvt_reg_event, print_fmt_len), sizeof(fmt_len));
	assert_true(fmt_len >= 1 && fmt_len <= HVT_REG_MAX_FMT);
}

static void test_broken_records(void **state)
{
	(void)state;
	expect_refused(bad_magic, "bad registry record magic");
	expect_refused(bad_size, "record size inconsistent");
	expect_refused(bad_id, "too large");
	expect_refused(bad_name, "invalid event name");
	expect_refused(unterminated_name, "invalid event name");
	expect_refused(bad_kind, "unknown kind");
	expect_refused(bad_bits, "bad integer");
	expect_refused(bad_field_name, "invalid field name");
	expect_refused(dup_field, "duplicate field");
	expect_refused(bad_fmt, "print format not terminated");
	expect_refused(too_many_fields, "record out of limits");
}

static void test_truncated_input(void **state)
{
	struct hvt_registry r;
	char err[128];
	uint32_t n = make(1, "ok"), cut;

	(void)state;
	hvt_registry_init(&r);
	for (cut = 1; cut < n; cut += 7)
		assert_int_equal(hvt_registry_add(&r, buf, cut, err, sizeof(err)), -1);
	assert_int_equal(r.nr_events, 0);
	hvt_registry_free(&r);
}

/* A conflicting redefinition is refused, and the whole update with it. */
static void test_redefinition(void **state)
{
	struct hvt_registry r;
	char err[128];
	unsigned char two[16384];
	uint32_t n1, n2;

	(void)state;
	hvt_registry_init(&r);
	n1 = make(1, "first");
	assert_int_equal(hvt_registry_add(&r, buf, n1, err, sizeof(err)), 1);
	/* update = a new event 2, then event 1 with another name */
	n2 = make(2, "second");
	memcpy(two, buf, n2);
	n1 = make(1, "other");
	memcpy(two + n2, buf, n1);
	assert_int_equal(hvt_registry_add(&r, two, n1 + n2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "redefined"));
	assert_null(hvt_registry_get(&r, 2));
	assert_string_equal(hvt_registry_get(&r, 1)->name, "first");
	hvt_registry_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macros_describe_the_record),
		cmocka_unit_test(test_valid_record),
		cmocka_unit_test(test_broken_records),
		cmocka_unit_test(test_truncated_input),
		cmocka_unit_test(test_redefinition),
	};

	return cmocka_run_group_tests_name("registry", tests, NULL, NULL);
}
