/* SPDX-License-Identifier: MIT */
/*
 * bench_install.c - what skit_install() costs next to a plain unzip.
 *
 *	bench_install [ROUNDS [DIRTY_MB]]
 *
 * Builds a pack of 500 skills in a temporary folder under $TMPDIR (default
 * /tmp): each skill has a SKILL.md, scripts/run.sh (0755, about 300 bytes)
 * and references/notes.md (about 2 KiB of varied text), packed with
 * skit_pack(). Then, for ROUNDS rounds (default 5), times two ways of
 * unpacking it, one after the other (which goes first alternates) so that
 * load from elsewhere hits both:
 *
 *   unzip     `/usr/bin/unzip -q pack.zip -d DIR` through fork + execvp +
 *             waitpid, into a folder that does not exist yet (the floor);
 *   install   skit_install(ROOT, pack.zip, NULL, ...) into an empty
 *             folder, in this process.
 *
 * With DIRTY_MB, each round first writes that many MiB to an unrelated
 * file in the same folder and leaves them unsynced (outside the timing),
 * as other programs leave dirty data: an install that syncs the whole
 * file system waits for them, one that fsyncs what it wrote does not.
 *
 * Each round gets fresh folders; they are removed after the round, outside
 * the timing. One untimed round of each warms the page cache and the
 * loader first. Prints every round, the medians and the median over rounds
 * of install / unzip. The target is "within 2x". Without /usr/bin/unzip it
 * says so and exits 0.
 */
/* nftw() is an XSI interface. */
#define _XOPEN_SOURCE 700

#include "bench.h"
#include "common.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skit/pack.h"

#define SKILLS     500
#define MAX_ROUNDS 1000
#define UNZIP      "/usr/bin/unzip"

/* The median of v[0..n); sorts a copy so that v keeps the round order. */
static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, (size_t)n * sizeof(*v));
	qsort(s, (size_t)n, sizeof(*s), bench_cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "bench_install: %s %s: %s\n", what, path,
	        strerror(errno));
	exit(1);
}

static void write_file(const char *path, const char *data, size_t len,
                       mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0)
		die("open", path);
	if (write(fd, data, len) != (ssize_t)len)
		die("write", path);
	/* The umask may have taken bits that the pack must see. */
	if (fchmod(fd, mode) < 0 || close(fd) < 0)
		die("close", path);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) < 0)
		die("mkdir", path);
}

/* Varied, compressible text of about `want` bytes: words drawn from a
 * small vocabulary by a linear congruential generator seeded per skill,
 * so every notes.md differs but the run is reproducible. */
static size_t notes_text(char *out, size_t cap, size_t want, unsigned seed)
{
	static const char *const words[] = {
		"audit",    "bundle",  "cache",    "deploy",  "editor",
		"fixture",  "gateway", "handler",  "index",   "journal",
		"kernel",   "ledger",  "manifest", "network", "operator",
		"parser",   "query",   "release",  "schema",  "template",
		"upstream", "vector",  "workflow", "yaml",    "zipfile",
		"the",      "a",       "of",       "to",      "when",
		"before",   "after",   "each",     "every",   "checks",
	};
	uint32_t x = seed * 2654435761u + 1;
	size_t len = 0, col = 0;

	len += (size_t)snprintf(out, cap, "# Notes for skill %u\n\n", seed);
	while (len + 16 < cap && len < want) {
		const char *w;
		size_t wl;

		x = x * 1664525u + 1013904223u;
		w = words[(x >> 16) % SKIT_ARRAY_SIZE(words)];
		wl = strlen(w);
		memcpy(out + len, w, wl);
		len += wl;
		col += wl + 1;
		if (col > 72 || (x & 0x3f) == 0) {
			out[len++] = (x & 0x7) == 0 ? '\n' : '.';
			out[len++] = '\n';
			col = 0;
		} else {
			out[len++] = ' ';
		}
	}
	out[len++] = '\n';
	return len;
}

