/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - messages to stderr, prefixed with the running command's name.
 * Errors name the problem and, where there is one, what to do about it.
 */
#ifndef HVT_LIB_LOG_H
#define HVT_LIB_LOG_H

void hvt_log_set_prog(const char *prog);
void hvt_log_set_verbose(int verbose);
int hvt_log_verbose(void);
/*
 * Quiet: information (hvt_info, hvt_detail) is dropped; warnings and
 * errors still print. The commands' -q.
 */
void hvt_log_set_quiet(int quiet);
int hvt_log_quiet(void);
/*
 * While muted, warnings and information are dropped (errors still print):
 * for a pass over files that a later pass reads and reports on. Nests.
 */
void hvt_log_mute(void);
void hvt_log_unmute(void);

void hvt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hvt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hvt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Information a user asks for with -v: how a result was reached. */
void hvt_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hvt_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
