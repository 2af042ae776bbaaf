/* SPDX-License-Identifier: MIT */
/*
 * cmd_validate.c - `skit validate PATH...`: check skills against the spec
 * with the reference implementation's verdicts and messages.
 */
#include "common.h"

#include <getopt.h>
#include <jansson.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"

enum format { FORMAT_TEXT, FORMAT_REFERENCE, FORMAT_JSON };

static void help(void)
{
	printf("usage: skit validate [options] PATH...\n\n"
	       "Check each skill folder (or its SKILL.md) against the Agent "
	       "Skills spec,\nwith the reference implementation's rules and "
	       "messages, plus lint warnings.\n\n"
	       "Options:\n"
	       "  --format FMT   text (gcc-style lines, default), reference "
	       "(skills-ref's\n"
	       "                 exact output) or json\n"
	       "  --json         the same as --format json\n"
	       "  -r, --recursive  a PATH that holds skill folders (and is not "
	       "a skill):\n"
	       "                 validate each skill folder directly inside "
	       "it\n"
	       "  --strict       warnings fail the check too\n"
	       "  --lenient      the loading rules: report what the registry, "
	       "the agent and\n"
	       "                 install would accept (flow YAML, a name that "
	       "differs from\n"
	       "                 its folder, the fields other clients use...), "
	       "with their\n"
	       "                 warnings\n"
	       "  -q, --quiet    print nothing for valid skills\n"
	       "  -h, --help     show this help\n\n"
	       "Options may come before or after the paths; '--' ends them.\n\n"
	       "Exit status: 0 all valid, 1 a skill is invalid, 2 a path is "
	       "missing, holds\nskills without -r, or the usage is wrong.\n");
}

/*
 * Write a diagnostic's message with its terminal controls (C0 but tab and
 * newline, DEL, C1) shown as U+FFFD: it quotes the file, and no byte of a
 * SKILL.md may drive the terminal. Everything else is written as the
 * reference words it, hidden characters included, so they can be seen to
 * be there.
 */
static void put_message(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) {
			fputs("\xef\xbf\xbd", stderr);
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fputs("\xef\xbf\xbd", stderr);
			p++;
		} else {
			fputc(*p, stderr);
		}
	}
}

static void print_diag(const skit_diag *d, bool color)
{
	const char *sev =
	        d->severity == SKIT_SEVERITY_ERROR ? "error" : "warning";
	const char *on = !color                               ? ""
	                 : d->severity == SKIT_SEVERITY_ERROR ? "\033[1;31m"
	                                                      : "\033[1;35m";
	const char *off = color ? "\033[0m" : "";

	fputs(d->path, stderr);
	if (d->line) {
		fprintf(stderr, ":%u", d->line);
		if (d->column)
			fprintf(stderr, ":%u", d->column);
	}
	/* The message quotes the file (a name, a value): no byte of it may
	 * drive the terminal. */
	fprintf(stderr, ": %s%s:%s ", on, sev, off);
	put_message(d->message);
	fprintf(stderr, " [%s]\n", d->code);
}

static json_t *diag_json(const skit_diag *d)
{
	return json_pack(
	        "{s:s, s:s, s:s, s:s, s:i, s:i}", "severity",
	        d->severity == SKIT_SEVERITY_ERROR ? "error" : "warning",
	        "code", d->code, "message", d->message, "file", d->path, "line",
	        (int)d->line, "column", (int)d->column);
}

struct vstate {
	const char *verb;
	const skit_skill_options *opts;
	enum format format;
	bool strict, quiet, color;
	json_t *report;
	int status;
};

/* Validates one skill folder and reports it in vs->format. */
static void check_one(const char *path, void *arg)
{
	struct vstate *vs = arg;
	bool strict = vs->strict, quiet = vs->quiet, color = vs->color;
	enum format format = vs->format;
	json_t *report = vs->report;

	skit_error err = { 0 };
	const skit_diag *diags;
	skit_skill *skill;
	char ref[512];
	size_t n;
	bool ok;

	if (skit_skill_load(&skill, path, vs->opts, &err) < 0) {
		cli_error(vs->verb, "%s: %s", path, err.message);
		vs->status = err.code == SKIT_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
		return;
	}
	diags = skit_skill_diags(skill, &n);
	ok = skit_skill_valid(skill) &&
	     !(strict && skit_skill_has_warnings(skill));
	if (!ok && vs->status == CLI_OK)
		vs->status = CLI_FAIL;

	if (format == FORMAT_JSON) {
		json_t *arr = json_array(), *o;
		for (size_t k = 0; k < n; k++)
			json_array_append_new(arr, diag_json(&diags[k]));
		o = json_pack("{s:s, s:s?, s:b, s:o}", "path",
		              skit_skill_dir(skill), "file",
		              skit_skill_file(skill), "valid", ok,
		              "diagnostics", arr);
		json_array_append_new(report, o);
	} else if (format == FORMAT_REFERENCE) {
		if (ok) {
			if (!quiet)
				printf("Valid skill: %s\n",
				       skit_skill_dir(skill));
		} else {
			fprintf(stderr, "Validation failed for %s:\n",
			        skit_skill_dir(skill));
			for (size_t k = 0; k < n; k++)
				if (diags[k].severity == SKIT_SEVERITY_ERROR ||
				    strict)
					fprintf(stderr, "  - %s\n",
					        cli_reference_message(
					                diags[k].message, ref,
					                sizeof(ref)));
		}
	} else {
		for (size_t k = 0; k < n; k++)
			print_diag(&diags[k], color);
		if (ok && !quiet)
			printf("Valid skill: %s\n", skit_skill_dir(skill));
	}
	skit_skill_free(skill);
}