static void make_skill(const char *dir, unsigned i)
{
	char path[4096], text[4096];
	size_t len;

	make_dir(dir);
	len = (size_t)snprintf(text, sizeof(text),
	                       "---\nname: skill-%u\ndescription: Benchmark "
	                       "skill number %u; it checks and bundles "
	                       "workflow fixtures.\n---\n# Skill %u\n\nRun "
	                       "scripts/run.sh, then read "
	                       "references/notes.md.\n",
	                       i, i, i);
	snprintf(path, sizeof(path), "%s/SKILL.md", dir);
	write_file(path, text, len, 0644);

	snprintf(path, sizeof(path), "%s/scripts", dir);
	make_dir(path);
	len = (size_t)snprintf(
	        text, sizeof(text),
	        "#!/bin/sh\n# run.sh - the entry point of skill-%u.\nset -eu\n"
	        "here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
	        "if [ $# -eq 0 ]; then\n"
	        "\techo \"usage: run.sh FILE...\" >&2\n\texit 2\nfi\n"
	        "for f in \"$@\"; do\n"
	        "\tprintf 'skill-%u: checking %%s\\n' \"$f\"\n"
	        "\tgrep -c . \"$f\" || true\n"
	        "done\n"
	        "echo \"notes: $here/../references/notes.md\"\n",
	        i, i);
	snprintf(path, sizeof(path), "%s/scripts/run.sh", dir);
	write_file(path, text, len, 0755);

	snprintf(path, sizeof(path), "%s/references", dir);
	make_dir(path);
	len = notes_text(text, sizeof(text), 2048, i);
	snprintf(path, sizeof(path), "%s/references/notes.md", dir);
	write_file(path, text, len, 0644);
}

static int rm_one(const char *path, const struct stat *st, int type,
                  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP ? rmdir(path) : unlink(path))
		die("remove", path);
	return 0;
}

static void rm_tree(const char *path)
{
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		die("remove", path);
}

/* `mb` MiB of unrelated data, written and left dirty (no fsync). */
static void make_dirty(const char *path, int mb)
{
	static char block[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("open", path);
	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (char)(i * 131 + (size_t)mb);
	for (int i = 0; i < mb; i++)
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			die("write", path);
	if (close(fd) < 0)
		die("close", path);
}

static double time_unzip(const char *pack, const char *dest)
{
	char *argv[] = { UNZIP, "-q", (char *)pack, "-d", (char *)dest, NULL };
	double t0 = bench_now_ms();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork", UNZIP);
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_install: unzip failed (status %d)\n",
		        status);
		exit(1);
	}
	return bench_now_ms() - t0;
}

static double time_install(const char *pack, const char *root)
{
	skit_install_result *res = NULL;
	skit_error err = { 0 };
	double t0, t;
	size_t n;

	make_dir(root);
	t0 = bench_now_ms();
	if (skit_install(root, pack, NULL, &res, &err) < 0) {
		fprintf(stderr, "bench_install: skit_install: %s\n",
		        err.message);
		exit(1);
	}
	t = bench_now_ms() - t0;
	n = skit_install_result_count(res);
	skit_install_result_free(res);
	if (n != SKILLS) {
		fprintf(stderr, "bench_install: installed %zu skills, not %d\n",
		        n, SKILLS);
		exit(1);
	}
	return t;
}

