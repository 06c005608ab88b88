// SPDX-License-Identifier: GPL-2.0-only
/*
 * hvtrace_selftest.c - a module that uses hvtrace.ko's exported API the way
 * any other guest module would (hvtrace_api.h), for the guest tests
 * (tests/guest/kmod_test.c) and as an example.
 *
 * It defines two events with every field kind, registers them at load and
 * emits them on demand:
 *
 *   /sys/module/hvtrace_selftest/parameters/emit        write N: emit N of
 *       each event from the writer's context, seq numbers continuing
 *   /sys/module/hvtrace_selftest/parameters/filter_odd  Y: a filter drops
 *       every event written by a task with an odd pid
 *
 * Field values are functions of seq (and the writer's pid and comm), so a
 * reader can check every one (tests/guest/kmod_test.c, check_event()).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "hvtrace_event.h"

#define SELFTEST_TEXT_MAX	32
#define SELFTEST_BLOB_MAX	40

HVTRACE_OWN_EVENT_DYN(hvtrace_selftest_fields,
	HVT_PROTO(u64 seq, const char *text),
	HVT_ARGS(seq, text),
	HVT_FIELDS((int, s8, s8v), (int, u8, u8v), (int, s16, s16v), (int, u16, u16v),
		   (int, s32, s32v), (int, u32, u32v), (int, s64, s64v), (int, u64, seq),
		   (hex, u32, hexv), (text, comm, TASK_COMM_LEN), (array, u16, arr, 4),
		   (int, s32, pid), (string, text)),
	strlen(text) + 1,
	HVT_ASSIGN(__entry->s8v = (s8)-(s64)(seq % 100);
		   __entry->u8v = (u8)(seq % 256);
		   __entry->s16v = (s16)-(s64)(seq * 3 % 30000);
		   __entry->u16v = (u16)(seq * 5);
		   __entry->s32v = (s32)-(s64)(seq * 7);
		   __entry->u32v = (u32)(seq * 11);
		   __entry->s64v = -(s64)(seq * 13);
		   __entry->seq = seq;
		   __entry->hexv = 0xdead0000u | (u32)(seq & 0xffff);
		   memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
		   __entry->arr[0] = (u16)seq;
		   __entry->arr[1] = (u16)(seq + 1);
		   __entry->arr[2] = (u16)(seq + 2);
		   __entry->arr[3] = (u16)(seq + 3);
		   __entry->pid = current->pid;
		   strcpy(__entry->text, text);),
	HVT_PRINT("s8v=%d u8v=%u s16v=%d u16v=%u s32v=%d u32v=%u s64v=%lld seq=%llu hexv=%#x comm=%s arr=%s pid=%d text=%s"));

HVTRACE_OWN_EVENT_DYN(hvtrace_selftest_blob,
	HVT_PROTO(u64 seq, const u8 *bytes, u32 len),
	HVT_ARGS(seq, bytes, len),
	HVT_FIELDS((int, u64, seq), (blob, payload, "hvtrace_selftest")),
	len,
	HVT_ASSIGN(__entry->seq = seq;
		   __entry->payload_len = len;
		   memcpy(__entry->payload, bytes, len);),
	HVT_PRINT("seq=%llu payload=<%u bytes>"));

static atomic64_t next_seq;

static void emit_one(void)
{
	u64 seq = atomic64_inc_return(&next_seq) - 1;
	u8 bytes[SELFTEST_BLOB_MAX];
	char text[SELFTEST_TEXT_MAX];
	u32 i, len = seq % SELFTEST_BLOB_MAX;

	snprintf(text, sizeof(text), "selftest-%llu", seq);
	for (i = 0; i < len; i++)
		bytes[i] = (u8)(seq + i);
	hvtrace_emit_hvtrace_selftest_fields(seq, text);
	hvtrace_emit_hvtrace_selftest_blob(seq, bytes, len);
}

static int emit_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		emit_one();
		if (!(i % 1024))
			cond_resched();
	}
	return 0;
}

static const struct kernel_param_ops emit_ops = { .set = emit_set };
module_param_cb(emit, &emit_ops, NULL, 0200);
MODULE_PARM_DESC(emit, "write N: emit N hvtrace_selftest_fields and _blob events");

static bool drop_odd_pid(const struct hvtrace_filter *filter, const struct hvtrace_event *event)
{
	return current->pid & 1;
}

static struct hvtrace_filter odd_pid_filter = { .drop = drop_odd_pid };
static bool filter_odd;
static DEFINE_MUTEX(filter_lock);

static int filter_odd_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&filter_lock);
	if (on && !filter_odd)
		ret = hvtrace_filter_register(&odd_pid_filter);
	else if (!on && filter_odd)
		hvtrace_filter_unregister(&odd_pid_filter);
	if (!ret)
		filter_odd = on;
	mutex_unlock(&filter_lock);
	return ret;
}

static const struct kernel_param_ops filter_odd_ops = {
	.set = filter_odd_set,
	.get = param_get_bool,
};
module_param_cb(filter_odd, &filter_odd_ops, &filter_odd, 0644);
MODULE_PARM_DESC(filter_odd, "Y: drop every event written by a task with an odd pid");

static int __init selftest_init(void)
{
	int ret = hvtrace_event_register(&hvtrace_event_hvtrace_selftest_fields);

	if (ret)
		return ret;
	ret = hvtrace_event_register(&hvtrace_event_hvtrace_selftest_blob);
	if (ret)
		hvtrace_event_unregister(&hvtrace_event_hvtrace_selftest_fields);
	return ret;
}

static void __exit selftest_exit(void)
{
	if (filter_odd)
		hvtrace_filter_unregister(&odd_pid_filter);
	hvtrace_event_unregister(&hvtrace_event_hvtrace_selftest_blob);
	hvtrace_event_unregister(&hvtrace_event_hvtrace_selftest_fields);
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace self-test: events of every field kind through the exported API");
