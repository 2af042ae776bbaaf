/* SPDX-License-Identifier: MIT */
/*
 * fs.h - careful file access for untrusted trees.
 *
 * Files are opened with O_NOFOLLOW|O_NONBLOCK so a symbolic link or a FIFO
 * can neither redirect nor block a read, then checked with fstat(): only
 * regular files are read, and never more than a cap.
 */
#ifndef SKITX_FS_H
#define SKITX_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "util/buf.h"

/* Why skitx_fs_open_regular() refused a path. */
enum skitx_fs_why {
	SKITX_FS_OK = 0,
	SKITX_FS_MISSING,     /* ENOENT / ENOTDIR */
	SKITX_FS_SYMLINK,     /* the last component is a symbolic link */
	SKITX_FS_DIRECTORY,   /* a directory */
	SKITX_FS_NOT_REGULAR, /* FIFO, socket, device */
	SKITX_FS_DENIED,      /* EACCES / EPERM */
	SKITX_FS_ERROR,       /* anything else; errno is kept */
};

/*
 * Open `path` (relative to `dirfd`, or AT_FDCWD) for reading if it is a
 * regular file and not a symbolic link. Returns the fd (O_CLOEXEC) and fills
 * `st`, or returns -1 with `*why` set and errno preserved.
 */
int skitx_fs_open_regular(int dirfd, const char *path, struct stat *st,
                          enum skitx_fs_why *why);

/* A short English text for `why` ("is a directory", ...). */
const char *skitx_fs_why_text(enum skitx_fs_why why);

/*
 * Append the rest of `fd` to `out`, failing with SKIT_ETOOBIG once more
 * than `cap` bytes would be read (and SKIT_EIO on read errors).
 */
int skitx_fs_read_fd(int fd, struct skitx_buf *out, size_t cap);

/* Whole regular file `path`, capped. Returns 0 or a negative status. */
int skitx_fs_read_file(const char *path, struct skitx_buf *out, size_t cap);

/* Write all `len` bytes to `fd`, again after EINTR or a short write.
 * 0, or SKIT_EIO with errno set (EIO when write() wrote nothing). */
int skitx_fs_write_all(int fd, const void *data, size_t len);

/* Write `len` bytes to `path` via a temporary file and rename(). */
int skitx_fs_write_atomic(const char *path, const void *data, size_t len,
                          mode_t mode);

/*
 * The same in the folder `dirfd`: `name` (one component) is replaced by a
 * temporary file beside it, created there without following a link, and
 * renamed within the folder; no path outside `dirfd` is looked up.
 */
int skitx_fs_write_atomic_at(int dirfd, const char *name, const void *data,
                             size_t len, mode_t mode);

/* mkdir -p with `mode`; 0 or a negative status (errno kept). */
int skitx_fs_mkdir_p(const char *path, mode_t mode);

bool skitx_fs_is_dir(const char *path);
bool skitx_fs_exists(const char *path);

#endif
