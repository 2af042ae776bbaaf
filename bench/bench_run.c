/* SPDX-License-Identifier: MIT */
/*
 * bench_run.c - time commands against a baseline on a noisy machine.
 *
 *	bench_run [-n RUNS] [-w WARMUPS] [-o FILE] [-e]
 *		  [--] BASELINE [ARG...]
 *		  [';;' [--prep SH] [--env VAR=VALUE]... COMMAND [ARG...]]...
 *
 * Runs every command WARMUPS times untimed (default 1: this warms the page
 * cache and the dynamic loader), then RUNS rounds (default 5) timed. Within
 * a round the commands run one after the other, in order, so a burst of load
 * from elsewhere hits the baseline and the commands alike; besides each
 * command's median time, bench_run reports the median over rounds of
 * (command time / baseline time in the same round), which is steadier than
 * the ratio of two medians.
 *
 * Each run has stdin from /dev/null and stdout to FILE (default /dev/null);
 * stderr is kept. An argument "@PATH" is replaced by the lines of PATH, one
 * argument each, so `skit to-prompt @paths.txt` takes thousands of folders
 * without a shell or xargs. A run that exits non-zero stops the benchmark
 * with status 1, unless -e. The "--" may be left out when the first command
 * does not start with "-".
 *
 * `--prep SH` before a command runs `/bin/sh -c SH` before each run of that
 * command (warm-ups too), untimed: it puts the command back in the state
 * the figure is about (e.g. removes an index cache for a cold-cache
 * figure). A prep that fails stops the benchmark. `--env VAR=VALUE` sets
 * a variable for that command alone (no env(1), whose exec would be
 * timed too).
 *
 * Wall time is CLOCK_MONOTONIC from fork() to wait4(); user and system time
 * and peak RSS come from wait4()'s rusage of that child alone (not
 * RUSAGE_CHILDREN, which is the maximum over every child so far). Prints one
 * line per command, in order, of key=value pairs:
 *
 *	cmd=0 runs=5 median_ms=12.345 min_ms=... max_ms=... user_ms=...
 *	sys_ms=... maxrss_kb=... ratio=1.000 status=0
 *
 * user_ms and sys_ms are medians, maxrss_kb is the largest over the timed
 * runs, and ratio is the median per-round ratio to command 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MAX_RUNS 1000
#define MAX_CMDS 16

struct sample {
	double wall_ms, user_ms, sys_ms;
	long maxrss_kb;
	int status;
};

#define MAX_ENV 8

struct cmd {
	const char *prep; /* NULL: none */
	char *env[MAX_ENV];
	int nenv;
	char **argv;
	int argc;
	size_t room;
	struct sample samples[MAX_RUNS];
};

static double tv_ms(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e3 + (double)tv->tv_usec / 1e3;
}

/* Run argv once; fill `s`. Returns 0, or -1 when fork/wait failed. */
static int run_once(const struct cmd *c, const char *outfile, struct sample *s)
{
	char **argv = c->argv;

	struct rusage ru;
	double t0;
	pid_t pid;
	int st, fd;

	t0 = bench_now_ms();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		for (int i = 0; i < c->nenv; i++)
			putenv(c->env[i]);
		execvp(argv[0], argv);
		fprintf(stderr, "bench_run: %s: %s\n", argv[0],
		        strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	s->wall_ms = bench_now_ms() - t0;
	s->user_ms = tv_ms(&ru.ru_utime);
	s->sys_ms = tv_ms(&ru.ru_stime);
	s->maxrss_kb = ru.ru_maxrss;
	s->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

/* Run `/bin/sh -c prep`, untimed. 0, or -1 (and a message). */
static int run_prep(const char *prep)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", prep, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench_run: prep '%s' failed\n", prep);
		return -1;
	}
	return 0;
}

/* Append `arg` to c->argv, keeping it NULL-terminated. */
static int add_arg(struct cmd *c, char *arg)
{
	char **grown;

	if ((size_t)c->argc + 2 > c->room) {
		c->room = c->room * 2 + 16;
		grown = realloc(c->argv, c->room * sizeof(*grown));
		if (!grown)
			return -1;
		c->argv = grown;
	}
	c->argv[c->argc++] = arg;
	c->argv[c->argc] = NULL;
	return 0;
}

/* Append one argument per non-empty line of `file`. */
static int add_args_from(struct cmd *c, const char *file)
{
	char *line = NULL, *copy;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int error = 0;

	f = fopen(file, "r");
	if (!f)
		return -1;
	while (!error && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		copy = strdup(line);
		error = copy ? add_arg(c, copy) : -1;
	}
	free(line);
	fclose(f);
	return error;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: bench_run [-n RUNS] [-w WARMUPS] [-o FILE] [-e] "
	        "[--] BASELINE [ARG...] [';;' [--prep SH] [--env VAR=VALUE]... "
	        "COMMAND [ARG...]]...\n");
}

