// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: any bytes as a recording, every entry fed to the joiner as
 * --replay does, each record formatted as JSON and thrown away.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include "joiner.h"
#include "json_record.h"
#include "recording.h"

static FILE *sink;

static void on_knotif(struct knotif *k, void *ctx)
{
	(void)ctx;
	json_write_knotif(sink, k);
}

static void on_reply_failed(const struct nw_reply_failed_event *r, void *ctx)
{
	(void)ctx;
	json_write_reply_failed(sink, r);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct joiner_config cfg = { .max_knotifs = 64,
				     .knotif = on_knotif,
				     .reply_failed = on_reply_failed };
	struct recording_reader *r;
	struct recording_entry e;
	struct joiner *j;
	char *buf = NULL;
	size_t len = 0;

	r = recording_open_mem(data, size, NULL, 0);
	if (!r)
		return 0;
	sink = open_memstream(&buf, &len);
	j = sink ? joiner_new(&cfg) : NULL;
	while (j && recording_next(r, &e) == RECORDING_ENTRY) {
		if (e.kind < NW_FACT_KIND_MAX)
			joiner_feed(j, e.data, e.size);
		else if (e.kind == NW_REC_TICK)
			joiner_tick(
				j,
				((const struct nw_rec_tick *)e.data)->now_ns);
		/* a memstream grows without bound: keep one input's output small */
		if (len > (1 << 20))
			rewind(sink);
	}
	if (j) {
		joiner_finish(j);
		joiner_free(j);
	}
	if (sink)
		fclose(sink);
	free(buf);
	recording_close_reader(r);
	return 0;
}
