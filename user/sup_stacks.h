/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --supervisor-stacks FILE: the stacks supervisor threads blocked in while
 * they held a notification, weighted by the nanoseconds blocked, as folded
 * stacks (folded.h). A stack is "comm;user frames;kernel frames_[k]", root
 * first, the leaf (usually schedule_[k]) last. The joiner hands over stack
 * map ids; a lookup callback turns an id into addresses (BPF's stack map
 * live, anything in tests), symbolize.h names them. Nothing here needs
 * libbpf.
 */
#ifndef NW_SUP_STACKS_H
#define NW_SUP_STACKS_H

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

#include "facts.h"

/* Frames of one stack, as BPF's stack map keeps them. */
#define NW_SUP_STACK_DEPTH NW_STACK_DEPTH

/*
 * Fills @ips (leaf first, as bpf_get_stackid() stores them; a zero ends
 * it) for stack map id @id. Returns the frame count, or -errno.
 */
typedef int (*sup_stack_lookup_fn)(void *ctx, __s32 id,
				   __u64 ips[NW_SUP_STACK_DEPTH]);

struct sup_stacks;

/* NULL (errno) on failure. Reads /proc/kallsyms now: call it privileged. */
struct sup_stacks *sup_stacks_new(sup_stack_lookup_fn lookup, void *ctx);
/* NULL is fine. */
void sup_stacks_free(struct sup_stacks *s);

/*
 * A STACK fact of @tgid came out of the ring buffer: its mappings are read
 * now, while it surely lives (the joiner adds its stacks some 20 ms later,
 * at the reply, when a short-lived process may be gone).
 */
void sup_stacks_seen(struct sup_stacks *s, __u32 tgid);

/*
 * @tid of process @tgid (named @comm) slept @weight_ns in the stacks
 * @kstack and @ustack (map ids, or -errno where BPF could not take one:
 * that half is one "[lost]" frame). Symbolized now, while the process is
 * alive; the same ids of the same process are looked up once.
 */
void sup_stacks_add(struct sup_stacks *s, __u32 tgid, __u32 tid,
		    const char *comm, __s32 kstack, __s32 ustack,
		    __u64 weight_ns);

/* Every stack, heaviest first; 0 or -errno (folded_write). */
int sup_stacks_write(const struct sup_stacks *s, FILE *out);

struct folded;
/* The folded table, for the summary's top stacks. */
const struct folded *sup_stacks_folded(const struct sup_stacks *s);

/* Stacks whose ids the lookup could not resolve (evicted, a bad id). */
unsigned long long sup_stacks_unresolved(const struct sup_stacks *s);

#endif /* NW_SUP_STACKS_H */
