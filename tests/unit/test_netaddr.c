// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_netaddr.c - guest link addresses (lib/netaddr.c): what parses, what
 * is refused and why, and a real listen/connect/accept over each family
 * this host can run (unix, TCP on loopback; vsock needs a hypervisor).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/vm_sockets.h>
#include <cmocka.h>

#include "lib/netaddr.h"

static void parses_each_kind(void **state)
{
	struct hvt_netaddr a;
	char err[256];
	const struct sockaddr_vm *vm = (const struct sockaddr_vm *)&a.sa;
	const struct sockaddr_in *in = (const struct sockaddr_in *)&a.sa;

	(void)state;
	assert_int_equal(hvt_netaddr_parse("unix:/run/x.sock", false, &a, err, sizeof(err)), 0);
	assert_int_equal(a.kind, HVT_ADDR_UNIX);
	assert_string_equal(a.path, "/run/x.sock");
	assert_string_equal(a.text, "unix:/run/x.sock");

	assert_int_equal(hvt_netaddr_parse("tcp:127.0.0.1:4242", false, &a, err, sizeof(err)), 0);
	assert_int_equal(a.kind, HVT_ADDR_TCP);
	assert_int_equal(in->sin_family, AF_INET);
	assert_int_equal(ntohs(in->sin_port), 4242);

	assert_int_equal(hvt_netaddr_parse("tcp:[::1]:80", false, &a, err, sizeof(err)), 0);
	assert_int_equal(a.sa.ss_family, AF_INET6);

	assert_int_equal(hvt_netaddr_parse("vsock:2:1025", false, &a, err, sizeof(err)), 0);
	assert_int_equal(a.kind, HVT_ADDR_VSOCK);
	assert_int_equal(vm->svm_cid, 2);
	assert_int_equal(vm->svm_port, 1025);
	assert_int_equal(hvt_netaddr_parse("vsock:host:7", false, &a, err, sizeof(err)), 0);
	assert_int_equal(vm->svm_cid, VMADDR_CID_HOST);
	/* Listening: the CID may be left out or 'any'; port 0 picks one (tcp). */
	assert_int_equal(hvt_netaddr_parse("vsock:1025", true, &a, err, sizeof(err)), 0);
	assert_int_equal(vm->svm_cid, VMADDR_CID_ANY);
	assert_int_equal(hvt_netaddr_parse("vsock:any:1025", true, &a, err, sizeof(err)), 0);
	assert_int_equal(vm->svm_cid, VMADDR_CID_ANY);
	assert_int_equal(hvt_netaddr_parse("tcp:127.0.0.1:0", true, &a, err, sizeof(err)), 0);
}

