/* SPDX-License-Identifier: MIT */
/*
 * approvals.c - the "always" approvals of skill scripts (key "approvals"
 * of the user config), each bound to the digest set of its skill's
 * files: the agent's gate asks here before it asks the user, and
 * `skit approvals` lists and revokes them (approvals.h).
 */
#include "common.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skit/policy.h"
#include "skit/registry.h"
#include "lib/agent/approvals.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/core/userconfig.h"
#include "lib/pack/pack_int.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

/* Entries kept of the list: enough for any user, bounded for a parser. */
#define MAX_ENTRIES 10000

/* ---- the digest set of a skill ---- */

/* What digest_cb() needs: the hash and the skill's canonical folder. */
struct digest_walk {
	EVP_MD_CTX *ctx;
	const char *root;
};

/*
 * Hash the record in `line` including its final NUL: the NUL ends each
 * field, so no path or link text can forge the next one.
 */
static int digest_add(EVP_MD_CTX *ctx, const struct skitx_buf *line)
{
	return EVP_DigestUpdate(ctx, line->ptr, line->len + 1) == 1 ? 0
	                                                            : SKIT_EIO;
}

/*
 * Where the link at `rel` leads, appended to `line` after its own record:
 * the link's text, then what it reaches. The walk does not follow links,
 * yet a script that runs `scripts/impl` runs whatever the link names, so
 * a link to a regular file contributes that file's bytes, wherever it is
 * (edit the file and the set changes), and a link to a folder inside the
 * skill its path there (the walk hashes what that folder holds). A link
 * to a folder or special file outside the skill is refused: nothing here
 * could bind what it holds. A link that leads nowhere counts as such, so
 * creating its target later changes the set too.
 */
static int digest_link(const struct digest_walk *dw, const char *rel,
                       struct skitx_buf *line, skit_error *err)
{
	char *path = skitx_path_join(dw->root, rel), *text = NULL;
	char *real = NULL, hex[65];
	struct stat st;
	uint64_t size = 0;
	ssize_t n;
	size_t rlen = strlen(dw->root);
	bool inside;
	int rc = 0, fd;

	text = skitx_malloc(PATH_MAX);
	if (!path || !text) {
		rc = skit__error_oom(err);
		goto out;
	}
	n = readlink(path, text, PATH_MAX - 1);
	if (n < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", rel,
		                     strerror(errno));
		goto out;
	}
	text[n] = '\0';
	if (skitx_buf_puts(line, text) < 0 || skitx_buf_putc(line, '\0') < 0)
		goto oom;
	real = realpath(path, NULL);
	if (!real || stat(real, &st) < 0) {
		if (skitx_buf_puts(line, "nowhere") < 0)
			goto oom;
		goto out;
	}
	inside = !strncmp(real, dw->root, rlen) &&
	         (real[rlen] == '\0' || real[rlen] == '/');
	if (S_ISREG(st.st_mode)) {
		fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		    skit__sha256_fd(fd, hex, &size) < 0) {
			if (fd >= 0)
				close(fd);
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "%s: cannot read %s", rel, real);
			goto out;
		}
		close(fd);
		if (skitx_buf_printf(line, "file %s %c %llu", hex,
		                     (st.st_mode & 0111) ? 'x' : '-',
		                     (unsigned long long)size) < 0)
			goto oom;
	} else if (inside) {
		if (skitx_buf_printf(line, "%s %s",
		                     S_ISDIR(st.st_mode) ? "dir" : "special",
		                     real[rlen] ? real + rlen + 1 : ".") < 0)
			goto oom;
	} else {
		rc = skit__error_set(
		        err, SKIT_EUNSAFE, 0,
		        "%s: a link to %s %s, outside the skill", rel,
		        S_ISDIR(st.st_mode) ? "the folder" : "the special file",
		        real);
	}
	goto out;
oom:
	rc = skit__error_oom(err);
out:
	free(real); /* realpath(3) allocates with malloc */
	skitx_free(text);
	skitx_free(path);
	return rc;
}

