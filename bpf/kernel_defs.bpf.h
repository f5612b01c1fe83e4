/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel macros vmlinux.h cannot carry (BTF has no #defines), x86_64. */
#ifndef KERNEL_DEFS_BPF_H
#define KERNEL_DEFS_BPF_H

#define NR_IOCTL 16 /* x86_64 */
/* the waits a supervisor polls its listener in (x86_64) */
#define NR_POLL 7
#define NR_SELECT 23
#define NR_EPOLL_WAIT 232
#define NR_PSELECT6 270
#define NR_PPOLL 271
#define NR_EPOLL_PWAIT 281
#define NR_EPOLL_PWAIT2 441
#define ERESTARTSYS 512
#define SIGKILL 9
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_WAKEKILL 0x100
#define TASK_KILLABLE (TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#ifndef TASK_RUNNING
#define TASK_RUNNING 0x0000
#endif
#define SLEEP_STATE_MASK (TASK_INTERRUPTIBLE | TASK_KILLABLE)
/* 6.1+: asleep in __refrigerator (the system or cgroup v1 freezer) */
#define TASK_FROZEN 0x8000
/* records or facts queued before a wake-up of the reporter */
#define WAKEUP_BATCH_BYTES (64 * 1024)

#endif /* KERNEL_DEFS_BPF_H */
