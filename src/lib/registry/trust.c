/* SPDX-License-Identifier: MIT */
/*
 * trust.c - the folders the user trusts (key "trusted" of the user
 * config, a list of absolute paths), as the registry and the agent ask
 * about them. The config is read and changed through core/userconfig.h;
 * the saved approvals of skill scripts are agent/approvals.c.
 */
#include "common.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skit/policy.h"
#include "skit/registry.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/core/userconfig.h"
#include "lib/registry/project.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

/* Entries kept of each list: enough for any user, bounded for a parser. */
#define MAX_ENTRIES 10000

/* ---- trusted folders ---- */

/* True when `dir` is `t` or inside it (whole path components). */
static bool covers(const char *t, const char *dir)
{
	size_t n = strlen(t);

	if (n && t[n - 1] == '/')
		n--;
	return !strncmp(dir, t, n) && (dir[n] == '\0' || dir[n] == '/');
}

/* Whether `dir` holds a project marker: `.agents/`, `.agent/`, `.claude/`
 * or a `.git` entry (docs/registry.md, "Roots and precedence"). A link
 * there counts too: the project finder (project.c) follows it, so a
 * `.agents` linked to a folder makes a project as a folder does. */
static bool has_marker(const char *dir)
{
	static const char *const marks[] = { ".agents", ".agent", ".claude",
		                             ".git" };
	char p[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(marks); i++) {
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, marks[i]) >=
		    sizeof(p))
			return true; /* cannot tell: as if it were one */
		if (!lstat(p, &st) &&
		    (i == 3 || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
			return true;
	}
	return false;
}

/*
 * Trust passes from the trusted folder `t` down to `dir`, but not past a
 * project: when `dir` holds a project marker and so does `t` or a folder
 * between them, `dir` is a project nested in a project, where a program
 * of an earlier run may have planted it (`src/.agents/skills/x` in a
 * trusted repository), and it must be trusted itself.
 */
static bool passes_down(const char *t, const char *dir)
{
	char p[PATH_MAX];
	size_t n = strlen(t);
	char *cut;

	while (n > 1 && t[n - 1] == '/')
		n--;
	/* `dir` is `t` itself, or no project: nothing of it is loaded. */
	if (strlen(dir) <= n || !has_marker(dir))
		return true;
	if (strlen(dir) >= sizeof(p))
		return false;
	memcpy(p, dir, strlen(dir) + 1);
	for (;;) {
		cut = strrchr(p, '/');
		if (!cut || (size_t)(cut - p) < n)
			return true;
		*cut = '\0';
		if (!*p)
			return true;
		if (has_marker(p))
			return false;
		if (strlen(p) <= n)
			return true;
	}
}

static bool trusted_in(json_t *cfg, const char *dir)
{
	json_t *a = cfg ? json_object_get(cfg, "trusted") : NULL, *item;
	size_t i;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, item)
	{
		const char *t = json_string_value(item);

		/* only absolute entries count: a relative one has no meaning
		 * and must not match every folder */
		if (t && t[0] == '/' && strlen(t) == json_string_length(item) &&
		    covers(t, dir) && passes_down(t, dir))
			return true;
	}
	return false;
}

int skit_trust_check(bool *trusted, const char *dir, skit_error *err)
{
	json_t *cfg;
	char *c;

	assert(trusted && dir);
	*trusted = false;
	c = skitx_path_real(dir);
	if (!c)
		return skit__error_oom(err);
	cfg = skit__userconfig_read_quiet();
	*trusted = trusted_in(cfg, c);
	json_decref(cfg);
	skitx_free(c);
	return 0;
}

int skit_trust_add(const char *dir, skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *a;
	const char *why;
	char *c = skitx_path_real(dir);
	int rc;

	if (!c)
		return skit__error_oom(err);
	if (!skitx_fs_is_dir(c)) {
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "%.300s: not a folder", c);
		skitx_free(c);
		return rc;
	}
	why = skit__not_a_project(c);
	if (why) {
		rc = skit__error_set(err, SKIT_EUSAGE, 0,
		                     "%.300s is %s: trusting it would trust "
		                     "every folder under it",
		                     c, why);
		skitx_free(c);
		return rc;
	}
	rc = skit__userconfig_begin_list(&e, "trusted", true, &a, err);
	if (!rc && json_array_size(a) >= MAX_ENTRIES)
		rc = skit__error_set(err, SKIT_ELIMIT, 0,
		                     "%s: more than %d trusted folders", e.path,
		                     MAX_ENTRIES);
	if (!rc && !trusted_in(e.json, c)) {
		if (json_array_append_new(a, json_string(c)) < 0)
			rc = skit__error_oom(err);
		else
			rc = skit__userconfig_commit(&e, err);
	}
	skit__userconfig_end(&e);
	skitx_free(c);
	return rc;
}

int skit_trust_remove(const char *dir, skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *a, *item;
	char *c = skitx_path_real(dir), *abs = skitx_path_absolute(dir);
	size_t i, removed = 0;
	int rc;

	if (!c || !abs) {
		skitx_free(c);
		skitx_free(abs);
		return skit__error_oom(err);
	}
	rc = skit__userconfig_begin_list(&e, "trusted", false, &a, err);
	for (i = 0; !rc && a && i < json_array_size(a);) {
		const char *t = json_string_value(json_array_get(a, i));

		item = json_array_get(a, i);
		if (t && (!strcmp(t, c) || !strcmp(t, abs))) {
			json_array_remove(a, i);
			removed++;
		} else {
			i++;
		}
		(void)item;
	}
	if (!rc && !removed)
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "%.300s is not in the trusted folders", c);
	if (!rc)
		rc = skit__userconfig_commit(&e, err);
	skit__userconfig_end(&e);
	skitx_free(c);
	skitx_free(abs);
	return rc;
}

int skit_trust_list(char ***out, size_t *n, skit_error *err)
{
	json_t *cfg = skit__userconfig_read_quiet(), *a, *item;
	size_t i, k = 0;
	char **v;

	assert(out && n);
	*out = NULL;
	*n = 0;
	a = cfg ? json_object_get(cfg, "trusted") : NULL;
	if (!json_is_array(a)) {
		json_decref(cfg);
		return 0;
	}
	v = skitx_calloc(json_array_size(a) + 1, sizeof(*v));
	if (!v) {
		json_decref(cfg);
		return skit__error_oom(err);
	}
	json_array_foreach(a, i, item)
	{
		const char *t = json_string_value(item);

		if (!t || t[0] != '/' || strlen(t) != json_string_length(item))
			continue;
		v[k] = skitx_strdup(t);
		if (!v[k]) {
			skit_strings_free(v, k);
			json_decref(cfg);
			return skit__error_oom(err);
		}
		k++;
	}
	json_decref(cfg);
	*out = v;
	*n = k;
	return 0;
}

void skit_strings_free(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		skitx_free(v[i]);
	skitx_free(v);
}
