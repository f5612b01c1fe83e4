/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NW_IDS_H
#define NW_IDS_H

#include <sys/types.h>

struct nw_ids {
	pid_t pid, tid;		/* host */
	pid_t ns_pid, ns_tid;	/* own pid namespace */
};

int nw_thread_ids(struct nw_ids *ids);

#endif /* NW_IDS_H */
