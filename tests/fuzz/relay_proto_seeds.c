// SPDX-License-Identifier: GPL-2.0-only
/*
 * relay_proto_seeds.c - writes the seed inputs of fuzz_relay_proto into DIR:
 * babeltrace2's conversation with a relay (connect, create a session, list,
 * attach, metadata, new streams, indexes, packets, detach), in the input
 * format of fuzz_relay_proto.c, so that the fuzzer starts from commands the
 * relay accepts.
 * usage: relay_proto_seeds DIR
 */
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/big_endian.h"

static unsigned char seed[4096];
static size_t len;

/* One command, in one piece (the piece byte first: 39 is 40 bytes). */
static void cmd(uint32_t c, const unsigned char *payload, size_t n)
{
	uint64_t size = htobe64(n);
	uint32_t be = htobe32(c), version = 0;

	seed[len++] = (unsigned char)(16 + n - 1);
	memcpy(seed + len, &size, 8);
	memcpy(seed + len + 8, &be, 4);
	memcpy(seed + len + 12, &version, 4);
	memcpy(seed + len + 16, payload, n);
	len += 16 + n;
}

static void write_seed(const char *dir, const char *name)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(seed, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A viewer's whole session; @state the first byte (fuzz_relay_proto.c). */
static void conversation(unsigned char state, uint32_t seek)
{
	unsigned char p[20];
	uint64_t id;

	len = 0;
	seed[len++] = state;
	memset(p, 0, sizeof(p));
	hvt_put_be32(p + 8, 2);
	hvt_put_be32(p + 12, 15);
	hvt_put_be32(p + 16, 1);
	cmd(1, p, 20);
	cmd(8, NULL, 0);
	cmd(2, NULL, 0);
	memset(p, 0, sizeof(p));
	hvt_put_be64(p, 1);
	hvt_put_be32(p + 16, seek);
	cmd(3, p, 20);
	hvt_put_be64(p, 1);
	cmd(6, p, 8);
	cmd(6, p, 8);
	cmd(7, p, 8);
	for (id = 2; id <= 3; id++) {
		hvt_put_be64(p, id);
		cmd(4, p, 8);
		hvt_put_be64(p, id);
		hvt_put_be64(p + 8, 0);
		hvt_put_be32(p + 16, 20);
		cmd(5, p, 20);
		hvt_put_be64(p, id);
		cmd(4, p, 8);
	}
	hvt_put_be64(p, 1);
	cmd(9, p, 8);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: relay_proto_seeds DIR\n");
		return 2;
	}
	conversation(0x00, 1);
	write_seed(argv[1], "from-beginning");
	conversation(0x15, 2);
	write_seed(argv[1], "from-now-beacon");
	conversation(0x81, 2);
	write_seed(argv[1], "finished-from-start");
	return 0;
}
