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
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
