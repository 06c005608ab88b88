// SPDX-License-Identifier: GPL-2.0-only
/*
 * unopened.c - why a recording could not be opened (unopened.h).
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/fileio.h"
#include "tools/archive/archive.h"
#include "tools/check/archive_checks.h"
#include "tools/check/unopened.h"

/* Whether manifest @json says it is a version 1 archive's. */
static bool head_ok(json_t *json)
{
	const char *format = json_string_value(json_object_get(json, "format"));
	json_t *version = json_object_get(json, "version");

	return format && !strcmp(format, "hvtrace-archive") && json_is_integer(version) &&
	       json_integer_value(version) == 1;
}

/* The manifest, or the clock pairs' file it names, as the cause; NULL if neither. */
static const char *manifest_why(const char *root, char *buf, size_t len)
{
	char path[HVT_PATH_LEN], *text;
	const char *why = NULL, *pairs;
	json_error_t jerr;
	json_t *json;
	size_t n;

	if (hvt_path(path, sizeof(path), "%s/hvtrace.json", root))
		return NULL;
	if (hvt_read_file(path, HVT_JSON_MAX, &text, &n)) {
		snprintf(buf, len, "hvtrace.json: %s", hvt_file_strerror(errno));
		return buf;
	}
	json = json_loadb(text, n, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!json) {
		snprintf(buf, len, "hvtrace.json: line %d: %s", jerr.line, jerr.text);
		return buf;
	}
	/* the opener reads the clock pairs only past the manifest's head */
	pairs = json_string_value(json_object_get(json_object_get(json, "host"), "clock_pairs"));
	if (head_ok(json) && pairs && hvt_relpath_ok(pairs) &&
	    !hvt_path(path, sizeof(path), "%s/%s", root, pairs))
		why = hvt_check_cannot_open(path, pairs, buf, len);
	json_decref(json);
	return why;
}

const char *hvt_check_unopened_why(const char *root, const char *const *guest_traces,
				   size_t n, char *buf, size_t len)
{
	struct stat st;
	size_t i;

	if (stat(root, &st)) {
		snprintf(buf, len, "%s: %s", root, strerror(errno));
		return buf;
	}
	/* a trace.dat given alone: its reader's message is the only one */
	if (S_ISDIR(st.st_mode) && manifest_why(root, buf, len))
		return buf;
	for (i = 0; i < n; i++) {
		const char *file = strchr(guest_traces[i], '=');
		char name[512];

		snprintf(name, sizeof(name), "--guest-trace %s", guest_traces[i]);
		if (file && hvt_check_cannot_open(file + 1, name, buf, len))
			return buf;
	}
	return NULL;
}
