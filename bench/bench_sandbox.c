/* SPDX-License-Identifier: MIT */
/*
 * bench_sandbox.c - what confinement costs per script run.
 *
 *	bench_sandbox [-n RUNS] [DIR]
 *	bench_sandbox --layers [-n RUNS] [DIR]
 *
 * Times RUNS (default 200) runs of /bin/true three ways, interleaved so
 * that load from elsewhere hits them alike: a plain fork + execve +
 * waitpid (the floor), skit__run() unconfined, and skit__run() with
 * confine = true (every layer this kernel has; DIR, default /tmp, is the
 * work folder and is given as the only writable path). Prints the median
 * and 90th percentile of each, in milliseconds, and the difference of the
 * medians between the confined run and the floor (target: 5 ms); and,
 * to price the network namespace alone, confined runs with the network
 * allowed (no namespace) against the confined ones; and, to price the
 * web proxy's start and stop, confined runs with a WebFetch domain (the
 * loopback brought up, the listener handed over, the proxy thread
 * started and joined) against the plain confined ones.
 */
#include "bench.h"
#include "common.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skit/sandbox.h"
#include "lib/sandbox/sandbox_int.h"

#define MAX_RUNS 10000

static double pct(double *v, int n, int p)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return v[(n - 1) * p / 100];
}

static double plain(char **argv, char **envp)
{
	double t0 = bench_now_ms();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execve(argv[0], argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_sandbox: /bin/true failed\n");
		exit(1);
	}
	return bench_now_ms() - t0;
}

static double run(struct skit__run_opts *o, unsigned int *layers)
{
	struct skit__run_result res;
	skit_error err = { 0 };
	double t0 = bench_now_ms();

	if (skit__run(&res, o, &err) || res.exit_code) {
		fprintf(stderr, "bench_sandbox: run failed: %s %s\n",
		        err.message, skitx_buf_cstr(&res.err));
		exit(1);
	}
	*layers = res.layers;
	skit__run_result_release(&res);
	return bench_now_ms() - t0;
}

/*
 * --layers: the cost of each layer, layer by layer. Each round runs
 * /bin/true once per step, interleaved: plain fork+exec, then confined
 * runs with one more layer each (the others marked unavailable through
 * skit__sandbox_disabled), from the process layer alone (process group,
 * rlimits, no_new_privs) to every layer. A project folder DIR/proj with a
 * .git folder is the writable path, and .git its protected path, so the
 * mount namespace binds one path and hides /tmp and /run as in real use.
 */
