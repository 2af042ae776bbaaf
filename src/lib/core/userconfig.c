/* SPDX-License-Identifier: MIT */
/*
 * userconfig.c - reading and changing the user config (userconfig.h).
 */
#include "common.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skit/registry.h"
#include "lib/core/error.h"
#include "lib/core/userconfig.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

/* As registry_config.c: a config file is small. */
#define MAX_CONFIG (1024 * 1024)

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int skit__user_config_path(char **out)
{
	const char *xdg = env("XDG_CONFIG_HOME"), *home = env("HOME");

	*out = NULL;
	if (xdg && xdg[0] == '/')
		*out = skitx_path_join(xdg, "skit/config.json");
	else if (home)
		*out = skitx_path_join(home, ".config/skit/config.json");
	else
		return 0;
	return *out ? 0 : SKIT_ENOMEM;
}

int skit_user_config_path(char **out, skit_error *err)
{
	assert(out);
	if (skit__user_config_path(out) < 0)
		return skit__error_oom(err);
	if (!*out)
		return skit__error_set(
		        err, SKIT_ENOTFOUND, 0,
		        "no user config: neither XDG_CONFIG_HOME "
		        "nor HOME is set");
	return 0;
}

/*
 * Read the user config at `path` into `*out`: an empty object when the
 * file does not exist. SKIT_EINVALID (with the reason) when it is not a
 * JSON object or cannot be read.
 */
int skit__userconfig_read(json_t **out, const char *path, skit_error *err)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	json_error_t jerr;
	int rc;

	char *real = realpath(path, NULL);

	*out = NULL;
	/* a linked config (dotfiles) is read where it lives */
	rc = skitx_fs_read_file(real ? real : path, &text, MAX_CONFIG);
	free(real); /* realpath(3) allocates with malloc */
	if (rc == SKIT_ENOTFOUND) {
		skitx_buf_release(&text);
		*out = json_object();
		return *out ? 0 : skit__error_oom(err);
	}
	if (rc < 0) {
		skitx_buf_release(&text);
		return rc == SKIT_ENOMEM
		               ? skit__error_oom(err)
		               : skit__error_set(
		                         err, SKIT_EINVALID, 0,
		                         "%s: cannot be read (or larger "
		                         "than %d bytes)",
		                         path, MAX_CONFIG);
	}
	*out = json_loadb(text.ptr, text.len,
	                  JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	skitx_buf_release(&text);
	if (!*out)
		return skit__error_set(err, SKIT_EINVALID, (unsigned)jerr.line,
		                       "%s:%d:%d: %s", path, jerr.line,
		                       jerr.column, jerr.text);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return skit__error_set(
		        err, SKIT_EINVALID, 0,
		        "%s: the top level must be a JSON object", path);
	}
	return 0;
}

/* The user config, for reading only; NULL when missing or unreadable. */
json_t *skit__userconfig_read_quiet(void)
{
	skit_error err = { 0 };
	char *path = NULL;
	json_t *j = NULL;

	if (skit__user_config_path(&path) == 0 && path)
		skit__userconfig_read(&j, path, &err);
	skitx_free(path);
	return j;
}

void skit__userconfig_end(struct skit__userconfig_edit *e)
{
	if (e->lockfd >= 0)
		close(e->lockfd); /* releases the flock */
	json_decref(e->json);
	skitx_free(e->path);
	memset(e, 0, sizeof(*e));
	e->lockfd = -1;
}

int skit__userconfig_begin(struct skit__userconfig_edit *e, const char *path,
                           bool create, skit_error *err)
{
	char *dir = NULL;
	int rc;

	memset(e, 0, sizeof(*e));
	e->lockfd = -1;
	if (path) {
		e->path = skitx_strdup(path);
		if (!e->path)
			return skit__error_oom(err);
	} else {
		rc = skit_user_config_path(&e->path, err);
		if (rc < 0)
			return rc;
	}
	{
		/* a linked config (dotfiles) is written where it lives */
		char *real = realpath(e->path, NULL);

		if (real) {
			skitx_free(e->path);
			e->path = skitx_strdup(real);
			free(real); /* realpath(3) allocates with malloc */
			if (!e->path)
				return skit__error_oom(err);
		}
	}
	dir = skitx_path_dirname(e->path);
	if (!dir)
		return skit__error_oom(err);
	if (!create && !skitx_fs_is_dir(dir)) {
		/* Nothing to lock: the file cannot exist either. */
		skitx_free(dir);
		return skit__userconfig_read(&e->json, e->path, err);
	}
	if (skitx_fs_mkdir_p(dir, 0700) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", dir,
		                     strerror(errno));
		goto fail;
	}
	e->lockfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->lockfd < 0 || flock(e->lockfd, LOCK_EX) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: cannot lock: %s",
		                     dir, strerror(errno));
		goto fail;
	}
	skitx_free(dir);
	return skit__userconfig_read(&e->json, e->path, err);
fail:
	skitx_free(dir);
	return rc;
}

int skit__userconfig_commit(struct skit__userconfig_edit *e, skit_error *err)
{
	char *text = json_dumps(e->json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	struct stat st;
	mode_t mode = 0600;
	int rc;

	if (!text)
		return skit__error_oom(err);
	if (stat(e->path, &st) == 0)
		mode = st.st_mode & 0777; /* keep the user's choice */
	rc = skitx_fs_write_atomic(e->path, text, strlen(text), mode);
	if (!rc) {
		int fd = open(e->path, O_WRONLY | O_APPEND | O_CLOEXEC);

		/* a final newline, as an editor would leave it */
		if (fd < 0 || write(fd, "\n", 1) != 1)
			rc = SKIT_EIO;
		if (fd >= 0)
			close(fd);
	}
	free(text);
	if (rc < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s: cannot write: %s",
		                       e->path, strerror(errno));
	return 0;
}

/* The array `key` of the config, made when missing; NULL when the key
 * holds something else (named in err). */
json_t *skit__userconfig_array(json_t *cfg, const char *path, const char *key,
                               bool make, skit_error *err)
{
	json_t *a = json_object_get(cfg, key);

	if (!a && make) {
		a = json_array();
		if (!a || json_object_set_new(cfg, key, a) < 0) {
			skit__error_oom(err);
			return NULL;
		}
	}
	if (a && !json_is_array(a)) {
		skit__error_set(err, SKIT_EINVALID, 0,
		                "%s: \"%s\" must be an array", path, key);
		return NULL;
	}
	return a;
}

int skit__userconfig_begin_list(struct skit__userconfig_edit *e,
                                const char *key, bool make, json_t **list,
                                skit_error *err)
{
	int rc = skit__userconfig_begin(e, NULL, true, err);

	*list = NULL;
	if (rc)
		return rc;
	*list = skit__userconfig_array(e->json, e->path, key, make, err);
	if (!*list && (make || json_object_get(e->json, key)))
		return err && err->code ? err->code : SKIT_EINVALID;
	return 0;
}
