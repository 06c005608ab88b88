// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tsdl.c - the TSDL metadata hvtrace renders describes its packets:
 * a trace written with the real ring buffer and metadata from
 * hvt_tsdl_render() is decoded by babeltrace2, field for field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <hvtrace/event.h>
#include <hvtrace/ringbuf.h>

#include "lib/fileio.h"
#include "lib/event_registry.h"
#include "lib/tsdl.h"

HVT_EVENT_RECORD(rec_t, HVT_FIELDS((int, uint64_t, seq), (int, int32_t, delta),
				   (hex, uint32_t, flags), (text, comm, 16)));
HVT_EVENT_FIELD_TABLE(fields_t, HVT_FIELDS((int, uint64_t, seq), (int, int32_t, delta),
					    (hex, uint32_t, flags), (text, comm, 16)));

#define SUBBUF 4096u
#define NR 8u
#define EVENTS 300

static char dir[] = "/tmp/hvtrace-test-tsdl-XXXXXX";

static uint64_t ts_of(int i)
{
	return 1000000 + (uint64_t)i * 1000 + (i > 150 ? (1ull << 28) : 0);
}

/* Writes every ready packet to @f, trimmed to its content. */
static void drain(const struct hvt_rb_prod *prod, struct hvt_rb_cons *cons,
		  unsigned char *data, FILE *f)
{
	while (hvt_rb_ready(prod, cons->consumed, NR) > 0) {
		unsigned char *p = hvt_rb_slot(data, SUBBUF, NR, cons->consumed);
		uint64_t bits = hvt_get_u64(p + offsetof(struct hvt_ctf_packet, content_size));

		hvt_put_u64(p + offsetof(struct hvt_ctf_packet, packet_size), bits);
		assert_int_equal(fwrite(p, bits / 8, 1, f), 1);
		cons->consumed++;
	}
}

static void write_trace(const uint8_t *uuid)
{
	static struct hvt_rb_prod prod;
	static struct hvt_rb_cons cons;
	static unsigned char data[SUBBUF * NR];
	struct hvt_rb rb = { 0 };
	char path[256];
	FILE *f;
	int i;

	hvt_rb_init(&rb, &prod, &cons, data, SUBBUF, NR);
	memcpy(rb.uuid, uuid, HVT_UUID_LEN);
	rb.cpu_id = 1;
	rb.stream_instance_id = 1;
	snprintf(path, sizeof(path), "%s/stream-0", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < EVENTS; i++) {
		/* ids 2 and 40: compact and extended headers; a gap past 2^27 ticks. */
		uint64_t ts = ts_of(i);
		__u64 end;
		struct rec_t *e = (struct rec_t *)hvt_rb_reserve(&rb, i % 2 ? 2 : 40, ts, 1, 77,
								 sizeof(*e), &end);

		assert_non_null(e);
		e->seq = (uint64_t)i;
		e->delta = -i;
		e->flags = 0xbeef;
		memset(e->comm, 0, sizeof(e->comm));
		strcpy(e->comm, "demo");
		hvt_rb_commit(&rb, ts, end);
		drain(&prod, &cons, data, f);	/* consume as we go */
	}
	hvt_rb_close_packet(&rb);
	drain(&prod, &cons, data, f);
	assert_int_equal(fclose(f), 0);
}

static void test_babeltrace2_reads_what_we_write(void **state)
{
	uint8_t uuid[HVT_UUID_LEN] = { 1, 2, 3, 4, 5, 6, 0x47, 8, 0x89, 10, 11, 12, 13, 14, 15, 16 };
	struct hvt_tsdl_trace desc = { uuid, "guest_tsc", "test clock", 2000000000, "kernel",
				       "vm0", 0 };
	unsigned char rec[2][4096];
	struct hvt_registry r;
	char err[128], path[256], cmd[512], line[1024];
	uint32_t n0, n1;
	char *text;
	FILE *p;
	int lines = 0, extended_seen = 0;

	(void)state;
	if (system("command -v babeltrace2 >/dev/null 2>&1")) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(dir));
	hvt_registry_init(&r);
	n0 = hvt_reg_event_write(rec[0], 2, "test:compact", fields_t, 4, "seq=%lu");
	n1 = hvt_reg_event_write(rec[1], 40, "test:extended", fields_t, 4, "seq=%lu");
	assert_int_equal(hvt_registry_add(&r, rec[0], n0, err, sizeof(err)), 1);
	assert_int_equal(hvt_registry_add(&r, rec[1], n1, err, sizeof(err)), 1);
	text = hvt_tsdl_render(&desc, &r);
	assert_non_null(text);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	assert_int_equal(hvt_write_file_atomic(path, text, strlen(text)), 0);
	free(text);
	write_trace(uuid);

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-cycles %s 2>&1", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char expect[128];

		unsigned long long cycles = strtoull(line + 1, NULL, 10);

		snprintf(expect, sizeof(expect), "seq = %d, delta = %d, flags = 0xBEEF, comm = \"demo\"",
			 lines, -lines);
		if (!strstr(line, expect))
			fail_msg("line %d: %s", lines, line);
		/* the timestamp, rebuilt from compact headers across the 2^28 gap */
		assert_int_equal(cycles, ts_of(lines));
		assert_non_null(strstr(line, "cpu_id = 1, tid = 77"));
		extended_seen += strstr(line, "test:extended") != NULL;
		lines++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(lines, EVENTS);
	assert_int_equal(extended_seen, EVENTS / 2);
	hvt_registry_free(&r);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_uuid_format(void **state)
{
	uint8_t u[16] = { 0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	char s[37];

	(void)state;
	hvt_uuid_format(u, s);
	assert_string_equal(s, "deadbeef-0001-0203-0405-060708090a0b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_babeltrace2_reads_what_we_write),
		cmocka_unit_test(test_uuid_format),
	};

	return cmocka_run_group_tests_name("tsdl", tests, NULL, NULL);
}
