// SPDX-License-Identifier: GPL-2.0
/*
 * The fentry backend: fentry/fexit on the notification bracket, on the
 * completion waits and on seccomp_notify_ioctl. Exact where the tracepoint
 * backend infers, and no syscall tracepoints for unrelated tasks to pay.
 * Needs the functions in the kernel's BTF and a kernel that allows fentry.
 */
#include <errno.h>
#include <stdio.h>
#include "backend.h"

#define BRACKET_FUNC "seccomp_do_user_notification"
/* gcc may clone it (.isra.0, .constprop.0): pahole then drops it from BTF */
#define BRACKET_CALLER "__seccomp_filter"

static const char *const needed[] = {
	"wait_for_completion_interruptible",
	"wait_for_completion_killable",
	"seccomp_notify_ioctl",
};

static int needed_funcs(struct btf *vmlinux, char *why, size_t len)
{
	unsigned int i;

	if (!vmlinux) {
		snprintf(why, len, "cannot read the kernel's BTF");
		return -ENOENT;
	}
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (!backend_has_func(vmlinux, needed[i])) {
			snprintf(why, len, "%s not in BTF", needed[i]);
			return -ESRCH;
		}
	}
	return 0;
}

static int exact_probe(struct btf *vmlinux, char *why, size_t len)
{
	int err = needed_funcs(vmlinux, why, len);

	if (err)
		return err;
	if (!backend_has_func(vmlinux, BRACKET_FUNC)) {
		snprintf(why, len, "%s not in BTF (a compiler clone?)",
			 BRACKET_FUNC);
		return -ESRCH;
	}
	return 0;
}

static int caller_probe(struct btf *vmlinux, char *why, size_t len)
{
	int err = needed_funcs(vmlinux, why, len);

	if (err)
		return err;
	if (!backend_has_func(vmlinux, BRACKET_CALLER)) {
		snprintf(why, len, "%s not in BTF", BRACKET_CALLER);
		return -ESRCH;
	}
	return 0;
}

static const char *const exact_progs[] = {
	"fentry_notify",
	"fexit_notify",
	"fentry_wait_interruptible",
	"fentry_wait_killable",
	"fentry_notify_ioctl",
	"fexit_notify_ioctl",
	"tp_switch_watch", /* a signal's wait for a CPU: pending_split */
	NULL,
};

static const char *const caller_progs[] = {
	"fentry_filter",
	"fexit_filter",
	"fentry_wait_interruptible",
	"fentry_wait_killable",
	"fentry_notify_ioctl",
	"fexit_notify_ioctl",
	"tp_switch_watch", /* a signal's wait for a CPU: pending_split */
	NULL,
};

/* The freezer, for interrupt_cause: the wait's end then had no signal. */
static const char *const freezer_progs[] = {
	"fentry_refrigerator",
	"fentry_enter_frozen",
	NULL,
};

static void exact_describe(char *what, size_t len)
{
	snprintf(
		what, len,
		"fentry/fexit on " BRACKET_FUNC
		", wait_for_completion_interruptible/killable, seccomp_notify_ioctl; facts joined in user space");
}

static void caller_describe(char *what, size_t len)
{
	snprintf(
		what, len,
		"fentry/fexit on " BRACKET_CALLER " (" BRACKET_FUNC
		" is not in BTF), wait_for_completion_interruptible/killable, seccomp_notify_ioctl; facts joined in user space");
}

const struct backend_variant backend_fentry = {
	.name = "fentry",
	.label = "fentry",
	.progs = exact_progs,
	.optional_progs = freezer_progs,
	.probe = exact_probe,
	.describe = exact_describe,
};

/* Tried after kprobes: a kprobe on the clone is exact, this is not. */
const struct backend_variant backend_fentry_caller = {
	.name = "fentry",
	.label = "fentry via " BRACKET_CALLER,
	.progs = caller_progs,
	.optional_progs = freezer_progs,
	.probe = caller_probe,
	.describe = caller_describe,
};
