// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "lib/names.h"

int hvt_name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

int hvt_path_component_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	for (i = 0; i < len; i++)
		if (!hvt_name_char_ok(s[i]))
			return 0;
	return 1;
}

int hvt_vm_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n <= HVT_VM_NAME_MAX && hvt_path_component_ok(name, n);
}
