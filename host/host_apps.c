// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_apps.c - the host's own applications: a host agent, a link (host_apps.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/host_apps.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/netaddr.h"

#define LINK_FD		3	/* the agent's end of the socketpair, in the agent */
#define REAP_WAIT_MS	5000	/* after its link ended, before SIGKILL */

/* Whether the applications' socket can be ours: its directory, nobody listening. */
static bool socket_free(const char *path)
{
	char dir[sizeof(((struct hvt_host_apps *)0)->socket_path)], *slash;

	if (strlen(path) >= sizeof(dir)) {
		hvt_warn("host applications are not traced: socket path too long: %s", path);
		return false;
	}
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (hvt_mkdir_p(dir) || access(dir, W_OK)) {
			hvt_warn("host applications are not traced: cannot create %s in %s: %s",
				 path + (slash - dir) + 1, dir, strerror(errno));
			return false;
		}
	}
	if (hvt_unix_path_listened(path)) {
		hvt_warn("host applications are not traced: another process listens on %s "
			 "(another recording, or an agent?); give --host-apps PATH", path);
		return false;
	}
	return true;
}

/*
 * In the child: this binary's agent on fd LINK_FD, in its own process group,
 * gone with us. By its own path (@exe), so that its name is hvtrace, not exe.
 */
static void exec_agent(int fd, const char *exe, const char *socket_path, unsigned int uid_share)
{
	const char *verbose = hvt_log_verbose() ? "-v" : NULL;
	char share[16], nice[16];

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (fd != LINK_FD && dup2(fd, LINK_FD) < 0)
		_exit(127);
	fcntl(LINK_FD, F_SETFD, 0);	/* dup2 clears FD_CLOEXEC, but not on itself */
	/*
	 * Nothing else of the collector's: libtracefs opens the instance's
	 * trace_pipe_raw without O_CLOEXEC, and an agent holding it would keep
	 * the instance from being removed.
	 */
	close_range(LINK_FD + 1, ~0u, 0);
	snprintf(share, sizeof(share), "%u", uid_share ? uid_share : 25);
	/* where the collector is (its --nice): the agent drains for it */
	snprintf(nice, sizeof(nice), "%d", getpriority(PRIO_PROCESS, 0));
	execl(exe, "hvtrace", "agent", "--host", "--link-fd", "3", "--socket",
	      socket_path, "--wait", "0", "--uid-share", share, "--nice", nice, verbose,
	      (char *)NULL);
	fprintf(stderr, "hvtrace record: cannot start the host agent: %s\n", strerror(errno));
	_exit(127);
}

