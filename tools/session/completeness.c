// SPDX-License-Identifier: GPL-2.0-only
/*
 * completeness.c - what of the recording a session's output lacks: VMs
 * that could not be read, a host layer that could not be decoded, streams
 * missing, cut short or damaged. Every command that reads an archive ends with
 * status 1 when something is lacking (each was said as it was found).
 */
#include <stdio.h>

#include "lib/log.h"
#include "tools/session/session.h"

size_t hvt_session_unread_vms(const struct hvt_session *ses)
{
	size_t i, n = 0;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_session_vm *st = &ses->vms[i];

		n += !st->loaded || (!st->al.aligned && !st->al.exact &&
				     st->vm.sync_recorded > (int64_t)st->vm.nr_sync);
	}
	return n;
}

bool hvt_session_host_undecoded(const struct hvt_session *ses)
{
	unsigned long warnings = 0;
	size_t i;

	if (!ses->ftrace)
		return false;
	for (i = 0; i < ses->nr_sources; i++) {
		const struct hvt_source *s = ses->sources[i];

		if (s->layer != HVT_LAYER_HOST || s->vm_number)
			continue;
		if (s->events)
			return false;
		warnings += hvt_source_warnings(s);
	}
	return warnings > 0;
}

size_t hvt_session_incomplete_sources(const struct hvt_session *ses,
				      bool (*wanted)(const struct hvt_source *s, void *ctx),
				      void *ctx)
{
	size_t i, n = 0;

	for (i = 0; i < ses->nr_sources; i++)
		n += ses->sources[i]->incomplete && (!wanted || wanted(ses->sources[i], ctx));
	return n;
}

size_t hvt_session_incomplete_said(const struct hvt_session *ses,
				   bool (*wanted)(const struct hvt_source *s, void *ctx), void *ctx,
				   const char *output)
{
	size_t n = hvt_session_incomplete_sources(ses, wanted, ctx);

	if (n)
		hvt_err("%zu stream%s of the archive %s missing, cut short or damaged: %s events are not "
			"all in %s (see the warnings above)", n, n == 1 ? "" : "s",
			n == 1 ? "is" : "are", n == 1 ? "its" : "their", output);
	return n;
}

/* Appends @text to @buf at @at, after "; " if something is there. */
static void add(char *buf, size_t len, size_t *at, const char *text)
{
	int k;

	if (*at >= len)
		return;
	k = snprintf(buf + *at, len - *at, "%s%s", *at ? "; " : "", text);
	if (k > 0)
		*at += (size_t)k;
}

size_t hvt_session_unlisted_files(const struct hvt_session *ses, bool host)
{
	size_t i, n = host ? ses->archive.unlisted_cpus : 0;

	for (i = 0; i < ses->archive.nr_vms; i++)
		n += ses->vms[i].loaded ? ses->vms[i].vm.unlisted_files : 0;
	return n;
}

size_t hvt_session_unlisted_said(const struct hvt_session *ses, bool host, const char *output)
{
	size_t n = hvt_session_unlisted_files(ses, host);

	if (n)
		hvt_err("%zu recorded file%s the archive does not list %s not read: %s events "
			"are not in %s (see the warnings above)", n, n == 1 ? "" : "s",
			n == 1 ? "was" : "were", n == 1 ? "its" : "their", output);
	return n;
}

const char *hvt_session_lacks(const struct hvt_session *ses, char *buf, size_t len)
{
	char text[96];
	size_t at = 0, n;

	if (!len)
		return NULL;
	buf[0] = '\0';
	if ((n = hvt_session_unread_vms(ses))) {
		snprintf(text, sizeof(text), "%zu VM%s could not be read", n, n == 1 ? "" : "s");
		add(buf, len, &at, text);
	}
	if (hvt_session_host_unreadable(ses) || hvt_session_host_undecoded(ses))
		add(buf, len, &at, "the host layer could not be decoded");
	if ((n = hvt_session_unlisted_files(ses, true))) {
		snprintf(text, sizeof(text), "%zu recorded file%s the archive does not list", n,
			 n == 1 ? "" : "s");
		add(buf, len, &at, text);
	}
	if ((n = hvt_session_incomplete_sources(ses, NULL, NULL))) {
		snprintf(text, sizeof(text), "%zu stream%s missing, cut short or damaged", n,
			 n == 1 ? " is" : "s are");
		add(buf, len, &at, text);
	}
	return buf[0] ? buf : NULL;
}