static void refuses_with_reason(void **state)
{
	static const struct {
		const char *spec;
		bool listen;
		const char *why;
	} bad[] = {
		{ "/run/x.sock", false, "is not unix:PATH, tcp:HOST:PORT or vsock:CID:PORT" },
		{ "unix:", false, "unix socket path missing" },
		{ "tcp:127.0.0.1", false, "tcp address needs HOST:PORT" },
		{ "tcp:127.0.0.1:0", false, "port of 1-65535" },
		{ "tcp:127.0.0.1:65536", true, "port of 1-65535 (0: any free port)" },
		{ "tcp::80", false, "needs a host before the port" },
		{ "tcp:127.0.0.1:-1", true, "tcp address needs HOST:PORT" },
		{ "tcp:no.such.host.invalid:80", false, "tcp host no.such.host.invalid" },
		{ "vsock:1025", false, "vsock address needs CID:PORT" },
		{ "vsock:x:1025", false, "vsock address needs CID:PORT" },
		{ "vsock:any:", true, "vsock address needs PORT or any:PORT" },
	};
	struct hvt_netaddr a;
	char err[256], longpath[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(hvt_netaddr_parse(bad[i].spec, bad[i].listen, &a, err, sizeof(err)),
				 -1);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: \"%s\" does not say \"%s\"", bad[i].spec, err, bad[i].why);
		/* Every message names the address as given. */
		if (i && !strstr(err, bad[i].spec))
			fail_msg("%s: \"%s\" does not name the address", bad[i].spec, err);
	}
	memset(longpath, 'a', sizeof(longpath) - 1);
	memcpy(longpath, "unix:", 5);
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(hvt_netaddr_parse(longpath, false, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too long"));
}

/* Listens on @spec, connects, accepts: one byte each way. */
static void round_trip(const char *spec, char *bound, size_t size)
{
	struct hvt_netaddr l, c;
	char err[256], byte = 'x';
	int lfd, cfd, afd = -1, i;

	assert_int_equal(hvt_netaddr_parse(spec, true, &l, err, sizeof(err)), 0);
	lfd = hvt_netaddr_listen(&l, 4, err, sizeof(err));
	if (lfd < 0)
		fail_msg("listen %s: %s", spec, err);
	hvt_netaddr_bound(lfd, &l, bound, size);
	assert_int_equal(hvt_netaddr_parse(bound, false, &c, err, sizeof(err)), 0);
	cfd = hvt_netaddr_connect(&c);
	assert_true(cfd >= 0);
	for (i = 0; i < 100 && afd < 0; i++) {	/* the listener does not block */
		afd = accept(lfd, NULL, NULL);
		if (afd < 0)
			usleep(10000);
	}
	assert_true(afd >= 0);
	assert_int_equal(write(cfd, &byte, 1), 1);
	byte = 0;
	assert_int_equal(read(afd, &byte, 1), 1);
	assert_int_equal(byte, 'x');
	assert_int_equal(hvt_netaddr_peer_cid(afd), -1);	/* not vsock */
	close(afd);
	close(cfd);
	hvt_netaddr_unlisten(&l, lfd);
}

static void tcp_port_zero_listens_and_says_where(void **state)
{
	char bound[160], peer[160];

	(void)state;
	round_trip("tcp:127.0.0.1:0", bound, sizeof(bound));
	assert_non_null(strstr(bound, "tcp:127.0.0.1:"));
	assert_string_not_equal(bound, "tcp:127.0.0.1:0");
	hvt_netaddr_peer(-1, peer, sizeof(peer));	/* no socket: still says something */
	assert_string_equal(peer, "a unix socket");
}

static void unix_listener_replaces_stale_socket_only(void **state)
{
	char dir[] = "/tmp/hvtrace-test-netaddr-XXXXXX", spec[160], path[128], bound[160];
	struct hvt_netaddr a;
	char err[256];
	struct stat st;
	FILE *f;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s", dir);
	snprintf(spec, sizeof(spec), "unix:%s", path);
	round_trip(spec, bound, sizeof(bound));
	assert_string_equal(bound, spec);
	assert_int_equal(stat(path, &st), -1);	/* unlisten removed it */

	/* A socket file left by a collector that died is replaced... */
	assert_int_equal(hvt_netaddr_parse(spec, true, &a, err, sizeof(err)), 0);
	fd = hvt_netaddr_listen(&a, 1, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);	/* the file stays, as after a crash */
	fd = hvt_netaddr_listen(&a, 1, err, sizeof(err));
	assert_true(fd >= 0);
	/* ...one a process still listens on is not, and stays... */
	assert_int_equal(hvt_netaddr_listen(&a, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "another process listens there"));
	assert_int_equal(stat(path, &st), 0);
	hvt_netaddr_unlisten(&a, fd);
	/* ...and anything else at the path is the user's, and refused. */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(hvt_netaddr_listen(&a, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exists and is not a socket"));
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_each_kind),
		cmocka_unit_test(refuses_with_reason),
		cmocka_unit_test(tcp_port_zero_listens_and_says_where),
		cmocka_unit_test(unix_listener_replaces_stale_socket_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
