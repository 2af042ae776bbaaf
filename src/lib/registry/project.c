/* SPDX-License-Identifier: MIT */
/*
 * project.c - which folder is the project: the nearest ancestor holding a
 * project marker, never the home folder, `/`, a system folder or a hidden
 * folder of the home folder (docs/permissions.md, "The project folder").
 * Folder trust (trust.c) and the default roots (registry_config.c) both
 * ask here; this file asks neither.
 */
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#include "skit/registry.h"
#include "lib/core/error.h"
#include "lib/registry/project.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

/*
 * Why `dir` (absolute, clean) can never be a project, or NULL when it can.
 * The home folder holds the user's keys and skills, not a repository's;
 * `/` and the system folders hold everyone's. A model given one of them
 * as its project could read `.ssh/id_ed25519` or `etc/shadow` as project
 * files. The folders listed as trees are refused with everything under
 * them; the others only themselves (a checkout may live in /srv/x or
 * /usr/src/x).
 */
static const char *not_a_project(const char *dir, const char *home,
                                 const char *home_real)
{
	static const char *const trees[] = {
		"/proc",      "/sys",         "/dev",         "/etc",
		"/boot",      "/bin",         "/sbin",        "/lib",
		"/lib32",     "/lib64",       "/libx32",      "/run",
		"/usr/bin",   "/usr/sbin",    "/usr/lib",     "/usr/lib32",
		"/usr/lib64", "/usr/libexec", "/usr/include", "/usr/share",
		"/var/lib",   "/var/log",     "/var/cache",   "/var/spool",
		"/var/mail",  "/var/run",     "/var/lock",
	};
	static const char *const exact[] = {
		"/home",
		"/root",
		"/tmp",
		"/var",
		"/var/tmp",
		"/mnt",
		"/media",
		"/opt",
		"/srv",
		"/usr",
		"/usr/local",
		"/usr/src",
		"/usr/local/bin",
		"/usr/local/lib",
		"/usr/local/share",
		"/usr/local/src",
		"/usr/local/sbin",
		"/usr/local/etc",
		"/snap",
		"/nix",
		"/nix/store",
		"/lost+found",
	};

	if (!strcmp(dir, "/"))
		return "the root folder";
	if ((home && !strcmp(dir, home)) ||
	    (home_real && !strcmp(dir, home_real)))
		return "the home folder";
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(trees); i++) {
		size_t n = strlen(trees[i]);

		if (!strncmp(dir, trees[i], n) && (!dir[n] || dir[n] == '/'))
			return "a system folder";
	}
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(exact); i++)
		if (!strcmp(dir, exact[i]))
			return "a system folder";
	return NULL;
}

static int home_spellings(const char *home, char **abs, char **real);

const char *skit__not_a_project(const char *dir)
{
	const char *home = getenv("HOME"), *why;
	char *abs = NULL, *real = NULL;

	home_spellings(home && *home ? home : NULL, &abs, &real);
	why = not_a_project(dir, abs, real);
	skitx_free(abs);
	skitx_free(real);
	return why;
}

/* The home folder, absolute, and resolved (either may stay NULL). */
static int home_spellings(const char *home, char **abs, char **real)
{
	*abs = *real = NULL;
	if (!home)
		return 0;
	*abs = skitx_path_absolute(home);
	if (!*abs)
		return SKIT_ENOMEM;
	{
		char *r = realpath(*abs, NULL);

		if (r) {
			*real = skitx_strdup(r);
			free(r); /* realpath(3) allocates with malloc */
			if (!*real)
				return SKIT_ENOMEM;
		}
	}
	return 0;
}

/*
 * The project: the nearest ancestor of `cwd` (itself included) holding a
 * `.agents/`, `.agent/` or `.claude/` folder or a `.git` entry (a folder,
 * or the file of a worktree), skipping every folder not_a_project()
 * refuses: the home folder's `.agents/` holds the user's skills, not a
 * repository's, and a `.git` in `/` or the home folder (dotfiles kept in
 * git) does not make it one. The search stops at the home folder, as
 * git's ceiling folders do: a tree that holds the home folder is no
 * project of a folder inside it.
 */
