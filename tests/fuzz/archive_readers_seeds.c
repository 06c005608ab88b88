// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_readers_seeds.c - writes the seed inputs of fuzz_archive_readers
 * into DIR: one per file of its archive, that file as it is, in the input
 * format of archive_readers.h, so that the fuzzer starts from files every
 * reader accepts.
 * usage: archive_readers_seeds DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fileio.h"
#include "tests/fuzz/archive_readers.h"

int main(int argc, char **argv)
{
	struct ar_archive a;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if (ar_archive_create(&a)) {
		fprintf(stderr, "%s: cannot write the archive\n", argv[0]);
		return 1;
	}
	for (i = 0; i < a.nr; i++) {
		char path[4200], *content, *seed;
		size_t len;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", a.root, a.rel[i]);
		if (hvt_read_file(path, 1 << 24, &content, &len))
			return 1;
		seed = malloc(len + 1);
		if (!seed)
			return 1;
		seed[0] = (char)(uint8_t)i;
		memcpy(seed + 1, content, len);
		snprintf(path, sizeof(path), "%s/file-%02zu", argv[1], i);
		f = fopen(path, "w");
		if (!f || fwrite(seed, 1, len + 1, f) != len + 1 || fclose(f)) {
			perror(path);
			return 1;
		}
		free(seed);
		free(content);
	}
	ar_archive_remove(&a);
	return 0;
}
