// SPDX-License-Identifier: GPL-2.0
/* sup_stacks.h: ids -> addresses -> names -> folded stacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#define HASH_NONFATAL_OOM 1
#include <uthash.h>
#include "folded.h"
#include "sup_stacks.h"
#include "symbolize.h"

#define LOST_FRAME "[lost]"
/* comm, user frames, kernel frames */
#define MAX_FRAMES (1 + 2 * NW_SUP_STACK_DEPTH)

struct stack_key {
	__u32 tgid;
	__s32 kstack, ustack;
};

/* One process's stack pair, symbolized once. */
struct named_stack {
	UT_hash_handle hh;
	struct stack_key key;
	size_t n; /* frames[0] is the comm's slot, filled per add */
	char comm[17]; /* /proc/TGID/comm, for threads the joiner has none of */
	char *frames[MAX_FRAMES];
};

struct sup_stacks {
	sup_stack_lookup_fn lookup;
	void *ctx;
	struct symbolizer *sym;
	struct folded *folded;
	struct named_stack *named;
	unsigned long long unresolved;
};

struct sup_stacks *sup_stacks_new(sup_stack_lookup_fn lookup, void *ctx)
{
	struct sup_stacks *s = calloc(1, sizeof(*s));
	char name[8];

	if (!s)
		return NULL;
	s->lookup = lookup;
	s->ctx = ctx;
	s->sym = symbolizer_new();
	s->folded = folded_new();
	if (!s->sym || !s->folded) {
		sup_stacks_free(s);
		errno = ENOMEM;
		return NULL;
	}
	/* kallsyms now, while the reporter may still read its addresses */
	symbolize_kernel(s->sym, 0, name, sizeof(name));
	return s;
}

static void read_comm(__u32 tgid, char *buf, size_t len)
{
	char path[32];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, len, f))
		snprintf(buf, len, "[unknown]");
	else
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static void named_free(struct named_stack *e)
{
	size_t i;

	for (i = 1; i < e->n; i++)
		free(e->frames[i]);
	free(e);
}

void sup_stacks_free(struct sup_stacks *s)
{
	struct named_stack *e, *tmp;

	if (!s)
		return;
	HASH_ITER(hh, s->named, e, tmp) {
		HASH_DEL(s->named, e);
		named_free(e);
	}
	folded_free(s->folded);
	symbolizer_free(s->sym);
	free(s);
}

static int push(struct named_stack *e, const char *name, const char *suffix)
{
	if (e->n == MAX_FRAMES)
		return 0;
	if (asprintf(&e->frames[e->n], "%s%s", name, suffix) < 0) {
		e->frames[e->n] = NULL;
		return -ENOMEM;
	}
	e->n++;
	return 0;
}

/* The tracer's own frames at a kernel stack's leaf: the program, its caller. */
static bool tracing_frame(const char *name)
{
	return !strcmp(name, "[unknown]_[k]") || !strncmp(name, "bpf_", 4) ||
	       !strncmp(name, "__bpf_trace", 11) ||
	       !strncmp(name, "__traceiter_", 12);
}

/* One half, root first: ips are leaf first. */
static int push_half(struct sup_stacks *s, struct named_stack *e, __s32 id,
		     bool kernel)
{
	const char *suffix = kernel ? "_[k]" : "";
	__u64 ips[NW_SUP_STACK_DEPTH];
	size_t first = e->n; /* this half's first frame */
	char name[256];
	int n, i, err = 0;

	if (id < 0)
		return push(e, LOST_FRAME, suffix);
	n = s->lookup(s->ctx, id, ips);
	if (n < 0) {
		s->unresolved++;
		return push(e, LOST_FRAME, suffix);
	}
	if (n > NW_SUP_STACK_DEPTH)
		n = NW_SUP_STACK_DEPTH;
	for (i = n - 1; i >= 0 && !err; i--) {
		if (kernel)
			symbolize_kernel(s->sym, ips[i], name, sizeof(name));
		else
			symbolize_user(s->sym, e->key.tgid, ips[i], name,
				       sizeof(name));
		/* "clock_nanosleep@GLIBC_2.2.5": the version says nothing here */
		if (name[0] != '[')
			name[strcspn(name, "@")] = '\0';
		err = push(e, name, suffix);
	}
	while (kernel && !err && e->n > first + 1 &&
	       tracing_frame(e->frames[e->n - 1]))
		free(e->frames[--e->n]);
	return err;
}

static struct named_stack *named_of(struct sup_stacks *s,
				    const struct stack_key *key)
{
	struct named_stack *e;

	HASH_FIND(hh, s->named, key, sizeof(*key), e);
	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = *key;
	e->n = 1;
	if (push_half(s, e, key->ustack, false) ||
	    push_half(s, e, key->kstack, true)) {
		named_free(e);
		return NULL;
	}
	HASH_ADD(hh, s->named, key, sizeof(e->key), e);
	if (!e->hh.tbl) {
		named_free(e);
		return NULL;
	}
	return e;
}

void sup_stacks_seen(struct sup_stacks *s, __u32 tgid)
{
	char name[8];

	symbolize_user(s->sym, tgid, 0, name, sizeof(name));
}

void sup_stacks_add(struct sup_stacks *s, __u32 tgid, __u32 tid,
		    const char *comm, __s32 kstack, __s32 ustack,
		    __u64 weight_ns)
{
	struct stack_key key = { .tgid = tgid };
	struct named_stack *e;

	(void)tid; /* threads of a process share its maps and its line */
	key.kstack = kstack < 0 ? -1 : kstack;
	key.ustack = ustack < 0 ? -1 : ustack;
	e = named_of(s, &key);
	if (!e)
		return; /* out of memory: the weight is not added */
	if (!comm || !*comm) {
		/* a worker that never received has no TASK fact: its process's */
		if (!e->comm[0])
			read_comm(tgid, e->comm, sizeof(e->comm));
		comm = e->comm;
	}
	e->frames[0] = (char *)comm;
	folded_add(s->folded, (const char *const *)e->frames, e->n, weight_ns);
	e->frames[0] = NULL;
}

int sup_stacks_write(const struct sup_stacks *s, FILE *out)
{
	return folded_write(s->folded, out);
}

const struct folded *sup_stacks_folded(const struct sup_stacks *s)
{
	return s->folded;
}

unsigned long long sup_stacks_unresolved(const struct sup_stacks *s)
{
	return s->unresolved;
}
