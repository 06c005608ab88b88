/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_capture.h - runs an hvtrace subcommand in-process with its standard
 * output captured to a file (header-only: the command tests include it).
 */
#ifndef HVT_TESTS_CMD_CAPTURE_H
#define HVT_TESTS_CMD_CAPTURE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/fileio.h"

/* Runs @cmd(argc, argv) with stdout in @path; its output in *@out (malloc'd). */
static inline int capture_cmd(int (*cmd)(int, char **), int argc, char **argv,
			      const char *path, char **out)
{
	int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), ret;
	size_t len;

	fflush(stdout);
	dup2(fd, 1);
	close(fd);
	ret = cmd(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	if (hvt_read_file(path, 1 << 24, out, &len))
		*out = NULL;
	return ret;
}

#endif
