/* SPDX-License-Identifier: MIT */
/*
 * mcp_approvals.c - the approvals of project MCP servers: whether a
 * remembered record approves a server, and the records themselves
 * ("mcpApproved" in the user config: save, list, revoke). What an
 * approval covers, the digest of a server, is mcp_approval_digest.c's;
 * the servers a project defines now are read with mcp_config.c.
 *
 * A project's server starts only once the user approved that server of
 * that project as it is now, for this run or remembered; a record holds
 * the digest, so that a change to the definition, the project or a file
 * its command line names asks again (docs/mcp.md, "Project servers need
 * approval").
 */
#include "common.h"

#include <time.h>

#include "skit/mcp_client.h"

#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/core/userconfig.h"
#include "lib/mcp/mcp_client_int.h"
#include "util/path.h"

/* ---- remembered approvals (mcpApproved in the user config) ------------ */

/* Most records kept; the oldest goes beyond it. */
#define MAX_APPROVALS 256

/* A string member of a JSON object, or NULL (also for one with a NUL). */
static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) && strlen(json_string_value(v)) ==
	                                    json_string_length(v)
	               ? json_string_value(v)
	               : NULL;
}

/* Does a remembered record approve `d` (the same name and digest)? */
bool skit__mcp_def_approved(const skit_mcp_config *c,
                            const struct skit__mcp_def *d)
{
	const char *k;
	json_t *v;

	if (d->refused)
		return false;
	if (!d->project || d->approved)
		return true;
	json_object_foreach(c->approvals, k, v)
	{
		const char *server = str_of(v, "server"),
		           *digest = str_of(v, "digest");

		(void)k;
		if (server && digest && !strcmp(server, d->name) &&
		    !strcmp(digest, d->digest))
			return true;
	}
	return false;
}

/*
 * The user config under its folder's lock (core/userconfig.h: the same
 * lock as folder trust and script approvals, so none loses another's
 * change), with "mcpApproved" an object when present. `path` NULL: the
 * user's own file.
 */
static int cfg_begin(struct skit__userconfig_edit *e, const char *path,
                     bool create, skit_error *err)
{
	int rc = skit__userconfig_begin(e, path, create, err);

	if (rc)
		return rc;
	if (json_object_get(e->json, "mcpApproved") &&
	    !json_is_object(json_object_get(e->json, "mcpApproved")))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: \"mcpApproved\" must be an object",
		                       e->path);
	return 0;
}

/*
 * The id of a record: the start of the SHA-256 of the project and the
 * server's name, so that approving a server again replaces its record.
 * Without the project (skit_mcp_approval_save()), of the name and the
 * digest, which names the project too.
 */
static void record_id(const char *name, const char *project, const char *digest,
                      char id[13])
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char hex[65] = "";

	if (skitx_buf_printf(&b, "mcp%c%s%c%s", 0, project ? project : "", 0,
	                     project ? name : digest) >= 0)
		skit__sha256_hex(b.ptr, b.len, hex);
	skitx_buf_release(&b);
	memcpy(id, hex, 12);
	id[12] = '\0';
}

