/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NW_SPAWN_H
#define NW_SPAWN_H

#include <sys/types.h>

pid_t nw_spawn(const char *role, int (*fn)(void *), void *arg);
pid_t nw_spawn_target(const char *role, int (*fn)(void *), void *arg);
int nw_reap(pid_t pid, int timeout_ms, int *status);
int nw_reap_all(int *status);

#endif /* NW_SPAWN_H */
