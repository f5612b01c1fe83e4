/* SPDX-License-Identifier: GPL-2.0 */
/* Syscall names and numbers of this machine's native ABI, from libseccomp. */
#ifndef NW_SYSCALLS_H
#define NW_SYSCALLS_H

/* The name of @nr ("nr_N" for numbers libseccomp does not know). */
const char *nw_syscall_name(int nr);
/* The number of @name (a name or a decimal number), or -1. */
int nw_syscall_number(const char *name);

#endif /* NW_SYSCALLS_H */
