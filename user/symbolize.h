/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Addresses -> function names for the supervisor's off-CPU stacks:
 * kernel addresses from /proc/kallsyms, user addresses of a process through
 * elfutils' libdwfl. Not thread-safe: the reporter calls it from one thread.
 * Every lookup that fails writes "[unknown]" and returns -1; nothing here
 * crashes on a garbage address or on a pid that is gone.
 */
#ifndef NW_SYMBOLIZE_H
#define NW_SYMBOLIZE_H

#include <linux/types.h>
#include <stddef.h>

/* Processes whose Dwfl is kept; the least recently used one goes first. */
#define NW_SYMBOLIZE_MAX_PIDS 256

struct symbolizer;

/* NULL and errno on failure. Reads nothing yet: every table is lazy. */
struct symbolizer *symbolizer_new(void);
/* NULL is fine. */
void symbolizer_free(struct symbolizer *s);

/*
 * Kernel @addr -> "function" in @buf (at most @len bytes, always
 * terminated when @len > 0). /proc/kallsyms is read once, on first use,
 * and sorted; only text symbols (t, T, w, W) name an address, any other
 * symbol ends the function before it. A module's "func [mod]" is "func".
 * Returns 0; -1 with "[unknown]" when no text symbol covers @addr, when
 * kallsyms could not be read, or when it shows zero addresses
 * (kernel.kptr_restrict, or a reader without CAP_SYSLOG): the first
 * reading decides for the symbolizer's lifetime.
 */
int symbolize_kernel(struct symbolizer *s, __u64 addr, char *buf, size_t len);

/*
 * User @addr in process @pid (a tgid: threads share its maps) ->
 * "function". The process's mappings are read from /proc/PID/maps on its
 * first lookup and kept (one Dwfl per pid), so call it while the process is
 * alive, and symbolizer_forget() when it exits or execs. Symbols come from
 * the mapped ELF file's .symtab/.dynsym/.gnu_debugdata, or a local debug
 * file found by build ID (/usr/lib/debug/.build-id; never debuginfod).
 * C++ and Rust names are left mangled: demangle downstream (c++filt,
 * rustfilt) if wanted.
 * Returns 0 with the function's name, or 0 with "[libc.so.6]" (the mapped
 * file's basename in brackets, no offset: one frame per module, not one
 * per address) when @addr is mapped but no symbol covers it; -1 with
 * "[unknown]" when @addr is mapped nowhere or @pid cannot be read. A
 * failure to read @pid is remembered too, until symbolizer_forget().
 */
int symbolize_user(struct symbolizer *s, __u32 pid, __u64 addr, char *buf,
		   size_t len);

/* @pid exited (or its maps changed): drop what is kept for it. */
void symbolizer_forget(struct symbolizer *s, __u32 pid);

#endif /* NW_SYMBOLIZE_H */
