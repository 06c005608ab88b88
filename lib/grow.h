/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grow.h - room for one more element in a growable array.
 */
#ifndef HVT_LIB_GROW_H
#define HVT_LIB_GROW_H

#include <stdlib.h>

/*
 * Makes room for element @n of @array (capacity *@cap elements of @size
 * bytes), doubling it from 64. Returns the array, possibly moved, or NULL
 * when out of memory; the old array is then kept.
 */
static inline void *hvt_grow(void *array, size_t n, size_t *cap, size_t size)
{
	size_t new_cap = *cap ? *cap * 2 : 64;
	void *p;

	if (n < *cap)
		return array;
	p = realloc(array, new_cap * size);
	if (p)
		*cap = new_cap;
	return p;
}

#endif