static int digest_cb(void *ud, const char *rel, int fd, const struct stat *st,
                     skit_error *err)
{
	const struct digest_walk *dw = ud;
	struct skitx_buf line = SKITX_BUF_INIT;
	char hex[65];
	uint64_t size = 0;
	int rc;

	if (fd >= 0) {
		if (skit__sha256_fd(fd, hex, &size) < 0)
			return skit__error_set(err, SKIT_EIO, 0,
			                       "%s: cannot read", rel);
		rc = skitx_buf_printf(&line, "file %s %c %llu %s", hex,
		                      (st->st_mode & 0111) ? 'x' : '-',
		                      (unsigned long long)size, rel);
	} else {
		rc = skitx_buf_printf(&line, "%s %s",
		                      S_ISDIR(st->st_mode)   ? "dir"
		                      : S_ISLNK(st->st_mode) ? "link"
		                                             : "special",
		                      rel);
		/* a link's record: "link REL", its text, what it reaches */
		if (rc >= 0 && S_ISLNK(st->st_mode)) {
			rc = skitx_buf_putc(&line, '\0');
			if (rc >= 0)
				rc = digest_link(dw, rel, &line, err);
			if (rc < 0 && rc != SKIT_ENOMEM) {
				skitx_buf_release(&line);
				return rc; /* err is set */
			}
		}
	}
	if (rc >= 0)
		rc = digest_add(dw->ctx, &line);
	skitx_buf_release(&line);
	if (rc < 0)
		return rc == SKIT_ENOMEM
		               ? skit__error_oom(err)
		               : skit__error_set(err, SKIT_EIO, 0,
		                                 "%s: cannot hash", rel);
	return 0;
}

int skit__skill_digest_set(const char *dir, char hex[65], skit_error *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char *c = skitx_path_real(dir);
	struct digest_walk dw;
	int rc;

	hex[0] = '\0';
	if (!ctx || !c) {
		EVP_MD_CTX_free(ctx);
		skitx_free(c);
		return skit__error_oom(err);
	}
	dw.ctx = ctx;
	dw.root = c;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		rc = skit__error_set(err, SKIT_EIO, 0, "SHA-256 unavailable");
	} else {
		rc = skit__tree_walk(AT_FDCWD, c, SKIT__WALK_LENIENT, NULL,
		                     digest_cb, &dw, err);
		if (!rc) {
			skit__sha256_final(ctx, hex);
			if (!hex[0])
				rc = skit__error_set(err, SKIT_EIO, 0,
				                     "SHA-256 unavailable");
		}
	}
	EVP_MD_CTX_free(ctx);
	skitx_free(c);
	return rc;
}

/* ---- saved approvals ---- */

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	/* a string with a NUL inside is no string here */
	return json_is_string(v) && strlen(json_string_value(v)) ==
	                                    json_string_length(v)
	               ? json_string_value(v)
	               : NULL;
}

bool skit__approval_saved(const char *dir, const char *script,
                          const char *digest)
{
	json_t *cfg = skit__userconfig_read_quiet(), *a, *item;
	char *c = skitx_path_real(dir);
	bool found = false;
	size_t i;

	a = cfg ? json_object_get(cfg, "approvals") : NULL;
	if (c && json_is_array(a)) {
		json_array_foreach(a, i, item)
		{
			const char *d = str_of(item, "dir"),
			           *s = str_of(item, "script"),
			           *g = str_of(item, "digest");

			if (d && s && g && !strcmp(d, c) &&
			    !strcmp(s, script) && !strcmp(g, digest)) {
				found = true;
				break;
			}
		}
	}
	json_decref(cfg);
	skitx_free(c);
	return found;
}

/* The id of an approval: the start of the SHA-256 of its folder and
 * script, so the same approval keeps its id when it is renewed. */
static void approval_id(const char *dir, const char *script, char id[13])
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char hex[65] = "";

	if (skitx_buf_printf(&b, "%s%c%s", dir, 0, script) >= 0)
		skit__sha256_hex(b.ptr, b.len, hex);
	skitx_buf_release(&b);
	memcpy(id, hex, 12);
	id[12] = '\0';
}

