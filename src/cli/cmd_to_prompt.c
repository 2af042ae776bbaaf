/* SPDX-License-Identifier: MIT */
/*
 * cmd_to_prompt.c - `skit to-prompt PATH...`: the skills index for a
 * system prompt. The default XML is the reference's output byte for byte.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "util/hash.h"
#include "util/path.h"

static void help(void)
{
	printf("usage: skit to-prompt [options] PATH...\n\n"
	       "Render the given skills as the <available_skills> block an "
	       "agent puts in its\nsystem prompt (level 1: names, "
	       "descriptions, locations), in argument order.\n\n"
	       "Options:\n"
	       "  --format FMT   xml (the reference's format, default), "
	       "markdown or json\n"
	       "  --json         the same as --format json\n"
	       "  --budget N     fit in N characters, or N tokens with a "
	       "'tok' suffix\n"
	       "                 (e.g. 2000tok): descriptions are shortened "
	       "first, then the\n"
	       "                 last skills are left out, and the output "
	       "says how many\n"
	       "  --strict       the reference's verdicts: refuse what "
	       "`skit validate`'s\n"
	       "                 conformance rules and the reference refuse "
	       "(flow YAML,\n"
	       "                 a missing name...); without it, the loading "
	       "rules apply\n"
	       "  -h, --help     show this help\n\n"
	       "Every format drops hidden characters (controls, bidi "
	       "overrides and isolates,\nzero-width and TAG characters; "
	       "skit validate flags them); --strict keeps them\nin its XML, "
	       "as the reference does.\n\n"
	       "Options may come before or after the paths; '--' ends them. "
	       "A skill that\ncannot be loaded is named in the error (with "
	       "--strict, the reference's\nmessage alone).\n\n"
	       "Exit status: 0 done, 1 a skill cannot be loaded, 2 a path is "
	       "missing or\nthe usage is wrong.\n");
}

/*
 * The folder `arg` names, resolved as realpath(3) would, into `out`.
 * realpath reads every component of every path (a readlink each); a run
 * of folders in one parent (the usual `skit to-prompt dir/<glob>`) needs the
 * parent resolved once. `st` is lstat(arg); `parent` caches the last
 * parent and its resolution.
 */
struct parent_cache {
	char *path;
	char resolved[PATH_MAX];
	bool ok;
};

static void resolve_folder(char out[PATH_MAX], const char *arg,
                           const struct stat *st, struct parent_cache *pc)
{
	const char *slash = strrchr(arg, '/'), *base;
	char *folder = NULL, *parent;
	size_t blen;
	struct stat fst;

	base = slash ? slash + 1 : arg;
	/*
	 * A real folder (not a link) with a plain last component: resolve
	 * its parent only. Anything else takes the general path.
	 */
	if (S_ISDIR(st->st_mode) && *base && strcmp(base, ".") &&
	    strcmp(base, "..")) {
		parent = slash ? skitx_strndup(arg, (size_t)(slash - arg))
		               : skitx_strdup(".");
		if (parent && !*parent) {
			skitx_free(parent);
			parent = skitx_strdup("/");
		}
		if (parent && (!pc->path || strcmp(pc->path, parent))) {
			skitx_free(pc->path);
			pc->path = parent;
			parent = NULL;
			pc->ok = realpath(pc->path, pc->resolved) != NULL;
		}
		skitx_free(parent);
		if (pc->path && pc->ok &&
		    (size_t)snprintf(out, PATH_MAX, "%s%s%s", pc->resolved,
		                     strcmp(pc->resolved, "/") ? "/" : "",
		                     base) < PATH_MAX)
			return;
	}
	/*
	 * Like the reference: a SKILL.md argument means its folder, and the
	 * folder is resolved (symbolic links too) before it is read, so
	 * messages and <location> name the real path.
	 */
	base = skitx_path_name(arg, &blen);
	if (stat(arg, &fst) == 0 && S_ISREG(fst.st_mode) && blen == 8 &&
	    !strncasecmp(base, "skill.md", 8))
		folder = skitx_path_dirname(arg);
	if (!realpath(folder ? folder : arg, out))
		snprintf(out, PATH_MAX, "%s", folder ? folder : arg);
	skitx_free(folder);
}