static const struct {
	const char *name;
	unsigned int adds;
} steps[] = {
	{ "process (pgroup, rlimits, no_new_privs)", 0 },
	{ "+ landlock (fs, net, scope)", SKIT_SANDBOX_LANDLOCK },
	{ "+ seccomp", SKIT_SANDBOX_SECCOMP },
	{ "+ nocaps (capabilities, securebits, file-mode filter)",
	  SKIT_SANDBOX_NOCAPS },
	{ "+ pidns (and skit's init)", SKIT_SANDBOX_PIDNS },
	{ "+ pidmax (the namespace's process bound)", SKIT_SANDBOX_PIDMAX },
	{ "+ mountns (protected paths, hidden /tmp and /run)",
	  SKIT_SANDBOX_MOUNTNS },
	{ "+ netns", SKIT_SANDBOX_NETNS },
	/* The last step, with the cgroup as the process bound instead. */
	{ "  all, a pids cgroup instead of pidmax", SKIT_SANDBOX_CGROUP },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static int layers_main(int n, const char *dir)
{
	static double t[NSTEPS + 1][MAX_RUNS];
	const unsigned int priced =
	        SKIT_SANDBOX_LANDLOCK | SKIT_SANDBOX_SECCOMP |
	        SKIT_SANDBOX_NOCAPS | SKIT_SANDBOX_CGROUP | SKIT_SANDBOX_PIDNS |
	        SKIT_SANDBOX_PIDMAX | SKIT_SANDBOX_MOUNTNS | SKIT_SANDBOX_NETNS;
	char *targv[] = { "/bin/true", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	char proj[PATH_MAX], git[PATH_MAX + 8];
	const char *wp[2] = { proj, NULL }, *pp[2] = { git, NULL };
	unsigned int got[NSTEPS] = { 0 };
	struct skit__run_opts o;
	double prev;

	snprintf(proj, sizeof(proj), "%s/proj", dir);
	snprintf(git, sizeof(git), "%s/.git", proj);
	if ((mkdir(proj, 0755) && errno != EEXIST) ||
	    (mkdir(git, 0755) && errno != EEXIST)) {
		fprintf(stderr, "bench_sandbox: cannot make %s\n", git);
		return 1;
	}
	memset(&o, 0, sizeof(o));
	o.path = targv[0];
	o.argv = targv;
	o.envp = envp;
	o.cwd = proj;
	o.timeout_ms = 10000;
	o.output_cap = 4096;
	o.write_paths = wp;
	o.protect_paths = pp;
	o.confine = true;
	for (int i = -5; i < n; i++) {
		unsigned int on = 0;

		if (i >= 0)
			t[0][i] = plain(targv, envp);
		for (size_t k = 0; k < NSTEPS; k++) {
			double ms;

			if (k == NSTEPS - 1)
				on = (on & ~(unsigned int)SKIT_SANDBOX_PIDMAX) |
				     SKIT_SANDBOX_CGROUP;
			else
				on |= steps[k].adds;
			skit__sandbox_disabled = priced & ~on;
			ms = run(&o, &got[k]);
			if (i >= 0)
				t[k + 1][i] = ms;
		}
	}
	skit__sandbox_disabled = 0;
	prev = pct(t[0], n, 50);
	printf("runs=%d (medians; each step adds one layer)\n", n);
	printf("%-56s %8.3f ms\n", "plain fork + exec + wait", prev);
	for (size_t k = 0; k < NSTEPS; k++) {
		double m = pct(t[k + 1], n, 50);
		bool used = !steps[k].adds || (got[k] & steps[k].adds);

		if (k == NSTEPS - 1)
			prev = pct(t[NSTEPS - 1], n, 50);
		printf("%-56s %8.3f ms  %+7.3f ms%s\n", steps[k].name, m,
		       m - prev, used ? "" : "  (not applied here)");
		prev = m;
	}
	printf("all layers - plain: %.3f ms (target < 5)\n",
	       pct(t[NSTEPS - 1], n, 50) - pct(t[0], n, 50));
	return 0;
}

int main(int argc, char **argv)
{
	static double t_plain[MAX_RUNS], t_open[MAX_RUNS], t_conf[MAX_RUNS];
	static double t_net[MAX_RUNS], t_web[MAX_RUNS];
	static const char *const web[] = { "example.com", NULL };
	char *targv[] = { "/bin/true", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	const char *dir = "/tmp", *wp[2] = { NULL, NULL };
	struct skit__run_opts o;
	unsigned int layers = 0, open_layers = 0, net_layers = 0,
	             web_layers = 0;
	double mp, mo, mc, mn, mw;
	int n = 200, i;

	bool by_layer = false;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--layers"))
			by_layer = true;
		else
			dir = argv[i];
	}
	if (n < 1 || n > MAX_RUNS) {
		fprintf(stderr,
		        "usage: bench_sandbox [--layers] [-n 1..%d] [DIR]\n",
		        MAX_RUNS);
		return 2;
	}
	if (by_layer)
		return layers_main(n, dir);
	wp[0] = dir;
	memset(&o, 0, sizeof(o));
	o.path = targv[0];
	o.argv = targv;
	o.envp = envp;
	o.cwd = dir;
	o.timeout_ms = 10000;
	o.output_cap = 4096;
	o.write_paths = wp;
	/* Warm the page cache and the loader. */
	for (i = 0; i < 5; i++) {
		plain(targv, envp);
		o.confine = true;
		run(&o, &layers);
	}
	for (i = 0; i < n; i++) {
		t_plain[i] = plain(targv, envp);
		o.confine = false;
		t_open[i] = run(&o, &open_layers);
		o.confine = true;
		t_conf[i] = run(&o, &layers);
		o.allow_network = true;
		t_net[i] = run(&o, &net_layers);
		o.allow_network = false;
		o.web_domains = web;
		t_web[i] = run(&o, &web_layers);
		o.web_domains = NULL;
	}
	mp = pct(t_plain, n, 50);
	mo = pct(t_open, n, 50);
	mc = pct(t_conf, n, 50);
	mn = pct(t_net, n, 50);
	mw = pct(t_web, n, 50);
	printf("runs=%d layers=", n);
	for (unsigned int b = 1; b & SKIT_SANDBOX_ALL; b <<= 1)
		if (layers & b)
			printf("%s%s", skit_sandbox_layer_name(b),
			       (layers & ~(b | (b - 1))) ? "," : "");
	printf("\n");
	printf("plain    median_ms=%.3f p90_ms=%.3f\n", mp,
	       pct(t_plain, n, 90));
	printf("run      median_ms=%.3f p90_ms=%.3f (confine=false)\n", mo,
	       pct(t_open, n, 90));
	printf("confined median_ms=%.3f p90_ms=%.3f\n", mc, pct(t_conf, n, 90));
	printf("net-on   median_ms=%.3f p90_ms=%.3f (confined, network "
	       "allowed: no netns)\n",
	       mn, pct(t_net, n, 90));
	printf("confined-plain median_diff_ms=%.3f (target < 5)\n", mc - mp);
	printf("web      median_ms=%.3f p90_ms=%.3f (confined, WebFetch "
	       "domains: the proxy)\n",
	       mw, pct(t_web, n, 90));
	printf("netns    median_diff_ms=%.3f (confined - net-on)\n", mc - mn);
	printf("proxy    median_diff_ms=%.3f (web - confined)\n", mw - mc);
	return 0;
}
