/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * names.h - names that become parts of archive paths. One rule, used by the
 * collector that creates the paths and by the readers that open them.
 */
#ifndef HVT_LIB_NAMES_H
#define HVT_LIB_NAMES_H

#include <stddef.h>

#define HVT_VM_NAME_MAX 64

/* Whether @c may be in a name: [A-Za-z0-9_.-]. */
int hvt_name_char_ok(char c);
/* One component of a path: the @len bytes at @s, 1 or more of [A-Za-z0-9_.-], not "." or "..". */
int hvt_path_component_ok(const char *s, size_t len);
/* A VM name is one such component of at most HVT_VM_NAME_MAX characters. */
int hvt_vm_name_ok(const char *name);

#endif
