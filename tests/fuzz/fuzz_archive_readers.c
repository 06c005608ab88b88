// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_archive_readers.c - libFuzzer target: the offline commands against
 * any damage to an archive (archive_readers.h says which file an input
 * replaces).
 *
 * Each input runs, on the damaged archive, what users run: `merge` to text,
 * to JSON and to CTF, `check`, `analyze` (and `--io`, on the QEMU log the
 * archive kept) and `tsc`; then the file is put
 * back. Readers
 * must warn and skip, never crash (the sanitizers judge), and the merge's
 * JSON must stay valid JSON whatever the files say (parsed with jansson
 * here).
 */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tests/fuzz/archive_readers.h"
#include "tools/commands.h"

static struct ar_archive archive;
static char **original;		/* each file's content */
static size_t *original_len;
static char json_path[128];
static char ctf_dir[128];
static char qemu_log[128];

static void remove_ctf(void);

static void cleanup(void)
{
	ar_archive_remove(&archive);
	remove_ctf();
	unlink(json_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[4200];
	size_t i;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)argc, (void)argv;
	hvt_log_mute();		/* every damaged file would be warned about */
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || ar_archive_create(&archive))
		abort();	/* the commands' output goes nowhere */
	close(null);
	atexit(cleanup);
	original = calloc(archive.nr, sizeof(*original));
	original_len = calloc(archive.nr, sizeof(*original_len));
	if (!original || !original_len)
		abort();
	for (i = 0; i < archive.nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", archive.root, archive.rel[i]);
		if (hvt_read_file(path, 1 << 24, &original[i], &original_len[i]))
			abort();
	}
	/* outside the archive, so that no reader sees it */
	snprintf(json_path, sizeof(json_path), "%s.json", archive.root);
	snprintf(ctf_dir, sizeof(ctf_dir), "%s.ctf", archive.root);
	snprintf(qemu_log, sizeof(qemu_log), "%s/%s", archive.root, AR_QEMU_LOG);
	return 0;
}

static void put(size_t i, const void *data, size_t len)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", archive.root, archive.rel[i]);
	f = fopen(path, "w");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		abort();
}

#define RUN(cmd, ...) cmd((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)), \
			  (char *[]){ __VA_ARGS__, NULL })

static void json_must_parse(void)
{
	json_error_t err;
	json_t *doc = json_load_file(json_path, 0, &err);

	if (!doc) {
		fprintf(stderr, "merge wrote invalid JSON: %s at line %d\n", err.text, err.line);
		abort();
	}
	json_decref(doc);
}

/* Removes the CTF trace a merge wrote (a flat directory), for the next one. */
static void remove_ctf(void)
{
	DIR *d = opendir(ctf_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(ctf_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	if (!size)
		return 0;
	i = data[0] % archive.nr;
	put(i, data + 1, size - 1);
	RUN(hvt_cmd_merge, "merge", "--qemu-trace", qemu_log, archive.root);
	RUN(hvt_cmd_merge, "merge", "--pid", "4300,78,0", archive.root);	/* tasks.tsv */
	if (RUN(hvt_cmd_merge, "merge", "--format=json", "--output", json_path, "--force",
		"--qemu-trace", qemu_log, archive.root) == 0)	/* the last input's file */
		json_must_parse();
	RUN(hvt_cmd_merge, "merge", "--format=ctf", "--output", ctf_dir, "--qemu-trace",
	    qemu_log, archive.root);
	remove_ctf();
	RUN(hvt_cmd_check, "check", archive.root);
	RUN(hvt_cmd_analyze, "analyze", archive.root);
	RUN(hvt_cmd_analyze, "analyze", "--format", "tsv", archive.root);
	RUN(hvt_cmd_analyze, "analyze", "--io", archive.root);	/* QEMU's log, kept */
	RUN(hvt_cmd_analyze, "analyze", "--io", "--format", "tsv", archive.root);
	RUN(hvt_cmd_tsc, "tsc", archive.root);
	put(i, original[i], original_len[i]);
	return 0;
}
