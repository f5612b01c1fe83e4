// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize.h: kallsyms read once into one sorted array (names in one pool),
 * and one libdwfl session per process, kept in a bounded LRU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>
#define HASH_NONFATAL_OOM 1 /* an add that fails leaves hh.tbl NULL */
#include <uthash.h>
#include "symbolize.h"

#define UNKNOWN "[unknown]"
/* Past the last symbol in kallsyms no next symbol ends the function. */
#define KSYM_LAST_MAX_SIZE (64 * 1024)
#define KSYM_NO_NAME UINT32_MAX /* a non-text symbol: it only ends one */

struct ksym {
	__u64 addr;
	__u32 name; /* offset in the pool, or KSYM_NO_NAME */
	__u32 rank; /* while sorting: 2 global text, 1 local text, 0 other */
	size_t index; /* while sorting: the line, for a stable order */
};

enum ksyms_state { KSYMS_UNREAD, KSYMS_READ, KSYMS_UNAVAILABLE };

struct proc {
	__u32 pid;
	Dwfl *dwfl; /* NULL: the process could not be read */
	UT_hash_handle hh;
};

struct symbolizer {
	enum ksyms_state ksyms_state;
	struct ksym *ksyms;
	size_t nksyms;
	char *pool;
	size_t pool_len;
	struct proc *procs; /* insertion order is use order: oldest first */
};

static int put(char *buf, size_t len, const char *s, int ret)
{
	size_t n;

	if (!len)
		return ret;
	n = strlen(s);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return ret;
}

struct symbolizer *symbolizer_new(void)
{
	return calloc(1, sizeof(struct symbolizer)); /* errno: ENOMEM */
}

void symbolizer_free(struct symbolizer *s)
{
	struct proc *p, *tmp;

	if (!s)
		return;
	HASH_ITER(hh, s->procs, p, tmp) {
		HASH_DEL(s->procs, p);
		if (p->dwfl)
			dwfl_end(p->dwfl);
		free(p);
	}
	free(s->ksyms);
	free(s->pool);
	free(s);
}

/* ---- kernel ---- */

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank) /* the best name for an address first */
		return x->rank > y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* "ffffffff8224a190 T schedule" or "... t func\t[mod]": 0, or -1 to skip */
static int parse_kallsyms_line(char *line, __u64 *addr, char *type, char **name,
			       size_t *name_len)
{
	char *end;

	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return -1;
	*type = end[1];
	if (!*type || end[2] != ' ')
		return -1;
	*name = end + 3;
	*name_len = strcspn(*name, " \t\n");
	return *name_len ? 0 : -1;
}

static int add_ksym(struct symbolizer *s, size_t *cap, __u64 addr, char type,
		    const char *name, size_t name_len, size_t *pool_cap)
{
	int text = type == 't' || type == 'T' || type == 'w' || type == 'W';
	struct ksym *k;

	if (s->nksyms == *cap) {
		size_t ncap = *cap ? *cap * 2 : 65536;
		struct ksym *n = realloc(s->ksyms, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->ksyms = n;
		*cap = ncap;
	}
	k = &s->ksyms[s->nksyms];
	k->addr = addr;
	k->index = s->nksyms;
	k->rank = text ? (type == 'T' || type == 'W' ? 2 : 1) : 0;
	k->name = KSYM_NO_NAME;
	if (text) {
		if (s->pool_len + name_len + 1 > *pool_cap) {
			size_t ncap = *pool_cap ? *pool_cap * 2 : 1 << 20;
			char *n;

			while (ncap < s->pool_len + name_len + 1)
				ncap *= 2;
			if (ncap > UINT32_MAX || !(n = realloc(s->pool, ncap)))
				return -ENOMEM;
			s->pool = n;
			*pool_cap = ncap;
		}
		k->name = (__u32)s->pool_len;
		memcpy(s->pool + s->pool_len, name, name_len);
		s->pool[s->pool_len + name_len] = '\0';
		s->pool_len += name_len + 1;
	}
	s->nksyms++;
	return 0;
}

static void drop_ksyms(struct symbolizer *s)
{
	free(s->ksyms);
	free(s->pool);
	s->ksyms = NULL;
	s->pool = NULL;
	s->nksyms = s->pool_len = 0;
	s->ksyms_state = KSYMS_UNAVAILABLE;
}

static void read_kallsyms(struct symbolizer *s)
{
	size_t cap = 0, pool_cap = 0, line_cap = 0, i, out;
	char *line = NULL;
	int nonzero = 0;
	FILE *f;

	s->ksyms_state = KSYMS_UNAVAILABLE;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while (getline(&line, &line_cap, f) > 0) {
		char type, *name;
		size_t name_len;
		__u64 addr;

		if (parse_kallsyms_line(line, &addr, &type, &name, &name_len))
			continue;
		if (add_ksym(s, &cap, addr, type, name, name_len, &pool_cap)) {
			free(line);
			fclose(f);
			drop_ksyms(s);
			return;
		}
		if (addr && s->ksyms[s->nksyms - 1].name != KSYM_NO_NAME)
			nonzero = 1;
	}
	free(line);
	fclose(f);
	if (!nonzero) { /* kptr_restrict: every address reads as 0 */
		drop_ksyms(s);
		return;
	}
	qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), ksym_cmp);
	/* one entry per address: the best name, sorted first */
	for (i = 0, out = 0; i < s->nksyms; i++)
		if (!out || s->ksyms[out - 1].addr != s->ksyms[i].addr)
			s->ksyms[out++] = s->ksyms[i];
	s->nksyms = out;
	s->ksyms_state = KSYMS_READ;
}

