/* SPDX-License-Identifier: MIT */
/*
 * bench_files.c - the project file tools edit_file and glob, each next to
 * a baseline measured in the same run (docs/bench.md, "The file tools").
 *
 *	bench_files DIR [FILES] [MB]
 *
 * Writes, unless they are there, DIR/tree with FILES files (default
 * 100,000: 100 folders of 10 folders of FILES/1000 files, a third each
 * .c, .h and .txt) and DIR/edit/big.txt of MB megabytes (default 10) of
 * numbered lines with one marker line in the middle. Then, in rounds that
 * interleave each tool with its baseline, prints key=value lines:
 *
 *   edit_ms        edit_file of the marker line (exactly one match, so
 *                  the whole file is searched), through the tool's code
 *                  (read beneath the project, match, write a temporary
 *                  file, fsync, rename), with its file size cap raised to
 *                  fit MB (the tool's own cap is write_file's, 4 MiB)
 *   sed_ms         `sed -i s/OLD/NEW/ big.txt` (fork, exec, the same
 *                  edit; sed does not fsync)
 *   edit_ratio     median over rounds of edit / sed in the same round
 *   edit4_ms, sed4_ms, edit4_ratio  the same on a 4 MiB file, through
 *                  the provider's call exactly as the agent makes it
 *   glob_ms        glob "**" "/" "*.c" over DIR/tree through the provider's
 *                  call: the walk, the policy check of every folder
 *                  entered and every file listed, a stat of each match
 *                  for its time, the 200 newest kept
 *   find_ms        `find DIR/tree -type f -name '*.c'` to /dev/null
 *   glob_ratio     median over rounds of glob / find
 *   findt_ms, globt_ratio  against `find ... -printf '%T@ %p\n'`, which
 *                  also reads every match's time (not sorted)
 * Each time is the median of ROUNDS rounds after one untimed round.
 */
#include "bench.h"
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "skit/skit.h"
#include "lib/tools/tool_provider.h"
#include "lib/tools/tools_int.h"
#include "util/buf.h"

#define ROUNDS 7

