/* SPDX-License-Identifier: MIT */
/*
 * mcp_config.c - the `mcpServers` configuration: the servers of the
 * user's and the project's files (a project never shadows a user's
 * server), each checked and summarised as written, with the digest an
 * approval covers (mcp_approval_digest.c), and the ${VAR} expansion of
 * what runs. Of the client's files it uses mcp_approval_digest.c only:
 * mcp_approvals.c reads a project's servers through it, mcp_client.c
 * starts them.
 */
#include "common.h"

#include "skit/mcp_client.h"

#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/mcp/mcp_client_int.h"
#include "util/fs.h"

#define MAX_CONFIG  (1024 * 1024)
#define MAX_SERVERS 32
#define MAX_ARGS    256

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		skitx_free(*p);
	skitx_free(v);
}

void skit__mcp_def_release(struct skit__mcp_def *d)
{
	skitx_free(d->name);
	skitx_free(d->summary);
	skitx_free(d->origin);
	skitx_free(d->command);
	skitx_free(d->url);
	strv_free(d->args);
	strv_free(d->env);
	json_decref(d->headers);
	skitx_free(d->project_dir);
	skitx_free(d->web_search);
}

int skit_mcp_config_new(skit_mcp_config **out, skit_error *err)
{
	*out = skitx_calloc(1, sizeof(**out));
	if (!*out)
		return skit__error_oom(err);
	(*out)->approvals = json_object();
	if (!(*out)->approvals) {
		skitx_free(*out);
		*out = NULL;
		return skit__error_oom(err);
	}
	return 0;
}

/* A server or tool name as providers accept it in a tool name. */
bool skit__mcp_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > SKIT__MCP_MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			return false;
	/* "__" separates server and tool; it may not hide in a name. */
	return !strstr(s, "__");
}

