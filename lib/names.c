// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "lib/names.h"

int hvt_vm_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > HVT_VM_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '.' ||
		      name[i] == '-'))
			return 0;
	return 1;
}