int symbolize_kernel(struct symbolizer *s, __u64 addr, char *buf, size_t len)
{
	size_t lo = 0, hi;
	const struct ksym *k;

	if (s->ksyms_state == KSYMS_UNREAD)
		read_kallsyms(s);
	if (s->ksyms_state != KSYMS_READ || !s->nksyms)
		return put(buf, len, UNKNOWN, -1);
	/* the last symbol at or below addr */
	hi = s->nksyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return put(buf, len, UNKNOWN, -1);
	k = &s->ksyms[lo - 1];
	if (k->name == KSYM_NO_NAME)
		return put(buf, len, UNKNOWN, -1);
	if (lo == s->nksyms && addr - k->addr >= KSYM_LAST_MAX_SIZE)
		return put(buf, len, UNKNOWN, -1);
	return put(buf, len, s->pool + k->name, 0);
}

/* ---- user ---- */

/*
 * Debug files by build ID in the local paths only: dwfl_standard_find_debuginfo
 * would also ask debuginfod (DEBUGINFOD_URLS) over the network mid-trace.
 */
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

static Dwfl *report_proc(__u32 pid)
{
	Dwfl *d = dwfl_begin(&proc_callbacks);

	if (!d)
		return NULL;
	dwfl_report_begin(d);
	if (dwfl_linux_proc_report(d, (pid_t)pid) != 0 ||
	    dwfl_report_end(d, NULL, NULL) != 0) {
		dwfl_end(d);
		return NULL;
	}
	return d;
}

static void evict_oldest(struct symbolizer *s)
{
	struct proc *p = s->procs;

	HASH_DEL(s->procs, p);
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p);
}

static struct proc *find_proc(struct symbolizer *s, __u32 pid)
{
	struct proc *p;

	HASH_FIND(hh, s->procs, &pid, sizeof(pid), p);
	if (p) {
		/* most recently used: to the end of the order (not the only
		 * entry, so the table stays and the add cannot fail) */
		if (p->hh.next) {
			HASH_DEL(s->procs, p);
			HASH_ADD(hh, s->procs, pid, sizeof(p->pid), p);
		}
		return p;
	}
	if (HASH_COUNT(s->procs) >= NW_SYMBOLIZE_MAX_PIDS)
		evict_oldest(s);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->dwfl = report_proc(pid);
	HASH_ADD(hh, s->procs, pid, sizeof(p->pid), p);
	if (!p->hh.tbl) { /* out of memory */
		if (p->dwfl)
			dwfl_end(p->dwfl);
		free(p);
		return NULL;
	}
	return p;
}

/* "[libc.so.6]" from "/usr/lib/x86_64-linux-gnu/libc.so.6"; "[vdso]" */
static int module_fallback(Dwfl_Module *mod, char *buf, size_t len)
{
	const char *name, *base;
	char tmp[256];

	name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!name || !*name)
		return put(buf, len, UNKNOWN, -1);
	if (name[0] == '[') /* libdwfl's own: "[vdso: 1234]" */
		snprintf(tmp, sizeof(tmp), "[%.*s]",
			 (int)strcspn(name + 1, ":]"), name + 1);
	else {
		base = strrchr(name, '/');
		base = base && base[1] ? base + 1 : name;
		snprintf(tmp, sizeof(tmp), "[%s]", base);
	}
	return put(buf, len, tmp, 0);
}

int symbolize_user(struct symbolizer *s, __u32 pid, __u64 addr, char *buf,
		   size_t len)
{
	Dwarf_Addr start, end;
	Dwfl_Module *mod;
	const char *name;
	GElf_Off off;
	GElf_Sym sym;
	struct proc *p;

	p = find_proc(s, pid);
	if (!p || !p->dwfl)
		return put(buf, len, UNKNOWN, -1);
	/* libdwfl's segment lookup may answer past the last module's end */
	mod = dwfl_addrmodule(p->dwfl, (Dwarf_Addr)addr);
	if (!mod ||
	    !dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL,
			      NULL) ||
	    addr < start || addr >= end)
		return put(buf, len, UNKNOWN, -1);
	name = dwfl_module_addrinfo(mod, (GElf_Addr)addr, &off, &sym, NULL,
				    NULL, NULL);
	if (name && *name) /* C++/Rust: still mangled, see symbolize.h */
		return put(buf, len, name, 0);
	return module_fallback(mod, buf, len);
}

void symbolizer_forget(struct symbolizer *s, __u32 pid)
{
	struct proc *p;

	if (!s)
		return;
	HASH_FIND(hh, s->procs, &pid, sizeof(pid), p);
	if (!p)
		return;
	HASH_DEL(s->procs, p);
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p);
}