static bool env_name_ok(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Longest value a ${VAR} expansion may give one string. */
#define MAX_EXPANDED (64 * 1024)

/*
 * `in` with every `${NAME}` and `${NAME:-default}` replaced from skit's
 * environment, as Claude Code reads .mcp.json; other text, a lone `$`
 * included, stays as written. An unset NAME without a default is an
 * error naming it.
 */
static int expand(const char *in, char **out, skit_error *err)
{
	struct skitx_buf b;
	const char *p = in;

	*out = NULL;
	skitx_buf_init(&b, MAX_EXPANDED);
	while (*p) {
		const char *name, *end, *dflt = NULL, *val;
		size_t nlen;
		char key[128];

		if (p[0] != '$' || p[1] != '{') {
			if (skitx_buf_putc(&b, *p++) < 0)
				goto too_big;
			continue;
		}
		name = p + 2;
		nlen = 0;
		while ((name[nlen] >= 'A' && name[nlen] <= 'Z') ||
		       (name[nlen] >= 'a' && name[nlen] <= 'z') ||
		       (name[nlen] >= '0' && name[nlen] <= '9') ||
		       name[nlen] == '_')
			nlen++;
		end = name + nlen;
		if (end[0] == ':' && end[1] == '-')
			dflt = end + 2;
		end = strchr(dflt ? dflt : end, '}');
		if (!nlen || nlen >= sizeof(key) ||
		    (name[0] >= '0' && name[0] <= '9') || !end ||
		    (!dflt && end != name + nlen)) {
			/* not a reference: the "$" as written */
			if (skitx_buf_putc(&b, *p++) < 0)
				goto too_big;
			continue;
		}
		memcpy(key, name, nlen);
		key[nlen] = '\0';
		val = getenv(key);
		if (!val && !dflt) {
			skitx_buf_release(&b);
			return skit__error_set(err, SKIT_ENOTFOUND, 0,
			                       "environment variable %s is not "
			                       "set",
			                       key);
		}
		if (val ? skitx_buf_puts(&b, val) < 0
		        : skitx_buf_add(&b, dflt, (size_t)(end - dflt)) < 0)
			goto too_big;
		p = end + 1;
	}
	*out = skitx_buf_detach(&b, NULL);
	return *out ? 0 : skit__error_oom(err);
too_big:
	skitx_buf_release(&b);
	return skit__error_set(err, SKIT_ETOOBIG, 0,
	                       "a value is over %d bytes once expanded",
	                       MAX_EXPANDED);
}

/* A copy of `d` with the ${VAR} references of what runs expanded:
 * the command, args and env values, the URL and header values. */
int skit__mcp_expand_def(const struct skit__mcp_def *d, struct skit__mcp_def *x,
                         skit_error *err)
{
	size_t n = 0;
	int rc = 0;

	memset(x, 0, sizeof(*x));
	if (d->url) {
		const char *k;
		json_t *v;

		rc = expand(d->url, &x->url, err);
		if (!rc && d->headers && !(x->headers = json_object()))
			rc = skit__error_oom(err);
		json_object_foreach(d->headers, k, v)
		{
			char *e = NULL;

			if (rc)
				break;
			rc = expand(json_string_value(v), &e, err);
			if (!rc &&
			    json_object_set_new(x->headers, k, json_string(e)))
				rc = skit__error_oom(err);
			skitx_free(e);
		}
		return rc;
	}
	for (char **a = d->args; a && *a; a++)
		n++;
	x->args = skitx_calloc(n + 1, sizeof(char *));
	n = 0;
	for (char **e = d->env; e && *e; e++)
		n++;
	x->env = skitx_calloc(n + 1, sizeof(char *));
	if (!x->args || !x->env)
		return skit__error_oom(err);
	rc = expand(d->command, &x->command, err);
	for (size_t i = 0; !rc && d->args[i]; i++)
		rc = expand(d->args[i], &x->args[i], err);
	for (size_t i = 0; !rc && d->env[i]; i++)
		rc = expand(d->env[i], &x->env[i], err);
	return rc;
}

/* "command arg... (env NAME, ...)" or "url (headers NAME, ...)": what
 * the user approves, as written, so the ${VAR} it reads are shown. */
static char *summarise(json_t *cmd, json_t *args, json_t *env, json_t *url,
                       json_t *hdr)
{
	struct skitx_buf b;
	json_t *v, *keys = cmd ? env : hdr;
	const char *k;
	size_t i, n = 0;
	int rc;

	skitx_buf_init(&b, 0);
	rc = skitx_buf_puts(&b, json_string_value(cmd ? cmd : url));
	json_array_foreach(args, i, v)
	{
		if (rc >= 0)
			rc = skitx_buf_putc(&b, ' ');
		if (rc >= 0)
			rc = skitx_buf_puts(&b, json_string_value(v));
	}
	json_object_foreach(keys, k, v)
	{
		if (rc >= 0)
			rc = skitx_buf_puts(&b, n++   ? ", "
			                        : cmd ? " (env "
			                              : " (headers ");
		if (rc >= 0)
			rc = skitx_buf_puts(&b, k);
		if (rc >= 0)
			rc = skitx_buf_putc(&b, '=');
		if (rc >= 0)
			rc = skitx_buf_puts(&b, json_string_value(v));
	}
	if (rc >= 0 && n)
		rc = skitx_buf_putc(&b, ')');
	if (rc < 0) {
		skitx_buf_release(&b);
		return NULL;
	}
	return skitx_buf_detach(&b, NULL);
}

/*
 * Set the digest of the project's server `d` (definition `o`): what
 * skit__mcp_approval_digest() covers, from the words of its command line
 * after ${VAR} expansion.
 */
static int approval_digest(struct skit__mcp_def *d, json_t *o, skit_error *err)
{
	struct skit__mcp_def x;
	skit_error ignored = { 0 };
	int rc;

	memset(&x, 0, sizeof(x));
	/* An unset ${VAR} keeps the server off when it starts; until then
	 * the words are taken as written. */
	if (d->command && skit__mcp_expand_def(d, &x, &ignored)) {
		skit__mcp_def_release(&x);
		memset(&x, 0, sizeof(x));
	}
	rc = skit__mcp_approval_digest(d, x.command ? &x : d, o, err);
	skit__mcp_def_release(&x);
	return rc;
}

/* `proj`: the project that defines the server (its real path), or NULL
 * for a user's server. */
static int parse_def(struct skit__mcp_def *d, const char *name, json_t *o,
                     const char *path, const char *proj, skit_error *err)
{
	json_t *cmd = json_object_get(o, "command");
	json_t *url = json_object_get(o, "url");
	json_t *args = json_object_get(o, "args");
	json_t *env = json_object_get(o, "env");
	json_t *hdr = json_object_get(o, "headers");
	json_t *ws = json_object_get(o, "webSearch");
	json_t *v;
	const char *k;
	size_t i, n = 0;
	char *canon;

	memset(d, 0, sizeof(*d));
	if (!skit__mcp_name_ok(name))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: MCP server name '%.64s' must be 1 "
		                       "to 64 letters, digits, '-' or '_' "
		                       "(no \"__\")",
		                       path, name);
	if (!json_is_object(o) || (!cmd == !url) ||
	    (cmd && !json_is_string(cmd)) || (url && !json_is_string(url)))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: MCP server '%s' needs either a "
		                       "\"command\" or a \"url\" string",
		                       path, name);
	if ((args && (!cmd || !json_is_array(args) ||
	              json_array_size(args) > MAX_ARGS)) ||
	    (env && (!cmd || !json_is_object(env))) ||
	    (hdr && (!url || !json_is_object(hdr))))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: MCP server '%s': \"args\" (an "
		                       "array) and \"env\" (an object) go with "
		                       "\"command\", \"headers\" (an object) "
		                       "with \"url\"",
		                       path, name);
	json_array_foreach(args, i, v) if (!json_is_string(v)) return skit__error_set(
	        err, SKIT_EINVALID, 0,
	        "%s: MCP server '%s': \"args\" must hold "
	        "strings",
	        path, name);
	json_object_foreach(env, k, v) if (
	        !json_is_string(v) ||
	        !env_name_ok(
	                k)) return skit__error_set(err, SKIT_EINVALID, 0,
	                                           "%s: MCP server '%s': \"env\" must map "
	                                           "variable names to strings",
	                                           path, name);
	json_object_foreach(hdr, k, v) if (!json_is_string(v)) return skit__error_set(
	        err, SKIT_EINVALID, 0,
	        "%s: MCP server '%s': \"headers\" must map "
	        "names to strings",
	        path, name);

	if (ws &&
	    (!json_is_string(ws) || !skit__mcp_name_ok(json_string_value(ws))))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: MCP server '%s': \"webSearch\" "
		                       "names one of its tools",
		                       path, name);
	d->name = skitx_strdup(name);
	d->origin = skitx_strdup(path);
	if (ws && !(d->web_search = skitx_strdup(json_string_value(ws))))
		goto oom;
	d->summary = summarise(cmd, args, env, url, hdr);
	if (!d->name || !d->origin || !d->summary)
		goto oom;
	if (cmd) {
		d->command = skitx_strdup(json_string_value(cmd));
		d->args =
		        skitx_calloc(json_array_size(args) + 2, sizeof(char *));
		d->env =
		        skitx_calloc(json_object_size(env) + 2, sizeof(char *));
		if (!d->command || !d->args || !d->env)
			goto oom;
		d->args[0] = skitx_strdup(d->command);
		if (!d->args[0])
			goto oom;
		json_array_foreach(
		        args, i,
		        v) if (!(d->args[i + 1] =
		                         skitx_strdup(json_string_value(
		                                 v)))) goto oom;
		json_object_foreach(env, k, v)
		{
			size_t len =
			        strlen(k) + strlen(json_string_value(v)) + 2;

			d->env[n] = skitx_malloc(len);
			if (!d->env[n])
				goto oom;
			snprintf(d->env[n++], len, "%s=%s", k,
			         json_string_value(v));
		}
	} else {
		d->url = skitx_strdup(json_string_value(url));
		d->headers = hdr ? json_deep_copy(hdr) : NULL;
		if (!d->url || (hdr && !d->headers))
			goto oom;
	}
	/* The digest covers what runs: the whole definition, canonical. */
	canon = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (!canon)
		goto oom;
	memcpy(d->digest, "sha256:", 7);
	skit__sha256_hex(canon, strlen(canon), d->digest + 7);
	free(canon);
	if (proj) {
		d->project_dir = skitx_strdup(proj);
		if (!d->project_dir || approval_digest(d, o, err))
			goto oom;
	}
	return 0;
