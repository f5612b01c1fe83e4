/* SPDX-License-Identifier: GPL-2.0 */
/* Whether a pid given to -p/-s can ever be a target or a supervisor. */
#ifndef NW_PID_CHECK_H
#define NW_PID_CHECK_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * A kernel thread (kthreadd is pid 2, kworkers, ...) never makes a system
 * call, so it is never a seccomp target nor a supervisor. False when
 * /proc/PID/stat cannot be read.
 */
bool nw_is_kernel_thread(pid_t pid);

#endif /* NW_PID_CHECK_H */
