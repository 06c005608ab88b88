/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * compat.h - the few primitives the shared headers need, for both the guest
 * kernel module and user space.
 *
 * The ring buffer and clock page code in include/hvtrace/ is compiled into
 * the kernel module, the user library and the host tools. It only needs
 * fixed-width types, unaligned little-endian stores, and acquire/release
 * ordering; this header maps those onto the kernel's primitives or onto the
 * compiler's __atomic builtins.
 */
#ifndef HVTRACE_COMPAT_H
#define HVTRACE_COMPAT_H

#include <linux/types.h>

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/string.h>
#include <asm/barrier.h>

#define hvt_load_acquire(p)		smp_load_acquire(p)
#define hvt_store_release(p, v)		smp_store_release(p, v)
#define hvt_read_once(x)		READ_ONCE(x)
#define hvt_write_once(x, v)		WRITE_ONCE(x, v)
#define hvt_smp_rmb()			smp_rmb()
#define hvt_smp_wmb()			smp_wmb()
#define hvt_likely(x)			likely(x)
#define hvt_unlikely(x)			unlikely(x)
#else
#include <string.h>

#define hvt_load_acquire(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define hvt_store_release(p, v)		__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define hvt_read_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define hvt_write_once(x, v)		__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
#define hvt_smp_rmb()			__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define hvt_smp_wmb()			__atomic_thread_fence(__ATOMIC_RELEASE)
#define hvt_likely(x)			__builtin_expect(!!(x), 1)
#define hvt_unlikely(x)			__builtin_expect(!!(x), 0)
#endif

/* All hvtrace formats are little-endian; hvtrace targets x86-64 only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hvtrace formats are little-endian and need a little-endian CPU"
#endif

static inline void hvt_put_u16(void *p, __u16 v) { memcpy(p, &v, sizeof(v)); }
static inline void hvt_put_u32(void *p, __u32 v) { memcpy(p, &v, sizeof(v)); }
static inline void hvt_put_u64(void *p, __u64 v) { memcpy(p, &v, sizeof(v)); }

static inline __u32 hvt_get_u32(const void *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline __u64 hvt_get_u64(const void *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif /* HVTRACE_COMPAT_H */