oom:
	skit__mcp_def_release(d);
	memset(d, 0, sizeof(*d));
	return skit__error_oom(err);
}

/* `follow`: the user's own file, read where a link (dotfiles) leads. */
static int read_json(json_t **out, const char *path, bool follow, bool *missing,
                     skit_error *err)
{
	struct skitx_buf b;
	json_error_t je;
	char *real = follow ? realpath(path, NULL) : NULL;
	int rc;

	*out = NULL;
	*missing = false;
	skitx_buf_init(&b, 0);
	rc = skitx_fs_read_file(real ? real : path, &b, MAX_CONFIG);
	free(real); /* realpath(3) allocates with malloc */
	if (rc < 0) {
		skitx_buf_release(&b);
		if (errno == ENOENT) {
			*missing = true;
			return 0;
		}
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		return skit__error_set(
		        err, rc == SKIT_ETOOBIG ? SKIT_EINVALID : SKIT_EIO, 0,
		        "%s: %s", path,
		        rc == SKIT_ETOOBIG ? "over 1 MiB" : strerror(errno));
	}
	*out = json_loadb(skitx_buf_cstr(&b), skitx_buf_len(&b),
	                  JSON_REJECT_DUPLICATES, &je);
	skitx_buf_release(&b);
	if (!*out || !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: not a JSON object", path);
	}
	return 0;
}

