/* SPDX-License-Identifier: MIT */
/*
 * bench_floor.c - the raw floor for scanning a skills root.
 *
 *	bench_floor [--yaml] ROOT...
 *
 * Does the least work any scanner must do: list each ROOT, and for every
 * entry that is not a dot-entry open ROOT/<name>/SKILL.md, read its first
 * 4 KiB and close it. No parsing, no allocation per skill, no output but one
 * summary line ("files=N bytes=B missing=M"). scripts/bench.sh times this
 * program with bench_run exactly as it times `skit list`, so process start-up
 * is in both figures and the ratio compares like with like.
 *
 * With --yaml it also finds the closing "---" and runs libyaml's event
 * parser over the frontmatter (events only: no tree, no validation). That is
 * a reference, not a floor: it shows how much of a scanner's budget the YAML
 * library alone takes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#define HEAD_SIZE 4096

/* Length of the frontmatter after the first line, or 0 when unclosed. */
static size_t frontmatter_len(const char *p, size_t len, const char **start)
{
	const char *end = p + len, *nl = memchr(p, '\n', len), *line;

	if (!nl)
		return 0;
	*start = nl + 1;
	for (line = nl + 1; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			return 0;
		if (nl - line == 3 && !memcmp(line, "---", 3))
			return (size_t)(line - *start);
	}
	return 0;
}

/* Parse `len` bytes of YAML into events and drop them. 0, or -1 on error. */
static int parse_yaml(const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int done = 0, error = 0;

	if (!yaml_parser_initialize(&parser))
		return -1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			error = -1;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return error;
}

/* One root; the counters are the whole run's. 0, or -1: unreadable. */
struct totals {
	unsigned long files, missing, bad;
	unsigned long long bytes;
};

static int scan_root(const char *root, int with_yaml, struct totals *t)
{
	static char head[HEAD_SIZE];
	char path[4096];
	const char *yaml;
	struct dirent *de;
	size_t ylen;
	int fd, len;
	ssize_t got;
	DIR *dir;

	dir = opendir(root);
	if (!dir) {
		fprintf(stderr, "bench_floor: %s: %s\n", root, strerror(errno));
		return -1;
	}
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		len = snprintf(path, sizeof(path), "%s/%s/SKILL.md", root,
		               de->d_name);
		if (len < 0 || (size_t)len >= sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			t->missing++;
			continue;
		}
		got = read(fd, head, sizeof(head));
		close(fd);
		if (got <= 0)
			continue;
		t->bytes += (unsigned long long)got;
		t->files++;
		if (!with_yaml)
			continue;
		ylen = frontmatter_len(head, (size_t)got, &yaml);
		if (!ylen || parse_yaml(yaml, ylen) < 0)
			t->bad++;
	}
	closedir(dir);
	return 0;
}

int main(int argc, char **argv)
{
	struct totals t = { 0, 0, 0, 0 };
	int first = 1, with_yaml = 0;

	if (argc > 1 && !strcmp(argv[1], "--yaml")) {
		with_yaml = 1;
		first = 2;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: bench_floor [--yaml] ROOT...\n");
		return 2;
	}
	for (int i = first; i < argc; i++)
		if (scan_root(argv[i], with_yaml, &t) < 0)
			return 1;
	printf("files=%lu bytes=%llu missing=%lu bad=%lu\n", t.files, t.bytes,
	       t.missing, t.bad);
	return 0;
}
