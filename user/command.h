/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced COMMAND: forked first and held at a gate, so its pid can be
 * put in the traced set before it runs; released once tracing is attached.
 */
#ifndef NW_COMMAND_H
#define NW_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>
#include "privilege.h"

struct command {
	pid_t pid;
	int gate_fd; /* parent's end: closing it lets the child exec */
	int exec_err_fd; /* child's exec errno arrives here, EOF on success */
	bool exited;
	int status; /* wait status once exited */
};

/* Whether execvp(@file) could find and run it: 0 or -errno. */
int command_check(const char *file);
/* Forks it, held at the gate; it takes @cred before it execs. */
int command_spawn(struct command *c, char **argv, const struct cmd_cred *cred);
/* Lets the child exec; returns 0 or -errno of a failed exec. */
int command_release(struct command *c);
/* Reaps without blocking (@block false) or waits; true once exited. */
bool command_reap(struct command *c, bool block);
/* The exit code a shell would give: status, or 128 + signal. */
int command_exit_code(const struct command *c);
/* Sends @sig to it, or to its process group if it leads one: 0 or -errno. */
int command_signal(struct command *c, int sig);
/* SIGKILL, then reaps it, waiting 2 s at most. */
void command_kill(struct command *c);

#endif /* NW_COMMAND_H */
