// SPDX-License-Identifier: GPL-2.0-only
/*
 * metadata_check.c - a trace's metadata against its registry
 * (metadata_check.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fileio.h"
#include "lib/tsdl.h"
#include "tools/check/metadata_check.h"

#define METADATA_MAX	(64u << 20)

/* @text's declaration of @ev, where it starts, or NULL; its length in *@n. */
static const char *find_event(const char *text, const struct hvt_event_type *ev, size_t *n,
			      int *oom)
{
	char *decl = hvt_tsdl_render_event(ev);
	const char *at;

	if (!decl) {
		*oom = 1;
		return NULL;
	}
	*n = strlen(decl);
	at = strstr(text, decl);
	if (at && strstr(at + 1, decl))
		at = NULL;	/* twice is not once */
	free(decl);
	return at;
}

/* The head as the collector renders it; NULL if out of memory. */
static char *render_head(const struct hvt_vm_info *vm, const struct hvt_trace_info *t)
{
	struct hvt_tsdl_trace desc;
	struct hvt_registry none;
	char *head;

	hvt_registry_init(&none);
	hvt_tsdl_guest_trace(&desc, t->uuid, t->layer, t->domain, t->freq_hz, vm->name, t->pid);
	head = hvt_tsdl_render(&desc, &none);
	hvt_registry_free(&none);
	return head;
}

int hvt_metadata_check(const struct hvt_vm_info *vm, const struct hvt_trace_info *t,
		       const struct hvt_registry *reg, char *why, size_t len)
{
	char *path = hvt_join(t->dir, "metadata"), *text = NULL, *head = render_head(vm, t);
	size_t text_len = 0, covered, n = 0;
	unsigned int id;
	int oom = 0, ret = -1;

	if (!path || !head) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	if (hvt_read_file(path, METADATA_MAX, &text, &text_len)) {
		snprintf(why, len, "%s/metadata: %s", t->rel, hvt_file_strerror(errno));
		goto out;
	}
	covered = strlen(head);
	if (strncmp(text, head, covered)) {
		snprintf(why, len, "%s/metadata does not begin as the collector writes it "
			 "(garbled, or of another trace)", t->rel);
		goto out;
	}
	for (id = 0; id < HVT_REG_MAX_EVENTS; id++) {
		const struct hvt_event_type *ev = hvt_registry_get(reg, id);

		if (!ev)
			continue;
		if (!find_event(text + covered, ev, &n, &oom)) {
			snprintf(why, len, oom ? "out of memory" : "%s/metadata does not declare "
				 "event %u (%s) once, as its registry has it", t->rel, id, ev->name);
			goto out;
		}
		covered += n;
	}
	if (covered != text_len) {
		snprintf(why, len, "%s/metadata holds %zu bytes more than the registry's events",
			 t->rel, text_len - covered);
		goto out;
	}
	ret = 0;
out:
	free(path);
	free(text);
	free(head);
	return ret;
}