static int save_record(const char *path, const char *name, const char *project,
                       const char *digest, skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *appr, *rec;
	char id[13], when[32];
	time_t now = time(NULL);
	struct tm tm;
	const char *k;
	void *tmp;
	json_t *v;
	int rc;

	rc = cfg_begin(&e, path, true, err);
	if (rc)
		goto out;
	appr = json_object_get(e.json, "mcpApproved");
	if (!appr) {
		appr = json_object();
		if (!appr || json_object_set_new(e.json, "mcpApproved", appr)) {
			rc = skit__error_oom(err);
			goto out;
		}
	}
	/* An older skit's records ("NAME": "DIGEST") approve nothing now. */
	json_object_foreach_safe(appr, tmp, k, v) if (!json_is_object(v))
	        json_object_del(appr, k);
	record_id(name, project, digest, id);
	json_object_del(appr, id); /* renewed: it moves to the end */
	while (json_object_size(appr) >= MAX_APPROVALS)
		json_object_del(appr,
		                json_object_iter_key(json_object_iter(appr)));
	if (!gmtime_r(&now, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		when[0] = '\0';
	rec = project ? json_pack("{s:s, s:s, s:s, s:s}", "server", name,
	                          "project", project, "digest", digest, "time",
	                          when)
	              : json_pack("{s:s, s:s, s:s}", "server", name, "digest",
	                          digest, "time", when);
	if (!rec || json_object_set_new(appr, id, rec)) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = skit__userconfig_commit(&e, err);
out:
	skit__userconfig_end(&e);
	return rc;
}

int skit_mcp_approval_save(const char *path, const char *name,
                           const char *digest, skit_error *err)
{
	return save_record(path, name, NULL, digest, err);
}

int skit_mcp_approval_save_server(const skit_mcp_config *c, size_t i,
                                  const char *path, skit_error *err)
{
	const struct skit__mcp_def *d = &c->v[i];

	assert(i < c->n);
	return save_record(path, d->name, d->project_dir, d->digest, err);
}

void skit_mcp_approvals_free(skit_mcp_approval *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		skitx_free(v[i].id);
		skitx_free(v[i].server);
		skitx_free(v[i].project);
		skitx_free(v[i].digest);
		skitx_free(v[i].time);
	}
	skitx_free(v);
}

/*
 * Does project `proj` define server `name` with `digest` now? Its two
 * files are read as a run reads them; a broken file defines nothing.
 */
static bool still_current(const char *proj, const char *name,
                          const char *digest)
{
	static const char *const files[] = { ".agents/skit.json", ".mcp.json" };
	skit_mcp_config *c = NULL;
	bool yes = false;

	if (!*proj || skit_mcp_config_new(&c, NULL))
		return false;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(files); i++) {
		char *p = skitx_path_join(proj, files[i]);

		if (p)
			(void)skit_mcp_config_load(c, p, true, NULL);
		skitx_free(p);
	}
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			yes = !strcmp(c->v[i].digest, digest);
	skit_mcp_config_free(c);
	return yes;
}

int skit_mcp_approvals_list(const char *path, skit_mcp_approval **out,
                            size_t *n, skit_error *err)
{
	struct skit__userconfig_edit e;
	skit_mcp_approval *v = NULL;
	json_t *appr, *rec;
	const char *k;
	size_t k_ = 0;
	int rc;

	assert(out && n);
	*out = NULL;
	*n = 0;
	rc = cfg_begin(&e, path, false, err);
	if (rc == SKIT_ENOTFOUND && !path) {
		skit__userconfig_end(&e);
		return 0; /* no user config: nothing remembered */
	}
	appr = rc ? NULL : json_object_get(e.json, "mcpApproved");
	if (!rc && json_object_size(appr) &&
	    !(v = skitx_calloc(json_object_size(appr), sizeof(*v))))
		rc = skit__error_oom(err);
	json_object_foreach(appr, k, rec)
	{
		const char *server = str_of(rec, "server"),
		           *proj = str_of(rec, "project"),
		           *digest = str_of(rec, "digest"),
		           *when = str_of(rec, "time");
		skit_mcp_approval *a = &v[k_];

		if (rc)
			break;
		if (!server || !digest || strlen(k) != 12)
			continue; /* not a record: approves nothing */
		k_++;
		a->id = skitx_strdup(k);
		a->server = skitx_strdup(server);
		a->project = skitx_strdup(proj ? proj : "");
		a->digest = skitx_strdup(digest);
		a->time = skitx_strdup(when ? when : "");
		if (!a->id || !a->server || !a->project || !a->digest ||
		    !a->time)
			rc = skit__error_oom(err);
		else
			a->current =
			        proj && still_current(proj, server, digest);
	}
	skit__userconfig_end(&e);
	if (rc) {
		skit_mcp_approvals_free(v, k_);
		return rc;
	}
	*out = v;
	*n = k_;
	return 0;
}

int skit_mcp_approvals_revoke(const char *path, const char *id, size_t *removed,
                              skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *appr, *v;
	const char *k;
	size_t count = 0;
	bool changed = false;
	void *tmp;
	int rc;

	if (removed)
		*removed = 0;
	rc = cfg_begin(&e, path, false, err);
	if (rc == SKIT_ENOTFOUND && !path && !id) {
		skit__userconfig_end(&e);
		return 0; /* no user config: nothing to revoke */
	}
	appr = rc ? NULL : json_object_get(e.json, "mcpApproved");
	json_object_foreach_safe(appr, tmp, k, v)
	{
		if (id && (strcmp(k, id) || !json_is_object(v)))
			continue;
		/* every record, and an older skit's leftovers, when all go */
		count += json_is_object(v);
		changed = true;
		json_object_del(appr, k);
	}
	if (!rc && id && !count)
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "no saved MCP approval with id '%.64s'",
		                     id);
	if (!rc && changed)
		rc = skit__userconfig_commit(&e, err);
	skit__userconfig_end(&e);
	if (!rc && removed)
		*removed = count;
	return rc;
}