/*
 * lstat(arg), relative to its parent folder, opened once for a run of
 * arguments in one parent (the usual `dir/<glob>`): a stat() walks every
 * component of the path, and with 10k long paths that walk was a fifth
 * of the whole run. Any other shape of path takes lstat() itself.
 */
struct parent_fd {
	char *path;
	int fd;
};

static int lstat_arg(const char *arg, struct stat *st, struct parent_fd *pf)
{
	const char *slash = strrchr(arg, '/'), *base;
	size_t plen;

	base = slash ? slash + 1 : arg;
	if (!slash || !*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return lstat(arg, st);
	plen = slash == arg ? 1 : (size_t)(slash - arg);
	if (!pf->path || strlen(pf->path) != plen ||
	    memcmp(pf->path, arg, plen)) {
		skitx_free(pf->path);
		if (pf->fd >= 0)
			close(pf->fd);
		pf->path = skitx_strndup(arg, plen);
		pf->fd = pf->path ? open(pf->path,
		                         O_RDONLY | O_DIRECTORY | O_CLOEXEC)
		                  : -1;
	}
	if (pf->fd < 0)
		return lstat(arg, st);
	return fstatat(pf->fd, base, st, AT_SYMLINK_NOFOLLOW);
}

/* A run of at least this many arguments in one parent is listed. */
#define LIST_MIN_RUN 32
/* Entries read per argument of the run, at most, before giving up. */
#define LIST_PER_ARG 8

/*
 * Whether `arg` is "PARENT/NAME" with a plain NAME; `*plen` gets the
 * length of PARENT ("/" for "/NAME").
 */
static bool plain_child(const char *arg, size_t *plen)
{
	const char *slash = strrchr(arg, '/'), *base;

	if (!slash)
		return false;
	base = slash + 1;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return false;
	*plen = slash == arg ? 1 : (size_t)(slash - arg);
	return true;
}

/*
 * For a run of arguments [i, j) in one parent folder (the usual
 * `skit to-prompt root/<glob>`): one readdir() of the parent says which
 * of them are real folders (d_type), which spares the lstat() of each
 * (with 10k arguments those were a fifth of a warm run). Those get
 * known[k] and an S_IFDIR mode, which is all resolve_folder() reads;
 * every other argument (not listed, DT_UNKNOWN, a link, a file, a name
 * given twice) is left to lstat_arg(). The listing gives up after
 * LIST_PER_ARG entries per argument, so a huge parent costs no more than
 * the lstat() calls it would spare.
 */
static void list_run(char *const *args, size_t i, size_t j, size_t plen,
                     struct stat *sts, bool *known)
{
	struct skitx_strmap map = SKITX_STRMAP_INIT;
	struct dirent *de;
	size_t seen = 0, budget = (j - i) * LIST_PER_ARG;
	char *parent;
	uint32_t *k;
	DIR *dir;

	for (size_t a = i; a < j; a++) {
		const char *base = strrchr(args[a], '/') + 1;
		uint32_t found;

		if (skitx_strmap_put(&map, base, strlen(base), (uint32_t)a,
		                     &found) < 0) {
			skitx_strmap_release(&map);
			return;
		}
	}
	parent = skitx_strndup(args[i], plen);
	dir = parent ? opendir(parent) : NULL;
	skitx_free(parent);
	while (dir && seen++ < budget && (de = readdir(dir)) != NULL) {
		if (de->d_type != DT_DIR)
			continue;
		k = skitx_strmap_get(&map, de->d_name, strlen(de->d_name));
		/* a name given twice maps to its first argument only */
		if (k && !known[*k]) {
			known[*k] = true;
			memset(&sts[*k], 0, sizeof(sts[*k]));
			sts[*k].st_mode = S_IFDIR | 0755;
		}
	}
	if (dir)
		closedir(dir);
	skitx_strmap_release(&map);
}

/* list_run() over each long enough run of arguments in one parent. */
static void list_parents(char *const *args, size_t n, struct stat *sts,
                         bool *known)
{
	size_t i = 0, plen, qlen;

	while (i < n) {
		size_t j = i + 1;

		if (!plain_child(args[i], &plen)) {
			i++;
			continue;
		}
		while (j < n && plain_child(args[j], &qlen) && qlen == plen &&
		       !memcmp(args[j], args[i], plen))
			j++;
		if (j - i >= LIST_MIN_RUN)
			list_run(args, i, j, plen, sts, known);
		i = j;
	}
}

/*
 * `--strict`: the reference's verdicts, folder by folder, with the
 * defaults (conformance) and skit_skill_check_properties(), the first
 * failure (in argument order) reported. No cache, no threads: this is the
 * conformance path, not the fast one.
 */
static int strict_items(skit_prompt_item **out, char *const *dirs, size_t n,
                        size_t *failed, skit_error *err)
{
	skit_prompt_item *items = skitx_calloc(n ? n : 1, sizeof(*items));
	int rc = 0;

	*out = items;
	if (!items) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return SKIT_ENOMEM;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		skit_skill *s = NULL;
		const char *base;
		size_t blen;
		char *loc;

		rc = skit_skill_load(&s, dirs[i], NULL, err);
		if (!rc)
			rc = skit_skill_check_properties(s, err);
		if (!rc) {
			base = skitx_path_name(skit_skill_file(s), &blen);
			loc = skitx_path_join(skit_skill_dir(s), base);
			items[i].location = loc;
			items[i].name = skitx_strdup(skit_skill_name_raw(s));
			items[i].description =
			        skitx_strdup(skit_skill_description(s));
			if (!loc || !items[i].name || !items[i].description) {
				snprintf(err->message, sizeof(err->message),
				         "out of memory");
				rc = SKIT_ENOMEM;
			}
		}
		skit_skill_free(s);
		if (rc)
			*failed = i;
	}
	return rc;
}