int skit__approval_save(const char *skill, const char *dir, const char *script,
                        const char *digest, skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *a = NULL, *item;
	char *c = skitx_path_real(dir), id[13], when[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;
	int rc;

	if (!c)
		return skit__error_oom(err);
	approval_id(c, script, id);
	if (!gmtime_r(&now, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		when[0] = '\0';
	rc = skit__userconfig_begin_list(&e, "approvals", true, &a, err);
	/* a renewed approval replaces the one of the older content */
	for (i = 0; !rc && i < json_array_size(a);) {
		item = json_array_get(a, i);
		if (str_of(item, "id") && !strcmp(str_of(item, "id"), id))
			json_array_remove(a, i);
		else
			i++;
	}
	if (!rc && json_array_size(a) >= MAX_ENTRIES)
		rc = skit__error_set(err, SKIT_ELIMIT, 0,
		                     "%s: more than %d saved approvals", e.path,
		                     MAX_ENTRIES);
	if (!rc) {
		item = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id",
		                 id, "tool", "run_skill_script", "skill",
		                 skill ? skill : "", "dir", c, "script", script,
		                 "digest", digest, "time", when);
		if (!item || json_array_append_new(a, item) < 0)
			rc = skit__error_oom(err);
		else
			rc = skit__userconfig_commit(&e, err);
	}
	skit__userconfig_end(&e);
	skitx_free(c);
	return rc;
}

void skit_saved_approvals_free(skit_saved_approval *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		skitx_free(v[i].id);
		skitx_free(v[i].skill);
		skitx_free(v[i].dir);
		skitx_free(v[i].script);
		skitx_free(v[i].digest);
		skitx_free(v[i].time);
	}
	skitx_free(v);
}

int skit_saved_approvals_list(skit_saved_approval **out, size_t *n,
                              skit_error *err)
{
	json_t *cfg = skit__userconfig_read_quiet(), *a, *item;
	skit_saved_approval *v;
	size_t i, k = 0;

	assert(out && n);
	*out = NULL;
	*n = 0;
	a = cfg ? json_object_get(cfg, "approvals") : NULL;
	if (!json_is_array(a) || !json_array_size(a)) {
		json_decref(cfg);
		return 0;
	}
	v = skitx_calloc(json_array_size(a), sizeof(*v));
	if (!v) {
		json_decref(cfg);
		return skit__error_oom(err);
	}
	json_array_foreach(a, i, item)
	{
		const char *f[6] = {
			str_of(item, "id"),     str_of(item, "skill"),
			str_of(item, "dir"),    str_of(item, "script"),
			str_of(item, "digest"), str_of(item, "time")
		};
		skit_saved_approval *s = &v[k];

		if (!f[0] || !f[2] || !f[3] || !f[4])
			continue; /* not one of ours: leave it alone */
		s->id = skitx_strdup(f[0]);
		s->skill = skitx_strdup(f[1] ? f[1] : "");
		s->dir = skitx_strdup(f[2]);
		s->script = skitx_strdup(f[3]);
		s->digest = skitx_strdup(f[4]);
		s->time = skitx_strdup(f[5] ? f[5] : "");
		{
			char now[65];

			s->current = !skit__skill_digest_set(f[2], now, NULL) &&
			             !strcmp(now, f[4]);
		}
		k++;
		if (!s->id || !s->skill || !s->dir || !s->script ||
		    !s->digest || !s->time) {
			skit_saved_approvals_free(v, k);
			json_decref(cfg);
			return skit__error_oom(err);
		}
	}
	json_decref(cfg);
	*out = v;
	*n = k;
	return 0;
}

int skit_saved_approvals_revoke(const char *id, size_t *removed,
                                skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *a = NULL, *item;
	size_t i, k = 0;
	int rc;

	if (removed)
		*removed = 0;
	rc = skit__userconfig_begin_list(&e, "approvals", false, &a, err);
	for (i = 0; !rc && a && i < json_array_size(a);) {
		const char *x;

		item = json_array_get(a, i);
		x = str_of(item, "id");
		if (!id || (x && !strcmp(x, id))) {
			json_array_remove(a, i);
			k++;
		} else {
			i++;
		}
	}
	if (!rc && id && !k)
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "no saved approval with id '%.64s'", id);
	if (!rc && k)
		rc = skit__userconfig_commit(&e, err);
	skit__userconfig_end(&e);
	if (removed)
		*removed = k;
	return rc;
}
