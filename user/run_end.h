/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a run ends: SIGINT, SIGTERM, SIGHUP or the -d duration. Without a
 * COMMAND the loop just stops. With one, the COMMAND is sent the signal
 * (SIGTERM when -d expires), as timeout(1) does, to its process group if
 * it leads one; it gets NW_GRACE_S to end, then SIGKILL; a second signal
 * sends SIGKILL at once. If even SIGKILL does not reap it within
 * NW_REAP_S (a task stuck in the kernel), the run ends without it.
 */
#ifndef NW_RUN_END_H
#define NW_RUN_END_H

#include <stdbool.h>
#include <linux/types.h>
#include "command.h"

#define NW_GRACE_S 5
#define NW_REAP_S 2

/* Handlers for SIGINT, SIGTERM and SIGHUP (no SA_RESTART: polls return). */
void run_end_install(void);
/* The first ending signal received, 0 if none yet. */
int run_end_signal(void);

enum run_end_phase {
	RUN_END_RUNNING,
	RUN_END_GRACE, /* the COMMAND was sent the signal */
	RUN_END_KILLED, /* ... then SIGKILL */
	RUN_END_DONE, /* stop the loop */
};

struct run_end {
	enum run_end_phase phase;
	int sent; /* the signal forwarded first */
	unsigned int signals_seen; /* when the grace began; more escalate */
	__u64 kill_at_ns, give_up_ns;
	bool gave_up; /* SIGKILL did not reap the COMMAND in NW_REAP_S */
};

/*
 * One step, called every poll interval: @cmd NULL without a COMMAND,
 * @expired once -d has passed. Says on stderr what it does. True once the
 * tracing loop should stop.
 */
bool run_end_step(struct run_end *e, struct command *cmd, bool expired,
		  __u64 now_ns);

#endif /* NW_RUN_END_H */
