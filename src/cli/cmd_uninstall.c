/* SPDX-License-Identifier: MIT */
/*
 * cmd_uninstall.c - `skit uninstall NAME`: remove an installed skill.
 * Only what skit's lock records; anything else needs --force, which
 * asks first on a terminal and needs --yes without one (as `git clean`
 * needs -f, a removal skit cannot undo is never a default).
 */
#include "common.h"

#include <dirent.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "util/alloc.h"
#include "util/path.h"

static void help(void)
{
	printf("usage: skit uninstall [options] NAME...\n\n"
	       "Remove the skills NAME from the skills folder and its lock "
	       "file. A skill\nfolder that is a symbolic link loses the "
	       "link only; nothing is followed.\n"
	       "All the NAMEs go in one transaction: every one is checked "
	       "first, and if one\nis not installed nothing is removed.\n"
	       "Only skills that skit installed (its lock records them) are "
	       "removed; a\nhand-written skill, or one another tool "
	       "installed, needs --force. The links\n(and copies) 'skit "
	       "install --agent' made in agents' folders go too; an\nedited "
	       "copy needs --force.\n\n"
	       "Options:\n" CLI_SCOPE_HELP
	       "  -f, --force         also remove skills skit did not "
	       "install; asks first on\n"
	       "                      a terminal, needs --yes without one\n"
	       "  -y, --yes           with --force: remove without asking\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 removed, 1 refused or failed (nothing "
	       "changed), 2 usage, a\nNAME that is not installed, or --force "
	       "without a terminal nor --yes\n(nothing changed).\n");
}

/*
 * --force: the NAMEs on disk that the lock does not record are named on
 * stderr; confirmed by --yes, or by the user on a terminal. Returns
 * CLI_OK to go on, CLI_FAIL (declined) or CLI_USAGE (no way to ask).
 */
