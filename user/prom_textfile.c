// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* asprintf, mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "prom_textfile.h"

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= n;
	}
	return 0;
}

const char *prom_textfile_refused(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return NULL; /* missing: created; another error shows at write */
	if (S_ISREG(st.st_mode))
		return NULL;
	if (S_ISLNK(st.st_mode))
		return "a symbolic link";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISCHR(st.st_mode))
		return "a character device";
	if (S_ISBLK(st.st_mode))
		return "a block device";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	return "not a regular file";
}

int prom_textfile_write(const char *path, const char *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char *tmp;
	int fd, err;

	if (asprintf(&tmp, "%.*s.%s.XXXXXX", dirlen, path,
		     slash ? slash + 1 : path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	/* mkostemp makes it 0600; the collector usually runs as another user */
	err = write_all(fd, data, len);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	/* checked again just before: the path may have changed meanwhile */
	if (!err && prom_textfile_refused(path))
		err = -EEXIST;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
