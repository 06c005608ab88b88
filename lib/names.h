/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * names.h - names that become parts of archive paths. One rule, used by the
 * collector that creates the paths and by the readers that open them.
 */
#ifndef HVT_NAMES_H
#define HVT_NAMES_H

#define HVT_VM_NAME_MAX 64

/* 1-64 of [A-Za-z0-9_.-], not "." or "..". */
int hvt_vm_name_ok(const char *name);

#endif