static int confirm_foreign(const char *root, char **names, int n, bool yes,
                           const char *verb)
{
	skit_lock *lock = NULL;
	skit_error err = { 0 };
	char line[16];
	int foreign = 0;

	if (skit_lock_read(&lock, root, &err) < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	for (int i = 0; i < n; i++) {
		bool locked = false;
		char *path = NULL;
		struct stat st;

		for (size_t k = 0; k < skit_lock_count(lock) && !locked; k++)
			locked = !strcmp(skit_lock_at(lock, k)->name, names[i]);
		/* a bad name is the library's to refuse, untouched here */
		if (locked || !skit_skill_name_ok(names[i]) ||
		    !(path = skitx_path_join(root, names[i])))
			continue;
		if (lstat(path, &st) == 0) {
			if (!foreign++)
				fprintf(stderr, "Not installed by skit:\n");
			fprintf(stderr, "  %s (%s)\n", path,
			        S_ISLNK(st.st_mode) ? "a symbolic link; its "
			                              "target stays"
			                            : "a folder");
		}
		skitx_free(path);
	}
	skit_lock_free(lock);
	if (!foreign || yes)
		return CLI_OK;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		cli_error(verb, "refused: --force removes skills skit did not "
		                "install; without a terminal to ask on, add "
		                "--yes to confirm");
		return CLI_USAGE;
	}
	fprintf(stderr, "Remove %s for good? [y/N] ",
	        foreign == 1 ? "it" : "them");
	if (!fgets(line, sizeof(line), stdin) ||
	    (line[0] != 'y' && line[0] != 'Y')) {
		cli_error(verb, "nothing was removed");
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* The skills folder of the scope `want` ("project", "user"), or NULL
 * (owned); quiet, unlike cli_scope_root(). */
static char *scope_path(const char *want)
{
	skit_roots_options ro = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg = NULL;
	char *found = NULL;

	if (skit_registry_new(&reg, NULL) == 0 &&
	    skit_registry_add_default_roots(reg, &ro, NULL) == 0)
		for (size_t i = 0; i < skit_registry_root_count(reg) && !found;
		     i++) {
			const char *src, *path;
			bool exists;
			size_t n;

			skit_registry_root(reg, i, &src, &path, &exists, &n);
			if (skit_registry_source_matches(src, want))
				found = skitx_strdup(path);
		}
	skit_registry_free(reg);
	return found;
}

/* Whether `root` holds `name`: a folder (or link) or a lock entry. */
static bool holds(const char *root, const skit_lock *lock, const char *name)
{
	char *path = skitx_path_join(root, name);
	struct stat st;
	bool found = path && lstat(path, &st) == 0;

	skitx_free(path);
	for (size_t k = 0; !found && k < skit_lock_count(lock); k++)
		found = !strcmp(skit_lock_at(lock, k)->name, name);
	return found;
}

/* The names `root` holds, for "did you mean": its lock's and its
 * folders' (not the dot-folders skit and other tools keep there). */
static size_t names_in(const char *root, const skit_lock *lock, char **v,
                       size_t cap)
{
	DIR *d = opendir(root);
	struct dirent *de;
	size_t n = 0;

	for (size_t k = 0; k < skit_lock_count(lock) && n < cap; k++)
		if ((v[n] = skitx_strdup(skit_lock_at(lock, k)->name)))
			n++;
	while (d && n < cap && (de = readdir(d)))
		if (de->d_name[0] != '.' && (v[n] = skitx_strdup(de->d_name)))
			n++;
	if (d)
		closedir(d);
	return n;
}

/*
 * NAMEs that are not installed in `root`: say where they are (the other
 * scope), or which installed name was meant.
 */
static void hint_missing(const char *root, const char *label,
                         const struct cli_scope *scope, char **names, int n)
{
	const char *other_label =
	        !strcmp(label, "project") ? "user" : "project";
	char *other = scope->root ? NULL : scope_path(other_label);
	skit_lock *lock = NULL, *olock = NULL;
	char *cands[256];
	size_t nc = 0;

	if (skit_lock_read(&lock, root, NULL) < 0)
		lock = NULL;
	if (other && skit_lock_read(&olock, other, NULL) < 0)
		olock = NULL;
	nc = names_in(root, lock, cands, SKIT_ARRAY_SIZE(cands));
	for (int i = 0; i < n; i++) {
		const char *near;

		if (holds(root, lock, names[i]))
			continue;
		if (other && strcmp(other, root) &&
		    holds(other, olock, names[i])) {
			fprintf(stderr,
			        "hint: %s is installed in the %s scope (%s): "
			        "skit uninstall --scope %s %s\n",
			        names[i], other_label, other, other_label,
			        names[i]);
			continue;
		}
		near = cli_suggest(names[i], (const char *const *)cands, nc);
		if (near)
			fprintf(stderr, "hint: did you mean '%s'?\n", near);
	}
	for (size_t i = 0; i < nc; i++)
		skitx_free(cands[i]);
	skit_lock_free(lock);
	skit_lock_free(olock);
	skitx_free(other);
}

int cmd_uninstall(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SCOPE_LONGOPTS,
		{ "force", no_argument, NULL, 'f' },
		{ "yes", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_scope scope = { 0 };
	skit_error err = { 0 };
	skit_lock *before = NULL;
	const char *label = NULL;
	char *root = NULL;
	bool force = false, yes = false;
	int c, rc, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hfy", longopts, NULL)) != -1) {
		rc = cli_scope_option(&scope, c, optarg, argv[0]);
		if (rc == CLI_USAGE)
			return rc;
		if (rc)
			continue;
		if (c == 'h') {
			help();
			return CLI_OK;
		}
		if (c == 'f') {
			force = true;
			continue;
		}
		if (c == 'y') {
			yes = true;
			continue;
		}
		return cli_unknown_option(argv[0], c, argc, argv, longopts);
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing NAME");
	if (yes && !force)
		return cli_usage_error(argv[0], "--yes confirms --force; "
		                                "give both");
	status = cli_scope_root(&scope, &root, &label, argv[0]);
	if (status != CLI_OK)
		return status;
	if (force)
		status = confirm_foreign(root, argv + optind, argc - optind,
		                         yes, argv[0]);
	if (status != CLI_OK) {
		skitx_free(root);
		return status;
	}
	/* the links the lock records, to say which ones went */
	if (skit_lock_read(&before, root, NULL) < 0)
		before = NULL;
	rc = skit_uninstall_ex(root, (const char *const *)argv + optind,
	                       (size_t)(argc - optind),
	                       force ? SKIT_UNINSTALL_FORCE : 0, &err);
	if (rc < 0) {
		cli_error(argv[0], "%s", err.message);
		if (rc == SKIT_ENOTFOUND || rc == SKIT_EUSAGE)
			hint_missing(root, label, &scope, argv + optind,
			             argc - optind);
		if (rc == SKIT_EDENIED)
			fprintf(stderr,
			        "hint: it may be hand-written or another tool's "
			        "(npx skills links its skills);\nhint: remove it "
			        "yourself, or run 'skit uninstall --force' (asks "
			        "first)\n");
		status = rc == SKIT_EUSAGE || rc == SKIT_ENOTFOUND ? CLI_USAGE
		                                                   : CLI_FAIL;
	} else {
		for (int i = optind; i < argc; i++) {
			printf("Uninstalled %s from %s (%s)\n", argv[i], root,
			       label);
			for (size_t k = 0; k < skit_lock_count(before); k++) {
				if (strcmp(skit_lock_at(before, k)->name,
				           argv[i]))
					continue;
				for (size_t m = 0;
				     m < skit_lock_link_count(before, k); m++) {
					const skit_install_link *l =
					        skit_lock_link_at(before, k, m);
					struct stat st;

					if (l && lstat(l->path, &st) < 0)
						printf("  removed %s (%s)\n",
						       l->path, l->agent);
				}
			}
		}
	}
	skit_lock_free(before);
	skitx_free(root);
	return status;
}
