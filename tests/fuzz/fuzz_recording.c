// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the reader alone, every entry's bytes touched. */
#include <string.h>
#include "recording.h"

/* what the reads add up to: kept, so the compiler keeps the reads */
unsigned char fuzz_sum;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct recording_reader *r;
	struct recording_entry e;
	unsigned char sum = 0;
	char err[160];
	size_t i;

	r = recording_open_mem(data, size, err, sizeof(err));
	if (!r)
		return 0;
	sum ^= (unsigned char)strlen(recording_header(r)->backend_reason);
	while (recording_next(r, &e) == RECORDING_ENTRY)
		for (i = 0; i < e.size; i++)
			sum ^= ((const unsigned char *)e.data)[i];
	if (recording_error(r))
		sum ^= (unsigned char)strlen(recording_error(r));
	sum ^= recording_cut_short(r);
	fuzz_sum ^= sum;
	recording_close_reader(r);
	return 0;
}