static struct skit__mcp_def *find_def(skit_mcp_config *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

/*
 * Add the servers of the configuration `root` (taken), read from `path`
 * (a file's, or the origin of a text), with the checks of a file: all of
 * it or nothing.
 */
static int load_root(skit_mcp_config *c, json_t *root, const char *path,
                     bool project, skit_error *err)
{
	struct skit__mcp_def *grown, *tmp = NULL;
	json_t *servers, *appr, *ws, *v;
	const char *k;
	size_t ntmp = 0, add = 0;
	char *proj = NULL;
	int rc = 0;

	if (project && !(proj = skit__mcp_project_of(path))) {
		json_decref(root);
		return skit__error_oom(err);
	}
	servers = json_object_get(root, "mcpServers");
	appr = project ? NULL : json_object_get(root, "mcpApproved");
	ws = json_object_get(root, "webSearch");
	if (ws && (!json_is_string(ws) ||
	           strcmp(json_string_value(ws), "provider"))) {
		json_decref(root);
		skitx_free(proj);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: \"webSearch\" takes \"provider\" "
		                       "(the model provider's hosted search)",
		                       path);
	}
	if ((servers && !json_is_object(servers)) ||
	    (appr && !json_is_object(appr))) {
		json_decref(root);
		skitx_free(proj);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: \"mcpServers\" and \"mcpApproved\" "
		                       "must be objects",
		                       path);
	}
	if (json_object_size(servers) > MAX_SERVERS) {
		json_decref(root);
		skitx_free(proj);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: more than %d MCP servers", path,
		                       MAX_SERVERS);
	}
	tmp = skitx_calloc(json_object_size(servers) + 1, sizeof(*tmp));
	if (!tmp) {
		json_decref(root);
		skitx_free(proj);
		return skit__error_oom(err);
	}
	json_object_foreach(servers, k, v)
	{
		rc = parse_def(&tmp[ntmp], k, v, path, proj, err);
		if (rc)
			goto done;
		tmp[ntmp++].project = project;
	}
	/* Records only: an older skit's "NAME": "DIGEST" covered the
	 * definition alone, and no longer approves anything. */
	json_object_foreach(appr, k, v) if (json_is_object(v) &&
	                                    json_object_set(c->approvals, k, v))
	{
		rc = skit__error_oom(err);
		goto done;
	}
	grown = skitx_realloc(c->v, (c->n + ntmp + 1) * sizeof(*grown));
	if (!grown) {
		rc = skit__error_oom(err);
		goto done;
	}
	c->v = grown;
	for (size_t i = 0; i < ntmp; i++) {
		struct skit__mcp_def *old = find_def(c, tmp[i].name);

		/* A project never shadows a user's definition (HOSTILE B8);
		 * a later user file overrides an earlier one. */
		if (old && project && !old->project) {
			skit__mcp_def_release(&tmp[i]);
			continue;
		}
		if (old) {
			skit__mcp_def_release(old);
			*old = tmp[i];
		} else
			c->v[c->n + add++] = tmp[i];
	}
	c->n += add;
	ntmp = 0;
	/* Searching at the provider costs the user and sends the queries
	 * away: a repository's file never turns it on. */
	if (ws && !project)
		c->provider_search = true;
done:
	for (size_t i = 0; i < ntmp; i++)
		skit__mcp_def_release(&tmp[i]);
	skitx_free(tmp);
	skitx_free(proj);
	json_decref(root);
	return rc;
}

int skit_mcp_config_load(skit_mcp_config *c, const char *path, bool project,
                         skit_error *err)
{
	json_t *root;
	bool missing;
	int rc;

	rc = read_json(&root, path, !project, &missing, err);
	if (rc || missing)
		return rc;
	return load_root(c, root, path, project, err);
}

int skit_mcp_config_load_json(skit_mcp_config *c, const char *json,
                              const char *origin, bool project, skit_error *err)
{
	json_error_t je;
	json_t *root;
	size_t len;

	assert(c && json && origin);
	len = strnlen(json, MAX_CONFIG + 1);
	if (len > MAX_CONFIG)
		return skit__error_set(err, SKIT_EINVALID, 0, "%s: over 1 MiB",
		                       origin);
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
	if (!root || !json_is_object(root)) {
		json_decref(root);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: not a JSON object%s%.80s", origin,
		                       root ? "" : ": ", root ? "" : je.text);
	}
	return load_root(c, root, origin, project, err);
}

size_t skit_mcp_config_count(const skit_mcp_config *c)
{
	return c ? c->n : 0;
}

void skit_mcp_config_set_approved(skit_mcp_config *c, size_t i, bool approved)
{
	assert(i < c->n);
	c->v[i].approved = approved;
	/* refused: not even a remembered approval counts */
	c->v[i].refused = !approved;
}

void skit_mcp_config_free(skit_mcp_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		skit__mcp_def_release(&c->v[i]);
	skitx_free(c->v);
	json_decref(c->approvals);
	skitx_free(c);
}
