/* SPDX-License-Identifier: MIT */
/*
 * fs.c - open-then-fstat file access with caps; atomic writes.
 */
#include "common.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/path.h"

int skitx_fs_open_regular(int dirfd, const char *path, struct stat *st,
                          enum skitx_fs_why *why)
{
	int fd, saved;

	fd = openat(dirfd, path,
	            O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		if (saved == ENOENT || saved == ENOTDIR)
			*why = SKITX_FS_MISSING;
		else if (saved == ELOOP || saved == EMLINK)
			*why = SKITX_FS_SYMLINK;
		else if (saved == EACCES || saved == EPERM)
			*why = SKITX_FS_DENIED;
		else if (saved == ENXIO) /* a socket or a FIFO with no writer */
			*why = SKITX_FS_NOT_REGULAR;
		else
			*why = SKITX_FS_ERROR;
		errno = saved;
		return -1;
	}
	if (fstat(fd, st) < 0) {
		saved = errno;
		close(fd);
		*why = SKITX_FS_ERROR;
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		*why = S_ISDIR(st->st_mode) ? SKITX_FS_DIRECTORY
		                            : SKITX_FS_NOT_REGULAR;
		return -1;
	}
	*why = SKITX_FS_OK;
	return fd;
}

const char *skitx_fs_why_text(enum skitx_fs_why why)
{
	switch (why) {
	case SKITX_FS_OK:
		return "ok";
	case SKITX_FS_MISSING:
		return "does not exist";
	case SKITX_FS_SYMLINK:
		return "is a symbolic link";
	case SKITX_FS_DIRECTORY:
		return "is a directory";
	case SKITX_FS_NOT_REGULAR:
		return "is not a regular file";
	case SKITX_FS_DENIED:
		return "is not readable (permission denied)";
	case SKITX_FS_ERROR:
	default:
		return "could not be opened";
	}
}

int skitx_fs_read_fd(int fd, struct skitx_buf *out, size_t cap)
{
	char chunk[65536];
	size_t total = 0;
	ssize_t n;
	int error;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return SKIT_EIO;
		}
		if (!n)
			return 0;
		total += (size_t)n;
		if (total > cap)
			return SKIT_ETOOBIG;
		error = skitx_buf_add(out, chunk, (size_t)n);
		if (error < 0)
			return error;
	}
}

int skitx_fs_read_file(const char *path, struct skitx_buf *out, size_t cap)
{
	enum skitx_fs_why why;
	struct stat st;
	int fd, error;

	fd = skitx_fs_open_regular(AT_FDCWD, path, &st, &why);
	if (fd < 0)
		return why == SKITX_FS_MISSING ? SKIT_ENOTFOUND
		       : why == SKITX_FS_ERROR ? SKIT_EIO
		                               : SKIT_EUNSAFE;
	if ((size_t)st.st_size > cap) {
		close(fd);
		return SKIT_ETOOBIG;
	}
	error = skitx_fs_read_fd(fd, out, cap);
	close(fd);
	return error;
}

int skitx_fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return SKIT_EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int skitx_fs_write_atomic(const char *path, const void *data, size_t len,
                          mode_t mode)
{
	struct skitx_buf tmp = SKITX_BUF_INIT;
	int fd = -1, error;

	error = skitx_buf_printf(&tmp, "%s.tmp-XXXXXX", path);
	if (error < 0)
		goto out;
	fd = mkstemp(tmp.ptr);
	if (fd < 0) {
		error = SKIT_EIO;
		goto out;
	}
	error = skitx_fs_write_all(fd, data, len);
	if (error < 0)
		goto out;
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0) {
		error = SKIT_EIO;
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		error = SKIT_EIO;
		goto out;
	}
	fd = -1;
	if (rename(tmp.ptr, path) < 0)
		error = SKIT_EIO;
out:
	if (fd >= 0)
		close(fd);
	if (error < 0 && tmp.len)
		unlink(tmp.ptr);
	skitx_buf_release(&tmp);
	return error;
}

int skitx_fs_write_atomic_at(int dirfd, const char *name, const void *data,
                             size_t len, mode_t mode)
{
	static unsigned long counter;
	char tmp[NAME_MAX + 1];
	int fd = -1, error = 0;

	if (strchr(name, '/') || strlen(name) > NAME_MAX - 24) {
		errno = EINVAL;
		return SKIT_EIO;
	}
	for (int tries = 0; fd < 0; tries++) {
		snprintf(tmp, sizeof(tmp), ".%s.tmp-%ld-%lu", name,
		         (long)getpid(),
		         __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
		fd = openat(dirfd, tmp,
		            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		                    O_CLOEXEC,
		            0600);
		if (fd < 0 && (errno != EEXIST || tries >= 16))
			return SKIT_EIO;
	}
	error = skitx_fs_write_all(fd, data, len);
	if (!error && (fchmod(fd, mode) < 0 || fsync(fd) < 0))
		error = SKIT_EIO;
	if (close(fd) < 0 && !error)
		error = SKIT_EIO;
	if (!error && renameat(dirfd, tmp, dirfd, name) < 0)
		error = SKIT_EIO;
	if (error < 0) {
		int keep = errno;

		unlinkat(dirfd, tmp, 0);
		errno = keep;
	}
	return error;
}

int skitx_fs_mkdir_p(const char *path, mode_t mode)
{
	char *copy = skitx_strdup(path), *p;
	int error = 0;

	if (!copy)
		return SKIT_ENOMEM;
	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST) {
			error = SKIT_EIO;
			goto out;
		}
		*p = '/';
	}
	if (mkdir(copy, mode) < 0 && errno != EEXIST)
		error = SKIT_EIO;
out:
	skitx_free(copy);
	return error;
}

bool skitx_fs_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool skitx_fs_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}
