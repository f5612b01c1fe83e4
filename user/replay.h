/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --replay FILE: a recording's entries fed to the joiner in the order the
 * live run fed them, so the sinks get the live run's records; no BPF, no
 * root. Also the counters' list form, shared with --record.
 */
#ifndef NW_REPLAY_H
#define NW_REPLAY_H

#include <linux/types.h>
#include "joiner.h"
#include "notifwait.h"
#include "recording.h"

#define NW_COUNTERS_LEN (sizeof(struct nw_counters) / sizeof(__u64))

/*
 * Opens @path and reads it through once: a corrupt or foreign file is
 * refused before any record is reported. NULL after one line on stderr.
 */
struct recording_reader *replay_open(const char *path);

typedef void (*replay_tick_fn)(__u64 now_ns, void *ctx);

/*
 * Every entry to @j: facts fed, ticks applied (then @tick, for intervals),
 * the last COUNTERS entry into @bpf. Ends at END or the last whole entry.
 */
void replay_feed(struct recording_reader *r, struct joiner *j,
		 struct nw_counters *bpf, replay_tick_fn tick, void *ctx);

/* struct nw_counters as the list a COUNTERS entry holds, and back. */
void nw_counters_to_list(const struct nw_counters *c,
			 __u64 values[NW_COUNTERS_LEN]);
void nw_counters_from_list(struct nw_counters *c, const __u64 *values,
			   unsigned int count);

#endif /* NW_REPLAY_H */
