/* SPDX-License-Identifier: MIT */
/*
 * datadir.c - the installed data folder, relative to the library
 * (datadir.h).
 */
#define _GNU_SOURCE /* dladdr: before any header */
#include "common.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/core/datadir.h"
#include "util/fs.h"

#ifndef SKIT_INSTALL_DATADIR
# define SKIT_INSTALL_DATADIR "/usr/local/share"
#endif

static char data_dir[PATH_MAX];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The real path of the file this code was loaded from, into `out`. */
static bool own_file(char out[PATH_MAX])
{
	Dl_info info;
	char exe[PATH_MAX];
	ssize_t n;

	/* libskit.so names itself; in a program linked with libskit.a the
	 * main program's name is "" (or argv[0]): ask the kernel. */
	if (dladdr((const void *)&once, &info) && info.dli_fname &&
	    info.dli_fname[0] == '/' && realpath(info.dli_fname, out))
		return true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	return realpath(exe, out) != NULL;
}

static void find(void)
{
	static const char *const rel[] = { "/share/skit", "/../share/skit",
		                           "/../../share/skit" };
	char file[PATH_MAX], cand[PATH_MAX + 64], probe[PATH_MAX + 96];

	if (own_file(file)) {
		char *slash = strrchr(file, '/');

		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < SKIT_ARRAY_SIZE(rel); i++) {
			snprintf(cand, sizeof(cand), "%s%s", file, rel[i]);
			snprintf(probe, sizeof(probe), "%s/scan-rules.yaml",
			         cand);
			if (skitx_fs_exists(probe) &&
			    realpath(cand, data_dir) != NULL)
				return;
		}
	}
	snprintf(data_dir, sizeof(data_dir), "%s/skit", SKIT_INSTALL_DATADIR);
}

const char *skit__data_dir(void)
{
	pthread_once(&once, find);
	return data_dir;
}