/* Free what strict_items() made (three strings an item). */
static void strict_items_free(skit_prompt_item *items, size_t n)
{
	for (size_t i = 0; items && i < n; i++) {
		skitx_free((char *)items[i].name);
		skitx_free((char *)items[i].description);
		skitx_free((char *)items[i].location);
	}
	skitx_free(items);
}

/*
 * Which of `dirs` made skit_registry_prompt_items() fail: the library
 * reports the first failing folder's message only, so load them again
 * one at a time (on this error path alone) and keep that one's message.
 */
static size_t first_failing(char *const *dirs, size_t n, skit_error *err)
{
	for (size_t i = 0; i < n; i++) {
		skit_prompt_item *one = NULL;
		skit_registry *reg = NULL;
		skit_error e = { 0 };
		int rc = skit_registry_new(&reg, &e);

		if (!rc)
			rc = skit_registry_prompt_items(
			        &one, reg, (const char *const *)&dirs[i], 1,
			        &e);
		skit_registry_prompt_items_free(one, 1);
		skit_registry_free(reg);
		if (rc == SKIT_ENOMEM)
			return n;
		if (rc < 0) {
			*err = e;
			return i;
		}
	}
	return n;
}

int cmd_to_prompt(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "budget", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_prompt_options popts = SKIT_PROMPT_OPTIONS_INIT;
	struct parent_cache pc = { NULL, { 0 }, false };
	struct parent_fd pf = { NULL, -1 };
	skit_prompt_item *items = NULL;
	skit_registry *reg = NULL;
	struct stat *sts = NULL;
	bool *known = NULL;
	skit_error err = { 0 };
	char ref[sizeof(err.message)];
	char **dirs = NULL;
	char *out = NULL;
	bool strict = false;
	size_t failed = SIZE_MAX;
	int c, n = 0, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "xml"))
				popts.format = SKIT_PROMPT_XML;
			else if (!strcmp(optarg, "markdown"))
				popts.format = SKIT_PROMPT_MARKDOWN;
			else if (!strcmp(optarg, "json"))
				popts.format = SKIT_PROMPT_JSON;
			else
				return cli_usage_error(
				        argv[0], "unknown format '%s'", optarg);
			break;
		case 'b':
			if (skit_prompt_parse_budget(&popts.budget, optarg,
			                             &err) < 0)
				return cli_usage_error(argv[0], "%s",
				                       err.message);
			break;
		case 'j':
			popts.format = SKIT_PROMPT_JSON;
			break;
		case 's':
			strict = true;
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
	/*
	 * Every format strips hidden characters, as the agent does (the
	 * text goes to a model). Only --strict, the reference's output byte
	 * for byte, keeps them in its XML.
	 */
	if (strict && popts.format == SKIT_PROMPT_XML)
		popts.flags |= SKIT_PROMPT_VERBATIM;

	n = argc - optind;
	dirs = skitx_calloc((size_t)n, sizeof(*dirs));
	sts = skitx_calloc((size_t)n, sizeof(*sts));
	known = skitx_calloc((size_t)n, sizeof(*known));
	if (!dirs || !sts || !known) {
		cli_error(argv[0], "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	list_parents(argv + optind, (size_t)n, sts, known);
	for (int i = 0; i < n; i++) {
		if (!known[i] &&
		    lstat_arg(argv[optind + i], &sts[i], &pf) < 0) {
			cli_error(argv[0], "Path '%s' does not exist",
			          argv[optind + i]);
			status = CLI_USAGE;
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		char resolved[PATH_MAX];

		resolve_folder(resolved, argv[optind + i], &sts[i], &pc);
		dirs[i] = skitx_strdup(resolved);
		if (!dirs[i]) {
			cli_error(argv[0], "out of memory");
			status = CLI_FAIL;
			goto out;
		}
	}
	/*
	 * The library loads the folders (on a few threads, unchanged ones
	 * from the index cache of their parent folder) and keeps only the
	 * three strings of each: the first folder that fails, in argument
	 * order, is the one reported.
	 */
	if (strict) {
		if (strict_items(&items, dirs, (size_t)n, &failed, &err) < 0) {
			status = CLI_FAIL;
			goto fail;
		}
	} else if (skit_registry_new(&reg, &err) < 0) {
		status = CLI_FAIL;
	} else if (skit_registry_prompt_items(&items, reg,
	                                      (const char *const *)dirs,
	                                      (size_t)n, &err) < 0) {
		status = CLI_FAIL;
		if (err.code != SKIT_ENOMEM)
			failed = first_failing(dirs, (size_t)n, &err);
	}
fail:
	if (status != CLI_OK) {
		/* name the skill that failed, as the user wrote it; --strict
		 * keeps the reference's message byte for byte */
		if (failed < (size_t)n && !strict)
			cli_error(argv[0], "%s: %s", argv[optind + failed],
			          err.message);
		else if (strict)
			cli_error(argv[0], "%s",
			          cli_reference_message(err.message, ref,
			                                sizeof(ref)));
		else
			cli_error(argv[0], "%s", err.message);
		goto out;
	}
	if (skit_prompt_render(&out, items, (size_t)n, &popts, NULL, &err) <
	    0) {
		cli_error(argv[0], "%s", err.message);
		status = CLI_FAIL;
		goto out;
	}
	fputs(out, stdout);
	fputc('\n', stdout);
out:
	if (strict)
		strict_items_free(items, (size_t)n);
	else
		skit_registry_prompt_items_free(items, (size_t)n);
	skit_registry_free(reg);
	for (int i = 0; dirs && i < n; i++)
		skitx_free(dirs[i]);
	skitx_free(dirs);
	skitx_free(pc.path);
	skitx_free(pf.path);
	if (pf.fd >= 0)
		close(pf.fd);
	skit_free(out);
	skitx_free(sts);
	skitx_free(known);
	return status;
}