static bool has_skill_file(const char *dir)
{
	static const char *const names[] = { "SKILL.md", "skill.md" };
	char path[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(names); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >=
		    (int)sizeof(path))
			return false;
		if (stat(path, &st) == 0)
			return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The skill folders directly inside `dir` (folders holding a SKILL.md),
 * in name order; calls `fn` on each when it is not NULL. Returns their
 * number, or (size_t)-1 when out of memory. Capped at MAX_HELD entries
 * read so a huge folder cannot exhaust memory.
 */
#define MAX_HELD 100000
static size_t count_skills(const char *dir, void (*fn)(const char *, void *),
                           void *arg)
{
	char **names = NULL, path[PATH_MAX];
	size_t n = 0, cap = 0, held = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < MAX_HELD) {
		char **t;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		if (!has_skill_file(path))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			t = skitx_realloc(names, cap * sizeof(*names));
			if (!t)
				goto oom;
			names = t;
		}
		names[n] = skitx_strdup(path);
		if (!names[n])
			goto oom;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	held = n;
	for (size_t i = 0; i < n; i++) {
		if (fn)
			fn(names[i], arg);
		skitx_free(names[i]);
	}
	skitx_free(names);
	return held;
oom:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		skitx_free(names[i]);
	skitx_free(names);
	return (size_t)-1;
}

int cmd_validate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "strict", no_argument, NULL, 's' },
		{ "lenient", no_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
	enum format format = FORMAT_TEXT;
	bool strict = false, quiet = false, recursive = false,
	     color = cli_color(stderr);
	json_t *report = NULL;
	struct vstate vs;
	int c, status = CLI_OK, missing = 0;

	opts.flags = SKIT_SKILL_LINT;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":qhr", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				format = FORMAT_TEXT;
			else if (!strcmp(optarg, "reference"))
				format = FORMAT_REFERENCE;
			else if (!strcmp(optarg, "json"))
				format = FORMAT_JSON;
			else
				return cli_usage_error(
				        argv[0], "unknown format '%s'", optarg);
			break;
		case 'j':
			format = FORMAT_JSON;
			break;
		case 'r':
			recursive = true;
			break;
		case 's':
			strict = true;
			break;
		case 'l':
			opts.flags |= SKIT_SKILL_LENIENT;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing PATH");

	if (format == FORMAT_JSON)
		report = json_array();
	vs.verb = argv[0];
	vs.opts = &opts;
	vs.format = format;
	vs.strict = strict;
	vs.quiet = quiet;
	vs.color = color;
	vs.report = report;
	vs.status = CLI_OK;
	/* The reference refuses missing paths before checking any. */
	for (int i = optind; format == FORMAT_REFERENCE && i < argc; i++) {
		struct stat st;

		if (lstat(argv[i], &st) < 0) {
			cli_error(argv[0], "Path '%s' does not exist", argv[i]);
			missing++;
		}
	}
	if (missing) {
		json_decref(report);
		return CLI_USAGE;
	}
	/* A missing path is reported and the others are still checked
	 * (as cargo and gcc go on past a missing input); it makes exit 2. */
	for (int i = optind; i < argc; i++) {
		struct stat st;
		size_t held;

		if (lstat(argv[i], &st) < 0) {
			cli_error(argv[0], "Path '%s' does not exist", argv[i]);
			missing++;
			continue;
		}
		held = S_ISDIR(st.st_mode) && !has_skill_file(argv[i])
		               ? count_skills(argv[i], NULL, NULL)
		               : 0;
		if (held && !recursive) {
			cli_error(argv[0],
			          "%s is not a skill: this folder holds %zu "
			          "skill%s; try skit validate %s/* (or -r)",
			          argv[i], held, held == 1 ? "" : "s", argv[i]);
			missing++;
			continue;
		}
		if (held) {
			if (count_skills(argv[i], check_one, &vs) == (size_t)-1)
				vs.status = CLI_FAIL;
			continue;
		}
		check_one(argv[i], &vs);
	}
	report = vs.report;
	status = vs.status;
	if (missing)
		status = CLI_USAGE;
	if (report) {
		char *s = json_dumps(report,
		                     JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (s)
			puts(s);
		free(s);
		json_decref(report);
	}
	fflush(stdout);
	return status;
}