int main(int argc, char **argv)
{
	static char *dirs[SKILLS];
	static double t_unzip[MAX_ROUNDS], t_inst[MAX_ROUNDS],
	        ratio[MAX_ROUNDS];
	skit_pack_options popts = SKIT_PACK_OPTIONS_INIT;
	skit_pack_info info;
	skit_error err = { 0 };
	const char *tmpdir = getenv("TMPDIR");
	char base[2048], pack[3072], a[3072], b[3072];
	struct stat st;
	double mu, mi, mr;
	int rounds = 5, dirty = 0;

	if (argc > 1)
		rounds = (int)strtol(argv[1], NULL, 10);
	if (argc > 2)
		dirty = (int)strtol(argv[2], NULL, 10);
	if (argc > 3 || rounds < 1 || rounds > MAX_ROUNDS || dirty < 0 ||
	    dirty > 4096) {
		fprintf(stderr,
		        "usage: bench_install [ROUNDS 1..%d [DIRTY_MB "
		        "0..4096]]\n",
		        MAX_ROUNDS);
		return 2;
	}
	if (access(UNZIP, X_OK) < 0) {
		printf("bench_install: %s not found; nothing to compare "
		       "against, not measured\n",
		       UNZIP);
		return 0;
	}
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	if (snprintf(base, sizeof(base), "%s/skit-bench-install-XXXXXX",
	             tmpdir) >= (int)sizeof(base) - 64) {
		fprintf(stderr, "bench_install: TMPDIR is too long\n");
		return 1;
	}
	if (!mkdtemp(base))
		die("mkdtemp", base);

	snprintf(a, sizeof(a), "%s/src", base);
	make_dir(a);
	for (unsigned i = 0; i < SKILLS; i++) {
		snprintf(b, sizeof(b), "%s/src/skill-%u", base, i);
		make_skill(b, i);
		dirs[i] = skitx_strdup(b);
		if (!dirs[i])
			die("allocate", b);
	}
	snprintf(pack, sizeof(pack), "%s/pack.zip", base);
	if (skit_pack((const char *const *)dirs, SKILLS, pack, &popts, &info,
	              &err) < 0) {
		fprintf(stderr, "bench_install: skit_pack: %s\n", err.message);
		rm_tree(base);
		return 1;
	}
	for (unsigned i = 0; i < SKILLS; i++)
		skitx_free(dirs[i]);
	if (stat(pack, &st) < 0)
		die("stat", pack);
	printf("pack: %zu skills, %zu files, %llu bytes inflated, "
	       "%lld bytes zipped, in %s\n",
	       info.skills, info.files, (unsigned long long)info.bytes,
	       (long long)st.st_size, base);

	/* Warm-up: the page cache, the loader, libarchive's first use. */
	snprintf(a, sizeof(a), "%s/warm-unzip", base);
	snprintf(b, sizeof(b), "%s/warm-install", base);
	time_unzip(pack, a);
	time_install(pack, b);
	rm_tree(a);
	rm_tree(b);

	for (int r = 0; r < rounds; r++) {
		char dirty_path[3072];

		snprintf(dirty_path, sizeof(dirty_path), "%s/dirty", base);
		if (dirty)
			make_dirty(dirty_path, dirty);
		snprintf(a, sizeof(a), "%s/unzip-%d", base, r);
		snprintf(b, sizeof(b), "%s/install-%d", base, r);
		/* Alternate which goes first, so that neither always runs
		 * on the heels of the other's writes. */
		if (r % 2) {
			t_inst[r] = time_install(pack, b);
			t_unzip[r] = time_unzip(pack, a);
		} else {
			t_unzip[r] = time_unzip(pack, a);
			t_inst[r] = time_install(pack, b);
		}
		ratio[r] = t_inst[r] / t_unzip[r];
		printf("round %d: unzip %.1f ms, skit_install %.1f ms, "
		       "ratio %.2fx\n",
		       r + 1, t_unzip[r], t_inst[r], ratio[r]);
		fflush(stdout);
		rm_tree(a);
		rm_tree(b);
		if (dirty && unlink(dirty_path) < 0)
			die("remove", dirty_path);
	}
	mu = median(t_unzip, rounds);
	mi = median(t_inst, rounds);
	mr = median(ratio, rounds);
	printf("median over %d rounds: unzip %.1f ms, skit_install %.1f ms\n",
	       rounds, mu, mi);
	printf("install/unzip: %.2fx (median of per-round ratios; ratio of "
	       "medians %.2fx), target within 2x: %s\n",
	       mr, mi / mu, mr <= 2.0 ? "PASS" : "FAIL");
	rm_tree(base);
	return 0;
}
