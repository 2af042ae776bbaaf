/* SPDX-License-Identifier: MIT */
/* fuzz_util.c - the scratch folder and file helpers of fuzz.h. */
/* nftw() is XSI. */
#define _XOPEN_SOURCE 700
#ifndef _POSIX_C_SOURCE
# define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
# define _DEFAULT_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static char dir[PATH_MAX / 2];

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void fuzz_rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_dir(void)
{
	if (dir[0])
		fuzz_rm_rf(dir);
}

const char *fuzz_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%s/skit-fuzz-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	atexit(remove_dir);
	return dir;
}

const char *fuzz_path(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", fuzz_dir(), rel);
	return b;
}

static void mkdir_parents(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) && errno != EEXIST) {
			perror(tmp);
			abort();
		}
		*p = '/';
	}
}

void fuzz_write(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd;

	mkdir_parents(path);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		abort();
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			perror(path);
			abort();
		}
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

char *fuzz_str(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	if (len)
		memcpy(s, data, len);
	s[len] = '\0';
	return s;
}
