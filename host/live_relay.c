// SPDX-License-Identifier: GPL-2.0-only
/*
 * live_relay.c - record --live: the relay beside the recording (live_relay.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/live_relay.h"
#include "lib/log.h"
#include "lib/live_addr.h"

#define LINGER_S	10	/* the relay's default --linger */

int hvt_live_relay_listen(struct hvt_live_relay *l, const char *spec)
{
	char err[300];

	l->pid = 0;
	l->fd = hvt_live_listen(spec, l->bound, sizeof(l->bound), err, sizeof(err));
	if (l->fd < 0) {
		hvt_err("--live %s: %s", spec, err);
		return -1;
	}
	return 0;
}

void hvt_live_relay_start(struct hvt_live_relay *l, const char *archive, bool from_start)
{
	char fd_arg[16];
	pid_t pid;

	if (l->fd < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int fd = dup(l->fd);	/* without close-on-exec */

		setpgid(0, 0);	/* Ctrl-C is the collector's: the relay serves the end */
		snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
		if (from_start)
			execl("/proc/self/exe", "hvtrace", "relay", "--fd", fd_arg, "--wait", "30",
			      "--from-start", "--", archive, (char *)NULL);
		else
			execl("/proc/self/exe", "hvtrace", "relay", "--fd", fd_arg, "--wait", "30",
			      "--", archive, (char *)NULL);
		fprintf(stderr, "hvtrace record: cannot run hvtrace relay: %s\n", strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		hvt_err("--live: cannot start hvtrace relay: %s; recording without it",
			strerror(errno));
		return;
	}
	l->pid = pid;
}

/* Whether the relay exited within @ms; its status in @status. */
static bool exited(pid_t pid, int ms, int *status)
{
	for (; ms > 0; ms -= 100) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		usleep(100000);
	}
	return waitpid(pid, status, WNOHANG) == pid;
}

void hvt_live_relay_finish(struct hvt_live_relay *l)
{
	int status = 0;

	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->pid <= 0)
		return;
	if (!exited(l->pid, 1000, &status)) {
		hvt_info("the live relay (pid %d) serves the end to its viewers (%d s at most "
			 "once it read the end)", (int)l->pid, LINGER_S);
		if (!exited(l->pid, (LINGER_S + 50) * 1000, &status)) {
			hvt_warn("the live relay (pid %d) did not exit: stopped", (int)l->pid);
			kill(l->pid, SIGTERM);
			if (!exited(l->pid, 5000, &status)) {
				kill(l->pid, SIGKILL);
				waitpid(l->pid, &status, 0);
			}
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) > 1)
		hvt_warn("the live relay exited with status %d (its messages are above); the "
			 "recording is not affected", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		hvt_warn("the live relay was killed by signal %d; the recording is not affected",
			 WTERMSIG(status));
	l->pid = 0;
}