int skit__project_find_from(char **out, const char *cwd, const char *home)
{
	static const char *const marks[] = { ".agents", ".agent", ".claude",
		                             ".git" };
	struct skitx_buf probe = SKITX_BUF_INIT;
	char *dir = skitx_strdup(cwd), *home_abs = NULL, *home_real = NULL;
	int error = 0;

	*out = NULL;
	if (!dir)
		return SKIT_ENOMEM;
	error = home_spellings(home, &home_abs, &home_real);
	if (error < 0)
		goto out;
	for (;;) {
		char *parent;

		if (!not_a_project(dir, home_abs, home_real)) {
			for (size_t i = 0; i < SKIT_ARRAY_SIZE(marks); i++) {
				skitx_buf_clear(&probe);
				error = skitx_buf_printf(
				        &probe, "%s%s%s", dir,
				        strcmp(dir, "/") ? "/" : "", marks[i]);
				if (error < 0)
					goto out;
				if (i < 3 ? skitx_fs_is_dir(probe.ptr)
				          : skitx_fs_exists(probe.ptr)) {
					*out = dir;
					dir = NULL;
					goto out;
				}
			}
		}
		if (!strcmp(dir, "/") || (home_abs && !strcmp(dir, home_abs)) ||
		    (home_real && !strcmp(dir, home_real)))
			break;
		parent = skitx_path_dirname(dir);
		if (!parent) {
			error = SKIT_ENOMEM;
			goto out;
		}
		skitx_free(dir);
		dir = parent;
	}
out:
	skitx_buf_release(&probe);
	skitx_free(dir);
	skitx_free(home_abs);
	skitx_free(home_real);
	return error;
}

int skit_project_find(char **out, skit_error *err)
{
	char buf[PATH_MAX];
	const char *home = getenv("HOME");
	int error;

	assert(out);
	*out = NULL;
	if (!getcwd(buf, sizeof(buf)))
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot read the current folder: %s",
		                       strerror(errno));
	error = skit__project_find_from(out, buf, home && *home ? home : NULL);
	return error == SKIT_ENOMEM ? skit__error_oom(err) : error;
}

/*
 * Whether `dir` is, or lies beneath, a hidden folder of the home folder
 * (`~/.ssh`, `~/.config/gh`, `~/.aws`): such a folder holds keys and
 * settings, and with no project marker of its own it is never the
 * project a run reads and writes (docs/permissions.md).
 */
static bool in_hidden_home(const char *dir, const char *home,
                           const char *home_real)
{
	const char *homes[2] = { home, home_real };

	for (int i = 0; i < 2; i++) {
		size_t n = homes[i] ? strlen(homes[i]) : 0;

		if (n > 1 && !strncmp(dir, homes[i], n) && dir[n] == '/' &&
		    dir[n + 1] == '.')
			return true;
	}
	return false;
}

int skit_project_for_run(char **out, const char *cwd, skit_error *err)
{
	const char *home = getenv("HOME"), *why;
	char buf[PATH_MAX], *dir, *home_abs = NULL, *home_real = NULL;
	int error;

	assert(out);
	*out = NULL;
	if (!cwd) {
		if (!getcwd(buf, sizeof(buf)))
			return skit__error_set(
			        err, SKIT_EIO, 0,
			        "cannot read the current folder: "
			        "%s",
			        strerror(errno));
		cwd = buf;
	}
	dir = skitx_path_absolute(cwd);
	if (!dir)
		return skit__error_oom(err);
	home = home && *home ? home : NULL;
	error = skit__project_find_from(out, dir, home);
	if (!error && !*out) {
		error = home_spellings(home, &home_abs, &home_real);
		why = error ? NULL : not_a_project(dir, home_abs, home_real);
		if (!error && !why && in_hidden_home(dir, home_abs, home_real))
			why = "a hidden folder of the home folder, with no "
			      "project marker (.git, .agents)";
		if (why)
			error = skit__error_set(err, SKIT_ENOTFOUND, 0,
			                        "no project: %.300s is %s", dir,
			                        why);
		else if (!error) {
			*out = dir;
			dir = NULL;
		}
	}
	skitx_free(dir);
	skitx_free(home_abs);
	skitx_free(home_real);
	return error == SKIT_ENOMEM ? skit__error_oom(err) : error;
}
