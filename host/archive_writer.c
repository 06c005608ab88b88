// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host/archive_writer.h"
#include "host/host_tsc.h"
#include "lib/archive_format.h"
#include "lib/fileio.h"

#define FIRST_PAIRS_APART_NS	10000000	/* 10 ms */

static void utc_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

int hvt_archive_writer_check(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (!stat(dir, &st) && (!S_ISDIR(st.st_mode) || !dir_is_empty(dir))) {
		snprintf(err, errlen, "%s already exists and is not an empty directory; "
			 "choose another --output", dir);
		return -1;
	}
	return 0;
}

int hvt_archive_writer_create(struct hvt_archive_writer *ar, const char *dir, char *err, size_t errlen)
{
	char path[HVT_PATH_LEN];

	memset(ar, 0, sizeof(*ar));
	if (hvt_path(ar->dir, sizeof(ar->dir), "%s", dir)) {
		snprintf(err, errlen, "output path too long");
		return -1;
	}
	if (hvt_archive_writer_check(dir, err, errlen))
		return -1;
	if (hvt_path(path, sizeof(path), "%s/host", dir) || hvt_mkdir_p(path)) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (hvt_path(path, sizeof(path), "%s/host/clock.tsv", dir) ||
	    !(ar->clock_tsv = fopen(path, "wxe"))) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	fputs(HVT_CLOCK_TSV_HEADER "\n", ar->clock_tsv);
	utc_now(ar->started, sizeof(ar->started));
	/*
	 * Two pairs before the first manifest: its tsc_freq_hz is then measured,
	 * and an archive whose collector dies within its first second still has
	 * the two pairs a host clock needs.
	 */
	if (hvt_archive_writer_clock_pair(ar) ||
	    (nanosleep(&(struct timespec){ 0, FIRST_PAIRS_APART_NS }, NULL), 0) ||
	    hvt_archive_writer_clock_pair(ar) ||
	    hvt_archive_writer_manifest(ar, "starting", NULL, NULL, NULL)) {
		snprintf(err, errlen, "cannot write into %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int hvt_archive_writer_clock_pair(struct hvt_archive_writer *ar)
{
	struct hvt_clock_pair p;

	hvt_host_clock_pair(&p);
	if (!ar->nr_pairs)
		ar->first = p;
	ar->last = p;
	ar->nr_pairs++;
	fprintf(ar->clock_tsv, "%llu\t%lld\t%lld\t%llu\n", (unsigned long long)p.tsc,
		(long long)p.mono_ns, (long long)p.real_ns, (unsigned long long)p.uncertainty);
	return fflush(ar->clock_tsv) ? -1 : 0;
}

int hvt_archive_writer_host_clock(const struct hvt_archive_writer *ar, struct hvt_linear_map *mono)
{
	struct hvt_clock_pair pairs[2] = { ar->first, ar->last };

	return ar->nr_pairs < 2 ? -1 : hvt_linear_map_fit(pairs, 2, mono);
}

int hvt_archive_writer_manifest(struct hvt_archive_writer *ar, const char *status, json_t *ftrace,
				json_t *apps, json_t *vms)
{
	struct hvt_linear_map mono;
	struct utsname u;
	char path[HVT_PATH_LEN], hostname[256] = "", stopped[32] = "";
	json_t *m, *host;
	int ret;

	gethostname(hostname, sizeof(hostname) - 1);
	uname(&u);
	if (!strcmp(status, "complete"))
		utc_now(stopped, sizeof(stopped));
	host = json_pack("{s:s, s:s, s:I, s:O?}", "clock", "x86-tsc",
			 "clock_pairs", "host/clock.tsv",
			 "tsc_freq_hz", (json_int_t)(hvt_archive_writer_host_clock(ar, &mono) ? 0 :
						      hvt_linear_map_freq_hz(&mono)),
			 "ftrace", ftrace);
	if (host && apps)
		json_object_set(host, "apps", apps);
	m = json_pack("{s:s, s:i, s:s, s:s, s:s?, s:s, s:I, s:s, s:o, s:O?}",
		      "format", "hvtrace-archive", "version", 1, "status", status,
		      "started", ar->started, "stopped", stopped[0] ? stopped : NULL,
		      "hostname", hostname, "collector_pid", (json_int_t)getpid(),
		      "host_kernel", u.release, "host", host, "vms", vms);
	if (!m)
		return -1;
	if (!vms)
		json_object_set_new(m, "vms", json_array());
	ret = hvt_path(path, sizeof(path), "%s/hvtrace.json", ar->dir) ? -1 :
	      hvt_write_json_atomic(path, m);
	json_decref(m);
	return ret;
}

int hvt_write_json_atomic(const char *path, const json_t *json)
{
	char *text = json_dumps(json, JSON_INDENT(2));
	int ret;

	if (!text)
		return -1;
	ret = hvt_write_file_atomic(path, text, strlen(text));
	free(text);
	return ret;
}

void hvt_archive_writer_close(struct hvt_archive_writer *ar)
{
	if (ar->clock_tsv)
		fclose(ar->clock_tsv);
	ar->clock_tsv = NULL;
}