static void report(int k, struct cmd *c, struct cmd *base, int runs)
{
	static double wall[MAX_RUNS], user[MAX_RUNS], sys[MAX_RUNS],
	        ratio[MAX_RUNS];
	double lo, hi;
	long maxrss = 0;

	lo = hi = c->samples[0].wall_ms;
	for (int i = 0; i < runs; i++) {
		wall[i] = c->samples[i].wall_ms;
		user[i] = c->samples[i].user_ms;
		sys[i] = c->samples[i].sys_ms;
		ratio[i] = base->samples[i].wall_ms > 0
		                   ? wall[i] / base->samples[i].wall_ms
		                   : 0;
		if (c->samples[i].maxrss_kb > maxrss)
			maxrss = c->samples[i].maxrss_kb;
		if (wall[i] < lo)
			lo = wall[i];
		if (wall[i] > hi)
			hi = wall[i];
	}
	printf("cmd=%d runs=%d median_ms=%.3f min_ms=%.3f max_ms=%.3f "
	       "user_ms=%.3f sys_ms=%.3f maxrss_kb=%ld ratio=%.3f status=%d\n",
	       k, runs, bench_median(wall, (size_t)runs), lo, hi,
	       bench_median(user, (size_t)runs),
	       bench_median(sys, (size_t)runs), maxrss,
	       bench_median(ratio, (size_t)runs), c->samples[runs - 1].status);
}

int main(int argc, char **argv)
{
	static struct cmd cmds[MAX_CMDS];
	const char *outfile = "/dev/null";
	int runs = 5, warmups = 1, ignore_status = 0, ncmds = 1, i;
	struct sample s;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] != '-') {
			break; /* the first command starts here */
		} else if (!strcmp(argv[i], "-e")) {
			ignore_status = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "-n")) {
			runs = (int)strtol(argv[++i], NULL, 10);
		} else if (i + 1 < argc && !strcmp(argv[i], "-w")) {
			warmups = (int)strtol(argv[++i], NULL, 10);
		} else if (i + 1 < argc && !strcmp(argv[i], "-o")) {
			outfile = argv[++i];
		} else {
			usage();
			return 2;
		}
	}
	if (i >= argc || runs < 1 || runs > MAX_RUNS || warmups < 0) {
		usage();
		return 2;
	}

	for (; i < argc; i++) {
		if (!strcmp(argv[i], ";;")) {
			if (ncmds == MAX_CMDS || !cmds[ncmds - 1].argc) {
				usage();
				return 2;
			}
			ncmds++;
		} else if (ncmds > 1 && !cmds[ncmds - 1].argc &&
		           !cmds[ncmds - 1].prep &&
		           !strcmp(argv[i], "--prep") && i + 1 < argc) {
			cmds[ncmds - 1].prep = argv[++i];
		} else if (ncmds > 1 && !cmds[ncmds - 1].argc &&
		           !strcmp(argv[i], "--env") && i + 1 < argc &&
		           strchr(argv[i + 1], '=') &&
		           cmds[ncmds - 1].nenv < MAX_ENV) {
			cmds[ncmds - 1].env[cmds[ncmds - 1].nenv++] = argv[++i];
		} else if (argv[i][0] == '@' && argv[i][1]) {
			if (add_args_from(&cmds[ncmds - 1], argv[i] + 1) < 0) {
				fprintf(stderr, "bench_run: %s: %s\n",
				        argv[i] + 1, strerror(errno));
				return 2;
			}
		} else if (add_arg(&cmds[ncmds - 1], argv[i]) < 0) {
			return 1;
		}
	}
	if (!cmds[ncmds - 1].argc) {
		usage();
		return 2;
	}

	/* Warm-ups first, then timed rounds of every command in turn. */
	for (int r = 0; r < warmups + runs; r++) {
		for (int k = 0; k < ncmds; k++) {
			if (cmds[k].prep && run_prep(cmds[k].prep) < 0)
				return 1;
			if (run_once(&cmds[k], outfile, &s) < 0) {
				fprintf(stderr, "bench_run: %s\n",
				        strerror(errno));
				return 1;
			}
			if (s.status && !ignore_status) {
				fprintf(stderr,
				        "bench_run: %s exited with %d\n",
				        cmds[k].argv[0], s.status);
				return 1;
			}
			if (r >= warmups)
				cmds[k].samples[r - warmups] = s;
		}
	}
	for (int k = 0; k < ncmds; k++)
		report(k, &cmds[k], &cmds[0], runs);
	return 0;
}
