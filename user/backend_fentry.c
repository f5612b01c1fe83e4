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

static int fentry_probe(struct btf *vmlinux, char *why, size_t len)
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
	if (!backend_has_func(vmlinux, BRACKET_FUNC) &&
	    !backend_has_func(vmlinux, BRACKET_CALLER)) {
		snprintf(why, len, "neither %s nor %s in BTF", BRACKET_FUNC,
			 BRACKET_CALLER);
		return -ESRCH;
	}
	return 0;
}

static void fentry_select(struct notifwait_bpf *skel, struct btf *vmlinux,
			  char *what, size_t len)
{
	bool exact = backend_has_func(vmlinux, BRACKET_FUNC);

	if (exact) {
		backend_enable(skel, "fentry_notify");
		backend_enable(skel, "fexit_notify");
	} else {
		backend_enable(skel, "fentry_filter");
		backend_enable(skel, "fexit_filter");
	}
	backend_enable(skel, "fentry_wait_interruptible");
	backend_enable(skel, "fentry_wait_killable");
	backend_enable(skel, "fentry_notify_ioctl");
	backend_enable(skel, "fexit_notify_ioctl");
	snprintf(what, len,
		 "fentry/fexit on %s%s, wait_for_completion_interruptible/killable, seccomp_notify_ioctl",
		 exact ? BRACKET_FUNC : BRACKET_CALLER,
		 exact ? "" : " (" BRACKET_FUNC " is not in BTF)");
}

const struct backend_variant backend_fentry = {
	.name = "fentry",
	.probe = fentry_probe,
	.select = fentry_select,
};
