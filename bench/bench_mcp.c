/* SPDX-License-Identifier: MIT */
/*
 * bench_mcp.c - the MCP server (`skit mcp`), each figure next to a
 * baseline measured in the same run (docs/bench.md, "The MCP server").
 *
 *	bench_mcp DIR [N] [SKIT]
 *
 * Writes N skills (default 10,000) under DIR/skills unless they are
 * there (each: SKILL.md of about 1 KiB, references/guide.md of 2 KiB,
 * scripts/run.sh), then prints key=value lines:
 *
 *   list_ms        skills/list over all N skills, every page, through
 *                  skit_mcp_server_handle() (the JSON-RPC core, as the
 *                  stdio and HTTP transports call it); median of 3
 *   list_floor_ms  the floor for the same answer: read every SKILL.md's
 *                  first 4 KiB and SHA-256 every file of every skill,
 *                  no JSON (what any server must at least do); median of 3
 *   read_per_s     resources/read of 20,000 files (SKILL.md and
 *                  references/guide.md of 10,000 skills), through the core
 *   read_floor_per_s  open + read + close of the same files
 *   start_ms       with SKIT: exec `skit mcp --root DIR/skills`, send
 *                  initialize and read the answer, then end of input;
 *                  median of 5
 *   start_floor_ms exec `skit list --json --root DIR/skills` (the same
 *                  scan, no server); median of 5
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "bench.h"
#include "skit/skit.h"

#define RUNS       3
#define START_RUNS 5
#define READS      20000

static void die(const char *what)
{
	fprintf(stderr, "bench_mcp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		die(path);
}

static void generate(const char *skills, size_t n)
{
	char path[4096], body[4096];
	int len;

	if (mkdir(skills, 0755) && errno != EEXIST)
		die(skills);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/bench-skill-%05zu", skills, i);
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		snprintf(path, sizeof(path), "%s/bench-skill-%05zu/references",
		         skills, i);
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		snprintf(path, sizeof(path), "%s/bench-skill-%05zu/scripts",
		         skills, i);
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		len = snprintf(
		        body, sizeof(body),
		        "---\nname: bench-skill-%05zu\ndescription: "
		        "Formats quarterly report number %zu into the "
		        "house style. Use when the user asks for report "
		        "%zu or its summary tables.\nlicense: MIT\n"
		        "metadata:\n  owner: bench\n  version: \"1.%zu\"\n"
		        "---\n# Report %zu\n\n",
		        i, i, i, i % 10, i);
		while (len < 1000)
			len += snprintf(body + len, sizeof(body) - (size_t)len,
			                "Step: read references/guide.md, then "
			                "run scripts/run.sh.\n");
		snprintf(path, sizeof(path), "%s/bench-skill-%05zu/SKILL.md",
		         skills, i);
		put_file(path, body, (size_t)len);
		len = 0;
		while (len < 2000)
			len += snprintf(body + len, sizeof(body) - (size_t)len,
			                "Guide line %d for skill %zu: keep "
			                "tables aligned.\n",
			                len, i);
		snprintf(path, sizeof(path),
		         "%s/bench-skill-%05zu/references/guide.md", skills, i);
		put_file(path, body, (size_t)len);
		snprintf(path, sizeof(path),
		         "%s/bench-skill-%05zu/scripts/run.sh", skills, i);
		put_file(path, "#!/bin/sh\necho ok\n", 18);
	}
}

/* Send one message; returns the response (caller frees). */
static char *call(skit_mcp_server *srv, const char *msg)
{
	skit_error err = { 0 };
	char *resp = NULL, *n = NULL;

	if (skit_mcp_server_handle(srv, msg, strlen(msg), &resp, &err) ||
	    !resp) {
		fprintf(stderr, "bench_mcp: %s\n", err.message);
		exit(1);
	}
	while (!skit_mcp_server_next_notification(srv, &n, NULL) && n)
		skit_free(n);
	return resp;
}

/* Page through skills/list; returns the number of skills seen. */
static size_t list_all(skit_mcp_server *srv)
{
	char msg[256], *resp, *p;
	char cursor[32] = "";
	size_t count = 0;

	do {
		if (cursor[0])
			snprintf(msg, sizeof(msg),
			         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
			         "\"skills/list\",\"params\":{\"cursor\":"
			         "\"%s\"}}",
			         cursor);
		else
			snprintf(msg, sizeof(msg),
			         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
			         "\"skills/list\"}");
		resp = call(srv, msg);
		for (p = resp; (p = strstr(p, "\"frontmatter\"")); p++)
			count++;
		cursor[0] = '\0';
		p = strstr(resp, "\"nextCursor\":\"");
		if (p)
			sscanf(p + 14, "%31[0-9]", cursor);
		skit_free(resp);
	} while (cursor[0]);
	return count;
}

static void sha_file(const char *path, unsigned char *out)
{
	unsigned char buf[65536];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int len;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !ctx)
		die(path);
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	EVP_DigestFinal_ex(ctx, out, &len);
	EVP_MD_CTX_free(ctx);
	close(fd);
}

