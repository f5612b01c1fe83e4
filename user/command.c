// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "command.h"

static void child(char **argv, const struct cmd_cred *cred, int gate,
		  int err_fd)
{
	pid_t parent = getppid();
	char go;
	int e;

	/* Do not outlive the tracer if it dies before releasing us. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (read(gate, &go, 1) != 1)
		_exit(127); /* the tracer gave up before the release */
	close(gate);
	e = -cmd_cred_apply(cred);
	if (e)
		goto failed;
	/* A change of credentials cleared the death signal: set it again. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	execvp(argv[0], argv);
	e = errno;
failed:
	if (write(err_fd, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	return access(path, X_OK) ? -errno : 0;
}

int command_check(const char *file)
{
	const char *path = getenv("PATH"), *p, *end;
	char candidate[4096];
	int err = -ENOENT, r;

	if (!*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return runnable(file);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	/* The same search as execvp: the first runnable entry wins. */
	for (p = path; p; p = *end ? end + 1 : NULL) {
		end = strchrnul(p, ':');
		snprintf(candidate, sizeof(candidate), "%.*s/%s",
			 (int)(end - p), end == p ? "." : p, file);
		r = runnable(candidate);
		if (!r)
			return 0;
		if (r == -EACCES)
			err = r;
	}
	return err;
}

int command_spawn(struct command *c, char **argv, const struct cmd_cred *cred)
{
	int gate[2], err[2];

	memset(c, 0, sizeof(*c));
	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		close(gate[0]);
		close(gate[1]);
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		close(gate[0]);
		close(gate[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (c->pid == 0) {
		close(gate[1]);
		close(err[0]);
		child(argv, cred, gate[0], err[1]);
	}
	close(gate[0]);
	close(err[1]);
	c->gate_fd = gate[1];
	c->exec_err_fd = err[0];
	return 0;
}

int command_release(struct command *c)
{
	char go = 1;
	int e = 0;
	ssize_t n;

	if (write(c->gate_fd, &go, 1) != 1)
		return -errno;
	close(c->gate_fd);
	c->gate_fd = -1;
	do
		n = read(c->exec_err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->exec_err_fd);
	c->exec_err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

bool command_reap(struct command *c, bool block)
{
	pid_t r;

	if (c->exited)
		return true;
	do
		r = waitpid(c->pid, &c->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR && block);
	if (r == c->pid)
		c->exited = true;
	return c->exited;
}

int command_exit_code(const struct command *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}

int command_signal(struct command *c, int sig)
{
	if (c->pid <= 0 || c->exited)
		return 0;
	/* It leads its own process group (setsid, a job): all of it. */
	if (getpgid(c->pid) == c->pid)
		return kill(-c->pid, sig) ? -errno : 0;
	return kill(c->pid, sig) ? -errno : 0;
}

void command_kill(struct command *c)
{
	int i;

	if (c->pid <= 0 || c->exited)
		return;
	command_signal(c, SIGKILL);
	/* Bounded: a task stuck in the kernel must not hang the exit. */
	for (i = 0; i < 200 && !command_reap(c, false); i++)
		usleep(10000);
}
