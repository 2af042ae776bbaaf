/* SPDX-License-Identifier: MIT */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "support/procs.h"

/* Read /proc/PID/NAME into buf (NULs turned to blanks); its length. */
static ssize_t proc_read(const char *pid, const char *name, char *buf,
                         size_t cap)
{
	char path[300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static bool one_look(const char *marker, bool report)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool none = true;

	while (d && (de = readdir(d))) {
		char cmd[4096], st[512];

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (proc_read(de->d_name, "cmdline", cmd, sizeof(cmd)) <= 0 ||
		    !strstr(cmd, marker))
			continue;
		if (proc_read(de->d_name, "stat", st, sizeof(st)) > 0 &&
		    strstr(st, ") Z"))
			continue;
		if (report)
			printf("left over: pid %s: %s\n", de->d_name, cmd);
		none = false;
	}
	if (d)
		closedir(d);
	return none;
}

bool skit_test_none_running(const char *marker, int tries)
{
	for (int i = 1;; i++) {
		if (one_look(marker, i >= tries))
			return true;
		if (i >= tries)
			return false;
		usleep(20000);
	}
}