/* The floor of skills/list: frontmatter bytes and digests, no JSON. */
static unsigned list_floor(const char *skills, size_t n)
{
	static const char *const files[] = { "SKILL.md", "references/guide.md",
		                             "scripts/run.sh" };
	unsigned char md[EVP_MAX_MD_SIZE];
	char path[4096], head[4096];
	unsigned sum = 0;

	for (size_t i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/bench-skill-%05zu/SKILL.md",
		         skills, i);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, head, sizeof(head)) < 0)
			die(path);
		close(fd);
		for (size_t k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "%s/bench-skill-%05zu/%s",
			         skills, i, files[k]);
			sha_file(path, md);
			sum += md[0];
		}
	}
	return sum;
}

static double run_start(const char *const argv[], const char *input)
{
	int in[2], out[2];
	char buf[65536];
	double t0 = bench_now_ms();
	pid_t pid;

	if (pipe(in) || pipe(out))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (input && write(in[1], input, strlen(input)) < 0)
		die("write");
	close(in[1]);
	while (read(out[0], buf, sizeof(buf)) > 0)
		;
	close(out[0]);
	waitpid(pid, NULL, 0);
	return bench_now_ms() - t0;
}

int main(int argc, char **argv)
{
	skit_mcp_options mo = SKIT_MCP_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_mcp_server *srv = NULL;
	skit_error err = { 0 };
	double list_ms[RUNS], floor_ms[RUNS], t0, read_ms, rfloor_ms;
	char skills[2048], msg[512], path[4096], *resp;
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000, seen = 0;
	unsigned sink = 0;
	struct stat st;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_mcp DIR [N] [SKIT]\n");
		return 2;
	}
	snprintf(skills, sizeof(skills), "%s/skills", argv[1]);
	mkdir(argv[1], 0755);
	snprintf(path, sizeof(path), "%s/bench-skill-%05zu/scripts/run.sh",
	         skills, n - 1);
	if (stat(path, &st))
		generate(skills, n);
	if (skit_registry_new(&reg, &err) ||
	    skit_registry_add_root(reg, "bench", skills, &err) ||
	    skit_registry_scan(reg, &err))
		goto fail;
	mo.registry = reg;
	if (skit_mcp_server_new(&srv, &mo, &err))
		goto fail;
	resp = call(srv, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
	                 "\"initialize\",\"params\":{\"protocolVersion\":"
	                 "\"2025-11-25\"}}");
	skit_free(resp);

	for (int r = 0; r < RUNS; r++) {
		t0 = bench_now_ms();
		seen = list_all(srv);
		list_ms[r] = bench_now_ms() - t0;
		t0 = bench_now_ms();
		sink += list_floor(skills, n);
		floor_ms[r] = bench_now_ms() - t0;
	}
	printf("skills=%zu listed=%zu\n", n, seen);
	printf("list_ms=%.1f\nlist_floor_ms=%.1f\nlist_ratio=%.2f\n",
	       bench_median(list_ms, RUNS), bench_median(floor_ms, RUNS),
	       bench_median(list_ms, RUNS) / bench_median(floor_ms, RUNS));

	t0 = bench_now_ms();
	for (size_t i = 0; i < READS; i++) {
		snprintf(msg, sizeof(msg),
		         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
		         "\"resources/read\",\"params\":{\"uri\":"
		         "\"skill://bench-skill-%05zu/%s\"}}",
		         (i / 2) % n,
		         i % 2 ? "references/guide.md" : "SKILL.md");
		resp = call(srv, msg);
		if (!strstr(resp, "\"contents\"")) {
			fprintf(stderr, "bench_mcp: %s\n", resp);
			return 1;
		}
		skit_free(resp);
	}
	read_ms = bench_now_ms() - t0;
	t0 = bench_now_ms();
	for (size_t i = 0; i < READS; i++) {
		char buf[65536];
		int fd;

		snprintf(path, sizeof(path), "%s/bench-skill-%05zu/%s", skills,
		         (i / 2) % n,
		         i % 2 ? "references/guide.md" : "SKILL.md");
		fd = open(path, O_RDONLY);
		if (fd < 0)
			die(path);
		while (read(fd, buf, sizeof(buf)) > 0)
			sink += (unsigned char)buf[0];
		close(fd);
	}
	rfloor_ms = bench_now_ms() - t0;
	printf("read_per_s=%.0f\nread_floor_per_s=%.0f\nread_ratio=%.2f\n",
	       READS / read_ms * 1e3, READS / rfloor_ms * 1e3,
	       read_ms / rfloor_ms);

	if (argc > 3) {
		const char *mcp[] = { argv[3],  "mcp",  "--no-config",
			              "--root", skills, NULL };
		const char *list[] = { argv[3],       "list",   "--json",
			               "--no-config", "--root", skills,
			               NULL };
		double s[START_RUNS], b[START_RUNS];

		for (int r = 0; r < START_RUNS; r++) {
			s[r] = run_start(
			        mcp, "{\"jsonrpc\":\"2.0\",\"id\":1,"
			             "\"method\":\"initialize\",\"params\":"
			             "{\"protocolVersion\":\"2025-11-25\"}}\n");
			b[r] = run_start(list, NULL);
		}
		printf("start_ms=%.1f\nstart_floor_ms=%.1f\nstart_ratio=%.2f\n",
		       bench_median(s, START_RUNS), bench_median(b, START_RUNS),
		       bench_median(s, START_RUNS) /
		               bench_median(b, START_RUNS));
	}
	fprintf(stderr, "(sink %u)\n", sink);
	skit_mcp_server_free(srv);
	skit_registry_free(reg);
	return 0;
fail:
	fprintf(stderr, "bench_mcp: %s\n", err.message);
	return 1;
}