static void die(const char *what)
{
	fprintf(stderr, "bench_files: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the data ---------------------------------------------------------- */

static void make_tree(const char *root, long files)
{
	char path[4096 + 64];
	long per = files / 1000 > 0 ? files / 1000 : 1;
	static const char *const ext[] = { "c", "h", "txt" };

	snprintf(path, sizeof(path), "%s/.done-%ld", root, files);
	if (!access(path, F_OK))
		return;
	if (mkdir(root, 0755) < 0 && errno != EEXIST)
		die(root);
	for (int a = 0; a < 100; a++) {
		snprintf(path, sizeof(path), "%s/d%02d", root, a);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die(path);
		for (int b = 0; b < 10; b++) {
			snprintf(path, sizeof(path), "%s/d%02d/e%d", root, a,
			         b);
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				die(path);
			for (long i = 0; i < per; i++) {
				int fd;

				snprintf(path, sizeof(path),
				         "%s/d%02d/e%d/f%03ld.%s", root, a, b,
				         i, ext[i % 3]);
				fd = open(path, O_WRONLY | O_CREAT | O_TRUNC,
				          0644);
				if (fd < 0 || close(fd) < 0)
					die(path);
			}
		}
	}
	snprintf(path, sizeof(path), "%s/.done-%ld", root, files);
	if (close(open(path, O_WRONLY | O_CREAT, 0644)) < 0)
		die(path);
}

/* `mb` megabytes of numbered lines, "MARKER-A" in the middle. */
static void make_big(const char *path, long bytes)
{
	FILE *f = fopen(path, "w");
	long at = 0, n = 0;

	if (!f)
		die(path);
	while (at < bytes) {
		int w = n == bytes / 2 / 48
		                ? fprintf(f, "MARKER-A the line to edit\n")
		                : fprintf(f,
		                          "line %08ld of the benchmark's "
		                          "big file\n",
		                          n);
		at += w;
		n++;
	}
	if (fclose(f))
		die(path);
}

/* ---- the tools' context ------------------------------------------------ */

static void h_audit(void *self, const char *type, json_t *fields)
{
	(void)self;
	(void)type;
	json_decref(fields);
}

static void h_trace(void *self, skit_trace_kind kind, const char *line)
{
	(void)self;
	(void)kind;
	(void)line;
}

static const char *h_rel(void *self, const char *rel, char *why, size_t cap)
{
	(void)self;
	(void)rel;
	(void)why;
	(void)cap;
	return NULL;
}

static const char *h_at(void *self, int dirfd, const char *base, char *why,
                        size_t cap)
{
	(void)self;
	(void)dirfd;
	(void)base;
	(void)why;
	(void)cap;
	return NULL;
}

static const struct skit__tool_host host = {
	.audit = h_audit,
	.trace = h_trace,
	.protected_rel = h_rel,
	.protected_at = h_at,
};

static void ctx_init(struct skit__tool_ctx *c, const skit_policy *pol,
                     const char *project)
{
	memset(c, 0, sizeof(*c));
	c->policy = pol;
	c->project_dir = project;
	c->sandbox_mode = SKIT_SANDBOX_WORKSPACE_WRITE;
	c->file_tools = true;
	c->resource_cap = 64 * 1024;
	c->projfd = -1;
	c->host = &host;
}

/* ---- the runs ---------------------------------------------------------- */

/* Time one call of a project tool; exits when it fails. */
static double tool_ms(struct skit__tool_ctx *c, const char *tool, json_t *args,
                      size_t cap)
{
	struct skitx_buf out;
	skit_error err = { 0 };
	bool is_error = false;
	double t0 = bench_now_ms();
	int rc;

	skitx_buf_init(&out, 0);
	rc = cap ? skit__tool_edit(c, tool, args, cap, &out, &is_error, &err)
	         : skit__project_tools.call(NULL, c, tool, args, &out,
	                                    &is_error, &err);
	t0 = bench_now_ms() - t0;
	if (rc || is_error) {
		fprintf(stderr, "bench_files: %s: %s\n", tool,
		        rc ? err.message : skitx_buf_cstr(&out));
		exit(1);
	}
	skitx_buf_release(&out);
	return t0;
}

/* Time `argv` run with stdout to /dev/null; exits when it fails. */
static double cmd_ms(char *const argv[])
{
	double t0 = bench_now_ms();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fprintf(stderr, "bench_files: %s failed\n", argv[0]), exit(1);
	return bench_now_ms() - t0;
}

/* Edit rounds on `name` (in `dir`): the tool (with `cap`, or 0 for the
 * provider's call) against sed, each turning the marker back and forth. */
static void bench_edit(const char *dir, const char *name, const skit_policy *p,
                       size_t cap, const char *label)
{
	double tool[ROUNDS], sed[ROUNDS], ratio[ROUNDS];
	char path[4096 + 64];
	struct skit__tool_ctx c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ctx_init(&c, p, dir);
	for (int r = -1; r < ROUNDS; r++) {
		json_t *ab = json_pack("{s:s, s:s, s:s}", "path", name,
		                       "old_string", "MARKER-A", "new_string",
		                       "MARKER-B"),
		       *ba = json_pack("{s:s, s:s, s:s}", "path", name,
		                       "old_string", "MARKER-B", "new_string",
		                       "MARKER-A");
		char *s1[] = { "sed", "-i", "s/MARKER-A/MARKER-C/", path,
			       NULL };
		char *s2[] = { "sed", "-i", "s/MARKER-C/MARKER-A/", path,
			       NULL };
		double t, s;

		t = tool_ms(&c, "edit_file", ab, cap);
		t += tool_ms(&c, "edit_file", ba, cap);
		s = cmd_ms(s1) + cmd_ms(s2);
		json_decref(ab);
		json_decref(ba);
		if (r < 0)
			continue;
		tool[r] = t / 2;
		sed[r] = s / 2;
		ratio[r] = t / s;
	}
	if (c.projfd >= 0)
		close(c.projfd);
	printf("%s_ms=%.1f\nsed%s_ms=%.1f\n%s_ratio=%.2f\n", label,
	       bench_median(tool, ROUNDS), label + 4, bench_median(sed, ROUNDS),
	       label, bench_median(ratio, ROUNDS));
}

static void bench_glob(const char *tree, const skit_policy *p)
{
	double g[ROUNDS], f[ROUNDS], ft[ROUNDS], ratio[ROUNDS], ratiot[ROUNDS];
	char *find[] = { "find",  (char *)tree, "-type", "f",
		         "-name", "*.c",        NULL };
	char *findt[] = { "find", (char *)tree, "-type",    "f", "-name",
		          "*.c",  "-printf",    "%T@ %p\n", NULL };
	json_t *args = json_pack("{s:s}", "pattern", "**/*.c");
	struct skit__tool_ctx c;

	ctx_init(&c, p, tree);
	for (int r = -1; r < ROUNDS; r++) {
		double t = tool_ms(&c, "glob", args, 0), b = cmd_ms(find),
		       bt = cmd_ms(findt);

		if (r < 0)
			continue;
		g[r] = t;
		f[r] = b;
		ft[r] = bt;
		ratio[r] = t / b;
		ratiot[r] = t / bt;
	}
	if (c.projfd >= 0)
		close(c.projfd);
	json_decref(args);
	printf("glob_ms=%.1f\nfind_ms=%.1f\nglob_ratio=%.2f\n"
	       "findt_ms=%.1f\nglobt_ratio=%.2f\n",
	       bench_median(g, ROUNDS), bench_median(f, ROUNDS),
	       bench_median(ratio, ROUNDS), bench_median(ft, ROUNDS),
	       bench_median(ratiot, ROUNDS));
}

int main(int argc, char **argv)
{
	char tree[4096], edit[4096], path[4096 + 64];
	long files = argc > 2 ? atol(argv[2]) : 100000;
	long mb = argc > 3 ? atol(argv[3]) : 10;
	skit_policy *p = NULL;

	if (argc < 2 || files < 1000 || mb < 1) {
		fprintf(stderr, "usage: bench_files DIR [FILES] [MB]\n");
		return 2;
	}
	snprintf(tree, sizeof(tree), "%s/tree", argv[1]);
	snprintf(edit, sizeof(edit), "%s/edit", argv[1]);
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
		die(argv[1]);
	if (mkdir(edit, 0755) < 0 && errno != EEXIST)
		die(edit);
	make_tree(tree, files);
	snprintf(path, sizeof(path), "%s/big.txt", edit);
	make_big(path, mb * 1000 * 1000);
	snprintf(path, sizeof(path), "%s/four.txt", edit);
	make_big(path, 4L * 1024 * 1024 - 4096);
	if (skit_policy_new(&p, NULL))
		die("policy");
	skit_policy_set_yes(p, true);
	printf("files=%ld\nmb=%ld\n", files, mb);
	bench_edit(edit, "big.txt", p, (size_t)(mb + 1) * 1000 * 1000, "edit");
	bench_edit(edit, "four.txt", p, 0, "edit4");
	bench_glob(tree, p);
	skit_policy_free(p);
	return 0;
}
