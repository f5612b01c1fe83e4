/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege. COMMAND runs as the invoking user (SUDO_UID/SUDO_GID
 * and that user's groups, or -u USER; root only with --as-root or when
 * root ran notifwait without sudo) and never inherits notifwait's
 * capabilities. notifwait itself, once every program is attached, keeps
 * only the capabilities it still uses and sets no_new_privs
 * (docs/privileges.md).
 */
#ifndef NW_PRIVILEGE_H
#define NW_PRIVILEGE_H

#include <stdbool.h>
#include <sys/types.h>

struct cmd_cred {
	bool change; /* switch to uid, gid and groups before exec */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	bool drop_caps; /* clear every capability set before exec */
};

/*
 * Who COMMAND runs as: @user (-u), else root with @as_root, else
 * SUDO_UID/SUDO_GID when notifwait runs as root, else notifwait's own
 * user. Prints one line and returns -errno on a bad user.
 */
int cmd_cred_resolve(struct cmd_cred *c, const char *user, bool as_root);
/* In the child, before exec: 0 or -errno. */
int cmd_cred_apply(const struct cmd_cred *c);
void cmd_cred_free(struct cmd_cred *c);

struct keep_caps {
	bool kill; /* COMMAND runs as another user: signal it at the end */
	bool dac_override; /* --prom-file: its directory may not be ours */
	bool sys_ptrace; /* --supervisor-stacks: read a supervisor's maps */
};

/* 0 if a bpf() call on an fd already open still works, else -errno. */
typedef int (*bpf_probe_fn)(void *ctx);

/*
 * After attaching: every capability but @keep (and CAP_BPF if @probe says
 * the kernel still wants it for bpf() on open fds, as older kernels
 * did with unprivileged BPF disabled) leaves every set, the ambient set is
 * cleared, no_new_privs is set. Call before starting any thread: threads
 * inherit, but do not share, these. Writes what it kept into @kept.
 */
int privilege_drop(const struct keep_caps *keep, bpf_probe_fn probe, void *ctx,
		   char *kept, size_t len);

#endif /* NW_PRIVILEGE_H */