static int spawn(struct hvt_host_apps *h)
{
	char exe[4096] = "/proc/self/exe";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int sv[2];

	if (n > 0)
		exe[n] = '\0';

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		hvt_err("host applications: socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	h->pid = fork();
	if (h->pid < 0) {
		hvt_err("host applications: fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		h->pid = 0;
		return -1;
	}
	if (h->pid == 0)
		exec_agent(sv[1], exe, h->socket_path, h->uid_share);
	close(sv[1]);
	h->pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	hvt_vm_attach(&h->vm, sv[0]);
	return 0;
}

int hvt_host_apps_start(struct hvt_host_apps *h, struct hvt_archive_writer *ar,
			const char *socket_path, unsigned int uid_share,
			const struct hvt_vm_limits *limits)
{
	char err[512];

	memset(h, 0, sizeof(*h));
	h->pidfd = -1;
	h->uid_share = uid_share;
	if (!socket_free(socket_path))
		return 0;
	snprintf(h->socket_path, sizeof(h->socket_path), "%s", socket_path);
	if (hvt_vm_init_host_apps(&h->vm, ar, limits, err, sizeof(err))) {
		hvt_err("host applications: %s", err);
		return -1;
	}
	h->on = true;
	if (spawn(h)) {
		hvt_vm_end(&h->vm, "the host agent could not be started");
		return -1;
	}
	hvt_info("host applications (libhvtrace): their agent starts on %s (the summary says "
		 "whether they were traced)", h->socket_path);
	return 1;
}

void hvt_host_apps_pollfds(const struct hvt_host_apps *h, struct pollfd p[2])
{
	p[0] = (struct pollfd){ .fd = -1, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = -1, .events = POLLIN };
	if (!h->on || h->vm.state == HVT_VM_ENDED)
		return;
	p[0].fd = h->pidfd;
	p[1].fd = hvt_vm_wants_input(&h->vm) ? h->vm.fd : -1;
}

/* Its exit status, once: 0 if it has not exited yet. */
static int reap(struct hvt_host_apps *h, int *status)
{
	if (!h->pid || waitpid(h->pid, status, WNOHANG) != h->pid)
		return 0;
	h->pid = 0;
	if (h->pidfd >= 0)
		close(h->pidfd);
	h->pidfd = -1;
	return 1;
}

/* The agent exited: what the link still holds is read, then it ends. */
static void agent_exited(struct hvt_host_apps *h)
{
	int status;

	hvt_vm_drain(&h->vm);
	if (reap(h, &status) && h->vm.state != HVT_VM_ENDED)
		hvt_vm_end(&h->vm, "the host agent exited (%s %d)",
			   WIFEXITED(status) ? "status" : "signal",
			   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

void hvt_host_apps_polled(struct hvt_host_apps *h, const struct pollfd p[2])
{
	if (p[1].fd >= 0 && p[1].revents)
		hvt_vm_readable(&h->vm);
	if (p[0].fd >= 0 && p[0].revents)
		agent_exited(h);
}

void hvt_host_apps_tick(struct hvt_host_apps *h, time_t now)
{
	if (!h->on || h->vm.state == HVT_VM_ENDED)
		return;
	hvt_vm_tick(&h->vm);
	if (h->stop_deadline && now > h->stop_deadline)
		hvt_vm_end(&h->vm, "the host agent did not finish within %d s of the stop request",
			   HVT_HOST_APPS_STOP_S);
}

static struct hvt_host_app_threads *proc_of(struct hvt_host_apps *h, pid_t pid)
{
	struct hvt_host_app_threads *p;
	size_t i;

	for (i = 0; i < h->nr_procs; i++)
		if (h->procs[i].pid == pid)
			return &h->procs[i];
	p = realloc(h->procs, (h->nr_procs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	h->procs = p;
	p = &h->procs[h->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static bool followed(const struct hvt_host_app_threads *p, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (p->tids[i] == tid)
			return true;
	return false;
}

/* Threads of @p not followed yet into its list, from p->nr on; how many. */
static size_t scan_threads(struct hvt_host_app_threads *p)
{
	char path[64];
	struct dirent *e;
	size_t added = 0;
	DIR *d;

	if (p->gone)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	d = opendir(path);
	if (!d) {
		p->gone = true;	/* never again: the pid may be reused */
		return 0;
	}
	while ((e = readdir(d)) && p->nr < HVT_HOST_APP_MAX_THREADS) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || followed(p, tid))
			continue;
		if (p->nr == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 16;
			pid_t *t = realloc(p->tids, cap * sizeof(*t));

			if (!t)
				break;
			p->tids = t;
			p->cap = cap;
		}
		p->tids[p->nr++] = tid;
		added++;
	}
	closedir(d);
	return added;
}

int hvt_host_apps_follow(struct hvt_host_apps *h, struct hvt_capture *ft)
{
	int total = 0;
	size_t i;

	if (!h->on)
		return 0;
	for (i = 0; i < HVT_VM_MAX_TRACES; i++) {
		const struct hvt_vm_trace *t = &h->vm.traces[i];
		struct hvt_host_app_threads *p;
		size_t before, added;

		if (!t->open || t->layer != HVT_LAYER_USER || !t->pid)
			continue;
		p = proc_of(h, (pid_t)t->pid);
		if (!p)
			return -1;
		before = p->nr;
		added = scan_threads(p);
		if (added && hvt_capture_add_pids(ft, p->tids + before, added)) {
			p->nr = before;	/* tried again at the next scan */
			return -1;
		}
		total += (int)added;
	}
	return total;
}

size_t hvt_host_apps_threads(const struct hvt_host_apps *h, pid_t *tids)
{
	size_t i, n = 0;

	for (i = 0; i < h->nr_procs; i++) {
		if (tids)
			memcpy(tids + n, h->procs[i].tids, h->procs[i].nr * sizeof(*tids));
		n += h->procs[i].nr;
	}
	return n;
}

void hvt_host_apps_request_stop(struct hvt_host_apps *h)
{
	if (!h->on || h->stop_deadline || h->vm.state == HVT_VM_ENDED)
		return;
	h->stop_deadline = time(NULL) + HVT_HOST_APPS_STOP_S;
	hvt_vm_request_stop(&h->vm);
}

bool hvt_host_apps_ended(const struct hvt_host_apps *h)
{
	return !h->on || h->vm.state == HVT_VM_ENDED;
}

void hvt_host_apps_finish(struct hvt_host_apps *h)
{
	int status, waited;

	if (!h->on)
		return;
	hvt_vm_end(&h->vm, "recording stopped");	/* closes the link: the agent ends */
	for (waited = 0; h->pid && waited < REAP_WAIT_MS; waited += 10) {
		if (reap(h, &status))
			return;
		usleep(10000);
	}
	if (h->pid) {
		hvt_warn("the host agent (pid %d) did not exit; killed", (int)h->pid);
		kill(h->pid, SIGKILL);
		waitpid(h->pid, &status, 0);
		h->pid = 0;
	}
}

json_t *hvt_host_apps_manifest(const struct hvt_host_apps *h)
{
	if (!h->on)
		return NULL;
	return json_pack("{s:s, s:s}", "dir", h->vm.rel, "socket", h->socket_path);
}

void hvt_host_apps_summary(const struct hvt_host_apps *h, FILE *out)
{
	if (h->on)
		hvt_vm_summary(&h->vm, out);
}

void hvt_host_apps_free(struct hvt_host_apps *h)
{
	if (!h->on)
		return;
	hvt_host_apps_finish(h);
	if (h->pidfd >= 0)
		close(h->pidfd);
	h->pidfd = -1;
	hvt_vm_free(&h->vm);
	while (h->nr_procs)
		free(h->procs[--h->nr_procs].tids);
	free(h->procs);
	h->procs = NULL;
	h->on = false;
}
