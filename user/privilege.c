// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "privilege.h"

static int parse_id(const char *s, unsigned long *id)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*id = strtoul(s, &end, 10);
	if (errno || *end || *id >= (uid_t)-1)
		return -EINVAL;
	return 0;
}

/* @name's groups plus @gid; none if @name is NULL (no passwd entry). */
static int load_groups(struct cmd_cred *c, const char *name)
{
	int n = 64;

	if (!name) {
		c->groups = malloc(sizeof(gid_t));
		if (!c->groups)
			return -ENOMEM;
		c->groups[0] = c->gid;
		c->ngroups = 1;
		return 0;
	}
	for (;;) {
		gid_t *g = realloc(c->groups, n * sizeof(gid_t));
		int got = n;

		if (!g)
			return -ENOMEM;
		c->groups = g;
		if (getgrouplist(name, c->gid, c->groups, &got) >= 0) {
			c->ngroups = got;
			return 0;
		}
		if (got <= n || got > 65536)
			return -E2BIG;
		n = got;
	}
}

static int from_user(struct cmd_cred *c, const char *user)
{
	struct passwd *pw = getpwnam(user);
	unsigned long id;

	if (!pw && !parse_id(user, &id))
		pw = getpwuid((uid_t)id);
	if (!pw) {
		fprintf(stderr, "notifwait: no such user for -u: '%s'\n", user);
		return -ENOENT;
	}
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	return load_groups(c, pw->pw_name);
}

static int from_sudo(struct cmd_cred *c, const char *suid, const char *sgid)
{
	unsigned long uid, gid;
	struct passwd *pw;

	if (parse_id(suid, &uid) || (sgid && parse_id(sgid, &gid))) {
		fprintf(stderr,
			"notifwait: invalid SUDO_UID/SUDO_GID '%s'/'%s'\n",
			suid, sgid ? sgid : "");
		return -EINVAL;
	}
	pw = getpwuid((uid_t)uid);
	c->uid = (uid_t)uid;
	c->gid = sgid ? (gid_t)gid : pw ? pw->pw_gid : (gid_t)uid;
	return load_groups(c, pw ? pw->pw_name : NULL);
}

int cmd_cred_resolve(struct cmd_cred *c, const char *user, bool as_root)
{
	const char *suid = getenv("SUDO_UID");
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (user) {
		err = from_user(c, user);
		c->change = true;
	} else if (!as_root && geteuid() == 0 && suid) {
		err = from_sudo(c, suid, getenv("SUDO_GID"));
		c->change = c->uid != 0;
	} else {
		/* root itself, or an unprivileged notifwait's own user */
		c->uid = getuid();
	}
	/* root keeps root's powers only when it is meant to be root */
	c->drop_caps = c->uid != 0;
	return err;
}

void cmd_cred_free(struct cmd_cred *c)
{
	free(c->groups);
	c->groups = NULL;
}

int cmd_cred_apply(const struct cmd_cred *c)
{
	cap_t none;
	int err = 0;

	if (c->change) {
		if (setgroups(c->ngroups, c->groups) ||
		    setresgid(c->gid, c->gid, c->gid) ||
		    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) ||
		    setresuid(c->uid, c->uid, c->uid))
			return -errno;
	}
	if (!c->drop_caps)
		return 0;
	/* Every set, ambient included: nothing survives exec. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	none = cap_init();
	if (!none)
		return -ENOMEM;
	if (cap_set_proc(none))
		err = -errno;
	cap_free(none);
	return err;
}

static bool have_effective(cap_value_t v)
{
	cap_flag_value_t on = CAP_CLEAR;
	cap_t cur = cap_get_proc();

	if (cur)
		cap_get_flag(cur, v, CAP_EFFECTIVE, &on);
	cap_free(cur);
	return on == CAP_SET;
}

/* Permitted and effective: @eff; permitted also @extra; inheritable none. */
static int set_caps(const cap_value_t *eff, int n, const cap_value_t *extra,
		    int nextra)
{
	cap_t cur = cap_get_proc(), next = cap_init();
	cap_flag_value_t had;
	int i, err = 0;

	if (!cur || !next) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n + nextra; i++) {
		cap_value_t v = i < n ? eff[i] : extra[i - n];

		cap_get_flag(cur, v, CAP_PERMITTED, &had);
		if (had != CAP_SET)
			continue;
		cap_set_flag(next, CAP_PERMITTED, 1, &v, CAP_SET);
		if (i < n)
			cap_set_flag(next, CAP_EFFECTIVE, 1, &v, CAP_SET);
	}
	if (cap_set_proc(next))
		err = -errno;
out:
	cap_free(cur);
	cap_free(next);
	return err;
}

static void drop_bounding(const cap_value_t *keep, int n)
{
	cap_value_t v;
	int i;

	if (!have_effective(CAP_SETPCAP))
		return; /* an unprivileged notifwait: its bounding set stays */
	for (v = 0; v < (cap_value_t)cap_max_bits(); v++) {
		for (i = 0; i < n && keep[i] != v; i++)
			;
		if (i == n)
			cap_drop_bound(v);
	}
}

int privilege_drop(const struct keep_caps *want, bpf_probe_fn probe, void *ctx,
		   char *kept, size_t len)
{
	cap_value_t keep[5], bpf = CAP_BPF;
	int n = 0, i, err;
	size_t off = 0;

	if (want->kill)
		keep[n++] = CAP_KILL;
	if (want->dac_override)
		keep[n++] = CAP_DAC_OVERRIDE;
	if (want->sys_ptrace)
		keep[n++] = CAP_SYS_PTRACE;
	keep[n] = CAP_BPF;
	drop_bounding(keep, n + 1);
	err = set_caps(keep, n, &bpf, 1);
	if (!err && probe(ctx) == -EPERM) {
		/* bpf() on our own fds still checks CAP_BPF here */
		keep[n++] = CAP_BPF;
		err = set_caps(keep, n, NULL, 0);
		if (!err)
			err = probe(ctx);
	} else if (!err) {
		err = set_caps(keep, n, NULL, 0);
	}
	if (!err && cap_reset_ambient() && errno != EINVAL)
		err = -errno;
	if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		err = -errno;
	if (err) {
		fprintf(stderr, "notifwait: cannot drop privileges: %s\n",
			strerror(-err));
		return err;
	}
	kept[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		char *name = cap_to_name(keep[i]);

		off += snprintf(kept + off, len - off, "%s%s", i ? "," : "",
				name ? name : "?");
		cap_free(name);
	}
	if (!n)
		snprintf(kept, len, "none");
	return 0;
}
