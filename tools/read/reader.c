// SPDX-License-Identifier: GPL-2.0-only
/*
 * reader.c - what every reader shares (reader.h).
 */
#include <string.h>

#include "tools/read/reader.h"

void hvt_reader_stats(const struct hvt_reader *rd, struct hvt_reader_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (rd->ops)
		rd->ops->stats(rd->r, st);
}

void hvt_reader_close(struct hvt_reader *rd)
{
	if (rd->ops)
		rd->ops->close(rd->r);
	memset(rd, 0, sizeof(*rd));
}
