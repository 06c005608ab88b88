/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_table.h - the last name each thread of each machine was given (by
 * the sched_switch events seen so far): (machine, tid) -> comm, growing as
 * threads appear, for the readers that name threads as they stream
 * (merge's --comm, the JSON's task tracks).
 */
#ifndef HVT_TOOLS_UTIL_COMM_TABLE_H
#define HVT_TOOLS_UTIL_COMM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define HVT_COMM_TABLE_LEN	16	/* as the kernel's TASK_COMM_LEN */

struct hvt_comm_entry;

struct hvt_comm_table {
	struct hvt_comm_entry *v;	/* open addressing */
	size_t n, cap;
};

/* An empty table; -1 if out of memory. */
int hvt_comm_table_init(struct hvt_comm_table *t);
/* Task @tid (> 0) of @machine is named @comm from now on; -1 if out of memory. */
int hvt_comm_table_set(struct hvt_comm_table *t, uint32_t machine, int32_t tid, const char *comm);
/* Its name, or NULL if none was given. */
const char *hvt_comm_table_get(const struct hvt_comm_table *t, uint32_t machine, int32_t tid);
void hvt_comm_table_free(struct hvt_comm_table *t);

#endif
