/* SPDX-License-Identifier: MIT */
/*
 * mcp_client.c - MCP servers' tools in the agent: the `mcpServers`
 * configuration (the approvals of project servers are mcp_approvals.c's),
 * and a client that starts each server (stdio: JSON-RPC, one message a
 * line; HTTP: mcp_client_http.c), lists its tools and calls them with a
 * timeout and capped output.
 *
 * A server is a program the user configured, not the model: it runs
 * outside the sandbox, like the user's own tools, but with a scrubbed
 * environment (PATH plus what its `env` names) and in its own process
 * group, so that the whole group is ended when the run ends. A server
 * that times out, crashes or sends garbage is stopped at once: its tools
 * then fail with an error the model sees, and the run goes on.
 */
#define _GNU_SOURCE  /* posix_spawn_file_actions_addchdir_np: before any header \
                      */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skit/mcp_client.h"

#include "lib/agent/agent_int.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"
#include "lib/mcp/mcp_client_http.h"
#include "lib/mcp/mcp_client_int.h"
#include "lib/tools/tools_int.h"
#include "util/fs.h"
#include "util/path.h"

#define MAX_CONFIG      (1024 * 1024)
#define MAX_SERVERS     32
#define MAX_ARGS        256
#define MAX_NAME        64 /* the full mcp__SERVER__TOOL name */
#define MAX_LINE        SKIT__MCP_MAX_MESSAGE /* one JSON-RPC message */
#define MAX_TOOLS_PAGES 16
#define MAX_DESC        2048 /* bytes of a tool's description kept */
#define OUTPUT_CAP      (64u * 1024)
#define START_TIMEOUT   60000L
#define CALL_TIMEOUT    120000L
#define STOP_GRACE_MS   2000
#define PROTOCOL        "2025-11-25"

extern char **environ;

/* ---- configuration ---------------------------------------------------- */

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
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > MAX_NAME)
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
	json_t *v;
	const char *k;
	size_t i, n = 0;
	char *canon;

	memset(d, 0, sizeof(*d));
	if (!name_ok(name))
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

	d->name = skitx_strdup(name);
	d->origin = skitx_strdup(path);
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
		if (!d->project_dir || skit__mcp_approval_digest(d, o, err))
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

int skit_mcp_config_load(skit_mcp_config *c, const char *path, bool project,
                         skit_error *err)
{
	struct skit__mcp_def *grown, *tmp = NULL;
	json_t *root, *servers, *appr, *v;
	const char *k;
	size_t ntmp = 0, add = 0;
	char *proj = NULL;
	bool missing;
	int rc;

	rc = read_json(&root, path, !project, &missing, err);
	if (rc || missing)
		return rc;
	if (project && !(proj = skit__mcp_project_of(path))) {
		json_decref(root);
		return skit__error_oom(err);
	}
	servers = json_object_get(root, "mcpServers");
	appr = project ? NULL : json_object_get(root, "mcpApproved");
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
done:
	for (size_t i = 0; i < ntmp; i++)
		skit__mcp_def_release(&tmp[i]);
	skitx_free(tmp);
	skitx_free(proj);
	json_decref(root);
	return rc;
}

size_t skit_mcp_config_count(const skit_mcp_config *c)
{
	return c ? c->n : 0;
}

void skit_mcp_config_server(const skit_mcp_config *c, size_t i,
                            skit_mcp_server_info *out)
{
	const struct skit__mcp_def *d = &c->v[i];

	assert(i < c->n);
	out->name = d->name;
	out->origin = d->origin;
	out->digest = d->digest;
	out->command = d->command;
	out->url = d->url;
	out->summary = d->summary;
	out->project = d->project;
	out->approved = skit__mcp_def_approved(c, d);
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

/* ---- the stdio client ------------------------------------------------- */

struct mtool {
	char *full;   /* mcp__SERVER__TOOL */
	char *remote; /* the server's own name */
	char *desc, *schema;
	bool read_only;
	size_t srv; /* index in skit__mcp.srv (which may move) */
};

struct server {
	char *name;
	pid_t pid; /* 0 once stopped */
	int fd;    /* the socket that is the server's stdin and stdout */
	struct skitx_buf in; /* bytes read, not yet a whole line */
	long long next_id;
	char *dead;                  /* why it stopped, for the tools' errors */
	struct skit__mcp_http *http; /* an HTTP server's transport, or NULL */
	const volatile int *cancel;  /* the agent's: a call stops when set */
};

/* Is the server there to take calls? */
static bool server_up(const struct server *s)
{
	return s->fd >= 0 || s->http;
}

struct skit__mcp {
	struct server *srv;
	size_t nsrv;
	struct mtool *tools;
	size_t ntools;
	long call_timeout_ms;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Stop the server's process group: end of input, then TERM, then KILL. */
static void server_stop(struct server *s, const char *why)
{
	long long until;
	int st;

	if (why && !s->dead)
		s->dead = skitx_strdup(why);
	/* An HTTP server's session is ended (DELETE); it goes on running. */
	skit__mcp_http_free(s->http);
	s->http = NULL;
	if (s->fd >= 0) {
		shutdown(s->fd, SHUT_WR);
		close(s->fd);
		s->fd = -1;
	}
	if (!s->pid)
		return;
	until = now_ms() + STOP_GRACE_MS;
	while (waitpid(s->pid, &st, WNOHANG) == 0) {
		if (now_ms() >= until) {
			kill(-s->pid, SIGKILL);
			kill(s->pid, SIGKILL);
			(void)waitpid(s->pid, &st, 0);
			break;
		}
		if (now_ms() + STOP_GRACE_MS / 2 >= until)
			kill(-s->pid, SIGTERM);
		usleep(20000);
	}
	/* What the server left running in its group goes too. */
	kill(-s->pid, SIGKILL);
	s->pid = 0;
}

static int server_start(struct server *s, const struct skit__mcp_def *d,
                        const char *cwd, skit_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	const char *path = getenv("PATH");
	char **envp, *own_path = NULL;
	size_t n = 0;
	bool has_path = false;
	int sv[2], rc;

	s->fd = -1;
	for (char **e = d->env; e && *e; e++)
		n++;
	envp = skitx_calloc(n + 2, sizeof(char *));
	if (!envp)
		return skit__error_oom(err);
	n = 0;
	for (char **e = d->env; e && *e; e++) {
		has_path |= !strncmp(*e, "PATH=", 5);
		envp[n++] = *e;
	}
	if (!has_path && path) {
		size_t len = strlen(path) + 6;

		own_path = skitx_malloc(len);
		if (!own_path) {
			skitx_free(envp);
			return skit__error_oom(err);
		}
		snprintf(own_path, len, "PATH=%s", path);
		envp[n++] = own_path;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		rc = skit__error_set(err, SKIT_EIO, 0, "socketpair: %s",
		                     strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* A project's server starts in its project, where the words of its
	 * command line were resolved for its approval
	 * (skit__mcp_approval_digest()). */
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	posix_spawnattr_init(&at);
	posix_spawnattr_setpgroup(&at, 0);
	{
		sigset_t none;

		sigemptyset(&none);
		posix_spawnattr_setsigmask(&at, &none);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
		                                      POSIX_SPAWN_SETSIGMASK);
	}
	/* PATH of this process finds the program; the server's own PATH
	 * is what its config names, or ours. */
	rc = posix_spawnp(&s->pid, d->command, &fa, &at, d->args, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	if (rc) {
		close(sv[0]);
		s->pid = 0;
		rc = skit__error_set(err, SKIT_EIO, 0, "cannot run '%s': %s",
		                     d->command, strerror(rc));
		goto out;
	}
	/* The socket never blocks: a server that stops reading must not
	 * hold the agent (send_msg() waits with a deadline). */
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK)) {
		close(sv[0]);
		rc = skit__error_set(err, SKIT_EIO, 0, "fcntl: %s",
		                     strerror(errno));
		goto out;
	}
	s->fd = sv[0];
	rc = 0;
out:
	skitx_free(own_path);
	skitx_free(envp);
	return rc;
}

/*
 * Write one message and its newline before `deadline` (now_ms()). The
 * socket does not block: a server that stops reading its input would
 * otherwise hold the agent forever once the socket's buffer is full.
 */
static int send_msg(struct server *s, json_t *msg, long long deadline,
                    skit_error *err)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	size_t len, off = 0;
	int rc = 0;

	if (!text)
		return skit__error_oom(err);
	len = strlen(text);
	while (off <= len) {
		/* the line, then its newline (the NUL's place) */
		const char *p = off < len ? text + off : "\n";
		size_t n = off < len ? len - off : 1;
		ssize_t w = send(s->fd, p, n, MSG_NOSIGNAL);
		struct pollfd pfd = { s->fd, POLLOUT, 0 };
		long long left;

		if (w >= 0) {
			off += off < len ? (size_t)w : 1;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server closed its input");
			break;
		}
		/* Half a message is sent: the server is stopped either way. */
		if (s->cancel && *s->cancel) {
			rc = skit__error_set(err, SKIT_ECANCELED, 0,
			                     "canceled");
			break;
		}
		left = deadline - now_ms();
		if (left <= 0) {
			rc = skit__error_set(err, SKIT_ETIMEOUT, 0,
			                     "the server stopped reading its "
			                     "input");
			break;
		}
		(void)poll(&pfd, 1, left > 250 ? 250 : (int)left);
	}
	free(text);
	return rc;
}

/* Answer a request from the server: ping, else "method not found". */
static json_t *answer_for(json_t *msg)
{
	const char *m = json_string_value(json_object_get(msg, "method"));

	if (m && !strcmp(m, "ping"))
		return json_pack("{s:s, s:O, s:{}}", "jsonrpc", "2.0", "id",
		                 json_object_get(msg, "id"), "result");
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
	                 json_object_get(msg, "id"), "error", "code", -32601,
	                 "message", "method not found");
}

static int answer_request(struct server *s, json_t *msg, long long deadline,
                          skit_error *err)
{
	json_t *r = answer_for(msg);
	int rc;

	if (!r)
		return skit__error_oom(err);
	rc = send_msg(s, r, deadline, err);
	json_decref(r);
	return rc;
}

/*
 * The user gave up on request `id`: say so to the server, which may then
 * stop working on it, and keep the server (a late answer is dropped as
 * one to another request). A server that cannot be told is stopped.
 */
static int cancel_request(struct server *s, long long id, skit_error *err)
{
	json_t *n = json_pack("{s:s, s:s, s:{s:I, s:s}}", "jsonrpc", "2.0",
	                      "method", "notifications/cancelled", "params",
	                      "requestId", (json_int_t)id, "reason",
	                      "canceled by the user");
	skit_error e = { 0 };
	int rc;

	if (!n)
		return skit__error_oom(err);
	if (s->http) {
		/* The flag that ended the call must not end this message. */
		skit__mcp_http_set_cancel(s->http, NULL);
		rc = skit__mcp_http_send(s->http, n, -1, 1000, NULL, &e);
		skit__mcp_http_set_cancel(s->http, s->cancel);
	} else {
		rc = send_msg(s, n, now_ms() + 1000, &e);
	}
	json_decref(n);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc && !s->http)
		server_stop(s, "canceled");
	return skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
}

static int initialize(struct server *s, long timeout, skit_error *err);

/*
 * rpc() over HTTP. When the server answers that it forgot the session
 * (HTTP 404), the specification has the client start a new one: skit
 * does, once per request (`may_renew`), and sends the request again.
 */
static int rpc_http(struct server *s, const char *method, json_t *params,
                    long timeout_ms, bool may_renew, json_t **result,
                    skit_error *err)
{
	long long id = ++s->next_id, start = now_ms();
	json_t *req =
	        json_pack("{s:s, s:I, s:s, s:O}", "jsonrpc", "2.0", "id",
	                  (json_int_t)id, "method", method, "params", params);
	long left;
	int rc;

	if (!req)
		return skit__error_oom(err);
	rc = skit__mcp_http_send(s->http, req, id, timeout_ms, result, err);
	json_decref(req);
	if (rc == SKIT_ECANCELED)
		return cancel_request(s, id, err);
	left = timeout_ms - (long)(now_ms() - start);
	if (rc == SKIT_ENOTFOUND && may_renew && left > 0) {
		skit__mcp_http_forget_session(s->http);
		rc = initialize(s, left, err); /* stops the server on failure */
		if (rc)
			return rc;
		left = timeout_ms - (long)(now_ms() - start);
		return rpc_http(s, method, params, left > 0 ? left : 1, false,
		                result, err);
	}
	if (rc == SKIT_ETIMEOUT)
		rc = skit__error_set(err, SKIT_ETIMEOUT, 0,
		                     "no answer within %ld ms", timeout_ms);
	if (rc && rc != SKIT_ENOMEM)
		server_stop(s, err->message);
	return rc;
}

/*
 * One request, waiting up to `timeout_ms` for its response; *result is
 * the response (owned). A failure of the server itself stops it and is
 * SKIT_EIO or SKIT_ETIMEOUT with the reason in err; SKIT_ECANCELED when
 * the agent's cancel flag was set (the server is kept).
 */
static int rpc(struct server *s, const char *method, json_t *params,
               long timeout_ms, json_t **result, skit_error *err)
{
	long long id, deadline = now_ms() + timeout_ms;
	json_t *req;
	int rc;

	*result = NULL;
	if (!server_up(s))
		return skit__error_set(err, SKIT_EIO, 0, "%s",
		                       s->dead ? s->dead : "not running");
	if (s->http)
		return rpc_http(s, method, params, timeout_ms, true, result,
		                err);
	id = ++s->next_id;
	req = json_pack("{s:s, s:I, s:s, s:O}", "jsonrpc", "2.0", "id",
	                (json_int_t)id, "method", method, "params", params);
	if (!req)
		return skit__error_oom(err);
	rc = send_msg(s, req, deadline, err);
	json_decref(req);
	if (rc)
		goto fail;
	for (;;) {
		const char *data = skitx_buf_cstr(&s->in);
		const char *nl = memchr(data, '\n', skitx_buf_len(&s->in));
		struct pollfd pfd = { s->fd, POLLIN, 0 };
		char chunk[65536];
		long long left;
		ssize_t r;

		if (nl) {
			size_t len = (size_t)(nl - data);
			json_t *msg = json_loadb(data, len, 0, NULL);
			json_t *mid;

			/* drop the line from the buffer */
			memmove(s->in.ptr, data + len + 1,
			        skitx_buf_len(&s->in) - len - 1);
			skitx_buf_truncate(&s->in,
			                   skitx_buf_len(&s->in) - len - 1);
			if (!msg && len && data[0] != '\r') {
				rc = skit__error_set(err, SKIT_EIO, 0,
				                     "the server sent a line "
				                     "that is not JSON");
				goto fail;
			}
			if (!msg)
				continue;
			mid = json_object_get(msg, "id");
			if (json_object_get(msg, "method")) {
				rc = mid ? answer_request(s, msg, deadline, err)
				         : 0;
				json_decref(msg);
				if (rc)
					goto fail;
				continue;
			}
			if (json_is_integer(mid) &&
			    json_integer_value(mid) == id) {
				*result = msg;
				return 0;
			}
			json_decref(msg);
			continue;
		}
		if (skitx_buf_len(&s->in) > MAX_LINE) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server sent a message over "
			                     "%u MiB",
			                     MAX_LINE >> 20);
			goto fail;
		}
		if (s->cancel && *s->cancel)
			return cancel_request(s, id, err);
		left = deadline - now_ms();
		if (left <= 0) {
			rc = skit__error_set(err, SKIT_ETIMEOUT, 0,
			                     "no answer within %ld ms",
			                     timeout_ms);
			goto fail;
		}
		r = poll(&pfd, 1, left > 250 ? 250 : (int)left);
		if (r < 0 && errno != EINTR) {
			rc = skit__error_set(err, SKIT_EIO, 0, "poll: %s",
			                     strerror(errno));
			goto fail;
		}
		if (r <= 0)
			continue;
		r = recv(s->fd, chunk, sizeof(chunk), 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server exited");
			goto fail;
		}
		if (skitx_buf_add(&s->in, chunk, (size_t)r)) {
			rc = skit__error_oom(err);
			goto fail;
		}
	}
fail:
	if (rc != SKIT_ENOMEM)
		server_stop(s, err ? err->message : "stopped");
	return rc;
}

static int notify(struct server *s, const char *method, long timeout_ms,
                  skit_error *err)
{
	json_t *n = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	int rc;

	if (!n)
		return skit__error_oom(err);
	if (s->http)
		rc = skit__mcp_http_send(s->http, n, -1, timeout_ms, NULL, err);
	else
		rc = send_msg(s, n, now_ms() + timeout_ms, err);
	json_decref(n);
	return rc;
}

static int add_tool(struct skit__mcp *m, struct server *s, json_t *t,
                    struct skit_agent *a)
{
	const char *name = json_string_value(json_object_get(t, "name"));
	const char *desc = json_string_value(json_object_get(t, "description"));
	json_t *schema = json_object_get(t, "inputSchema");
	json_t *ro = json_object_get(json_object_get(t, "annotations"),
	                             "readOnlyHint");
	struct mtool *grown, *mt;
	char full[3 * MAX_NAME];

	if (!name || !name_ok(name) ||
	    (size_t)snprintf(full, sizeof(full), "mcp__%s__%s", s->name, name) >
	            MAX_NAME) {
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "MCP server %s: tool '%.64s' left out (its "
		                  "name must be letters, digits, '-' or '_' "
		                  "and fit in %d characters as mcp__%s__NAME)",
		                  s->name, name ? name : "?", MAX_NAME,
		                  s->name);
		return 0;
	}
	if (m->ntools >= SKIT__MCP_TOOLS_MAX) {
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "MCP server %s: tool %s left out (over %d "
		                  "MCP tools)",
		                  s->name, name, SKIT__MCP_TOOLS_MAX);
		return 0;
	}
	grown = skitx_realloc(m->tools, (m->ntools + 1) * sizeof(*grown));
	if (!grown)
		return SKIT_ENOMEM;
	m->tools = grown;
	mt = &m->tools[m->ntools];
	memset(mt, 0, sizeof(*mt));
	mt->full = skitx_strdup(full);
	mt->remote = skitx_strdup(name);
	{
		size_t dl = desc ? strnlen(desc, MAX_DESC) : 0;

		/* a long description is cut between UTF-8 sequences */
		while (dl == MAX_DESC && dl &&
		       ((unsigned char)desc[dl] & 0xC0) == 0x80)
			dl--;
		mt->desc = skitx_strndup(desc ? desc : "", dl);
	}
	mt->schema = json_is_object(schema) ? json_dumps(schema, JSON_COMPACT)
	                                    : strdup("{\"type\":\"object\"}");
	mt->read_only = json_is_true(ro);
	mt->srv = (size_t)(s - m->srv);
	if (!mt->full || !mt->remote || !mt->desc || !mt->schema) {
		skitx_free(mt->full);
		skitx_free(mt->remote);
		skitx_free(mt->desc);
		free(mt->schema);
		return SKIT_ENOMEM;
	}
	m->ntools++;
	return 0;
}

/* The revisions whose client side this is. Streamable HTTP came with
 * 2025-03-26; before it, HTTP servers spoke another transport. */
static bool known_revision(const char *v, bool http)
{
	static const char *const known[] = { "2025-11-25", "2025-06-18",
		                             "2025-03-26", "2024-11-05" };
	size_t n = http ? 3 : 4;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, known[i]))
			return true;
	return false;
}

/* initialize, then initialized. A failure stops the server. */
static int initialize(struct server *s, long timeout, skit_error *err)
{
	json_t *params, *resp, *res;
	const char *version;
	int rc;

	params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion",
	                   PROTOCOL, "capabilities", "clientInfo", "name",
	                   "skit", "version", skit_version());
	if (!params)
		return skit__error_oom(err);
	rc = rpc(s, "initialize", params, timeout, &resp, err);
	json_decref(params);
	if (rc)
		return rc;
	res = json_object_get(resp, "result");
	if (!json_is_object(res)) {
		json_decref(resp);
		rc = skit__error_set(err, SKIT_EIO, 0,
		                     "initialize was refused");
		server_stop(s, err->message);
		return rc;
	}
	version = json_string_value(json_object_get(res, "protocolVersion"));
	if (!version || !known_revision(version, s->http != NULL)) {
		rc = skit__error_set(err, SKIT_EIO, 0,
		                     "the server speaks protocol revision "
		                     "'%.32s', which skit does not",
		                     version ? version : "?");
		json_decref(resp);
		server_stop(s, err->message);
		return rc;
	}
	/* Every later HTTP message names the revision agreed on. */
	if (s->http && skit__mcp_http_set_version(s->http, version)) {
		json_decref(resp);
		return skit__error_oom(err);
	}
	json_decref(resp);
	rc = notify(s, "notifications/initialized", timeout, err);
	if (rc && rc != SKIT_ENOMEM)
		server_stop(s, err->message);
	return rc;
}

/* initialize, initialized, tools/list (all pages). */
static int handshake(struct skit__mcp *m, struct server *s, long timeout,
                     struct skit_agent *a, skit_error *err)
{
	json_t *params, *resp, *res, *cursor = NULL;
	int rc;

	rc = initialize(s, timeout, err);
	if (rc)
		return rc;
	for (int page = 0; page < MAX_TOOLS_PAGES; page++) {
		json_t *tools, *t;
		size_t i;

		params = cursor ? json_pack("{s:O}", "cursor", cursor)
		                : json_object();
		json_decref(cursor);
		cursor = NULL;
		if (!params)
			return skit__error_oom(err);
		rc = rpc(s, "tools/list", params, timeout, &resp, err);
		json_decref(params);
		if (rc)
			return rc;
		res = json_object_get(resp, "result");
		tools = json_object_get(res, "tools");
		if (!json_is_array(tools)) {
			json_decref(resp);
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "tools/list gave no tools");
			server_stop(s, err->message);
			return rc;
		}
		json_array_foreach(tools, i, t) if (add_tool(m, s, t, a))
		{
			json_decref(resp);
			return skit__error_oom(err);
		}
		cursor = json_object_get(res, "nextCursor");
		if (json_is_string(cursor))
			json_incref(cursor);
		else
			cursor = NULL;
		json_decref(resp);
		if (!cursor)
			break;
	}
	json_decref(cursor);
	return 0;
}

int skit_agent_use_mcp(skit_agent *a, const skit_mcp_config *c, long timeout_ms,
                       skit_error *err)
{
	struct skit__mcp *m = skit__agent_provider(a, &skit__mcp_tools);

	if (!c || !c->n)
		return 0;
	if (!m) {
		m = skitx_calloc(1, sizeof(*m));
		if (!m)
			return skit__error_oom(err);
		if (skit__agent_add_provider(a, &skit__mcp_tools, m, err))
			return SKIT_ENOMEM; /* m was released */
		m->call_timeout_ms = a->script_timeout_ms > 0
		                             ? a->script_timeout_ms
		                             : CALL_TIMEOUT;
	}
	if (timeout_ms <= 0)
		timeout_ms = START_TIMEOUT;
	for (size_t i = 0; i < c->n; i++) {
		const struct skit__mcp_def *d = &c->v[i];
		struct server *grown, *s;
		size_t before = m->ntools;
		skit_error e = { 0 };
		char *shown;
		int rc;

		if (!skit__mcp_def_approved(c, d))
			continue;
		grown = skitx_realloc(m->srv, (m->nsrv + 1) * sizeof(*grown));
		if (!grown)
			return skit__error_oom(err);
		m->srv = grown;
		s = &m->srv[m->nsrv];
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		skitx_buf_init(&s->in, 0);
		s->name = skitx_strdup(d->name);
		if (!s->name)
			return skit__error_oom(err);
		m->nsrv++;
		s->cancel = a->cancel;
		{
			struct skit__mcp_def x;

			rc = skit__mcp_expand_def(d, &x, &e);
			if (!rc && x.url) {
				rc = skit__mcp_http_new(&s->http, x.url,
				                        x.headers, answer_for,
				                        &e);
				if (!rc)
					skit__mcp_http_set_cancel(s->http,
					                          a->cancel);
			} else if (!rc) {
				rc = server_start(s, &x, d->project_dir, &e);
			}
			skit__mcp_def_release(&x);
		}
		if (!rc)
			rc = handshake(m, s, timeout_ms, a, &e);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		shown = d->url ? skit__url_without_credentials(d->url) : NULL;
		if (d->url && !shown)
			return skit__error_oom(err);
		skit__agent_audit(
		        a, "mcp_server",
		        json_pack("{s:s, s:s?, s:s?, s:s, s:b, s:I, s:s?}",
		                  "name", d->name, "command", d->command, "url",
		                  shown, "digest", d->digest, "project",
		                  d->project, "tools",
		                  (json_int_t)(m->ntools - before), "error",
		                  rc ? e.message : NULL));
		skitx_free(shown);
		if (rc) {
			skit__agent_trace(a, SKIT_TRACE_NOTE,
			                  "MCP server %s is off: %s", d->name,
			                  e.message);
			server_stop(s, e.message);
			continue;
		}
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "MCP server %s: %zu tool(s)", d->name,
		                  m->ntools - before);
	}
	return 0;
}

/* ---- the provider ----------------------------------------------------- */

/* Every tool of the servers, gated as external tools: read-only when
 * annotated readOnlyHint, else execute calls. */
static size_t mcp_list(void *self, const struct skit__tool_ctx *c,
                       struct skit__tool_def *out, size_t max)
{
	const struct skit__mcp *m = self;
	size_t n = 0;

	(void)c;
	for (size_t i = 0; m && i < m->ntools && n < max; i++) {
		const struct mtool *t = &m->tools[i];

		out[n].schema.name = t->full;
		out[n].schema.description = t->desc;
		out[n].schema.parameters = t->schema;
		out[n].risk = t->read_only ? SKIT_RISK_READ : SKIT_RISK_EXECUTE;
		out[n].gate = SKIT__GATE_EXTERNAL;
		out[n].offered = true;
		out[n].hint = "";
		n++;
	}
	return n;
}

static const struct mtool *find_tool(const struct skit__mcp *m,
                                     const char *name)
{
	for (size_t i = 0; m && i < m->ntools; i++)
		if (!strcmp(m->tools[i].full, name))
			return &m->tools[i];
	return NULL;
}

/* The text of a tools/call result, capped. */
static int put_content(struct skitx_buf *out, json_t *content)
{
	json_t *c;
	size_t i;
	int rc = 0;

	json_array_foreach(content, i, c)
	{
		const char *type =
		        json_string_value(json_object_get(c, "type"));
		const char *text =
		        json_string_value(json_object_get(c, "text"));

		if (i)
			rc |= skitx_buf_puts(out, "\n");
		if (type && !strcmp(type, "text") && text)
			rc |= skit__put_clean(out, text, strlen(text));
		else
			rc |= skitx_buf_printf(
			        out, "[%s content left out]",
			        type && strlen(type) < 32 ? type : "other");
		if (rc)
			return SKIT_ENOMEM;
		if (skitx_buf_len(out) > OUTPUT_CAP)
			break;
	}
	if (skitx_buf_len(out) > OUTPUT_CAP) {
		size_t cut = OUTPUT_CAP;

		/* never in the middle of a UTF-8 sequence */
		while (cut && ((unsigned char)out->ptr[cut] & 0xC0) == 0x80)
			cut--;
		skitx_buf_truncate(out, cut);
		rc = skitx_buf_printf(out, "\n[output cut at %u KiB]",
		                      OUTPUT_CAP / 1024);
	}
	return rc ? SKIT_ENOMEM : 0;
}

static int mcp_call(void *self, struct skit__tool_ctx *c, const char *name,
                    json_t *args, struct skitx_buf *out, bool *is_error,
                    skit_error *err)
{
	struct skit__mcp *m = self;
	const struct mtool *t = find_tool(m, name);
	struct server *srv = t ? &m->srv[t->srv] : NULL;
	json_t *params, *resp, *res, *e;
	skit_error e2 = { 0 };
	int rc;

	if (!t)
		return skit__tool_error(out, is_error, "unknown tool '%.64s'",
		                        name);
	if (!server_up(srv))
		return skit__tool_error(
		        out, is_error, "MCP server %s is not running (%s)",
		        srv->name, srv->dead ? srv->dead : "stopped");
	params = json_pack("{s:s, s:O}", "name", t->remote, "arguments", args);
	if (!params)
		return skit__error_oom(err);
	rc = rpc(srv, "tools/call", params, m->call_timeout_ms, &resp, &e2);
	json_decref(params);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc == SKIT_ECANCELED)
		return skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
	if (rc) {
		skit__tool_trace(c, SKIT_TRACE_TOOL,
		                 "MCP server %s stopped: %s", srv->name,
		                 e2.message);
		return skit__tool_error(out, is_error,
		                        "MCP server %s failed and was stopped: "
		                        "%s",
		                        srv->name, e2.message);
	}
	res = json_object_get(resp, "result");
	e = json_object_get(resp, "error");
	if (e || !json_is_object(res)) {
		const char *msg =
		        json_string_value(json_object_get(e, "message"));

		rc = skit__tool_error(out, is_error, "MCP error: %.500s",
		                      msg ? msg : "malformed answer");
		json_decref(resp);
		return rc;
	}
	rc = put_content(out, json_object_get(res, "content"));
	*is_error = json_is_true(json_object_get(res, "isError"));
	json_decref(resp);
	return rc ? skit__error_oom(err) : 0;
}

void skit__mcp_free(struct skit__mcp *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nsrv; i++) {
		server_stop(&m->srv[i], NULL);
		skitx_free(m->srv[i].name);
		skitx_free(m->srv[i].dead);
		skitx_buf_release(&m->srv[i].in);
	}
	for (size_t i = 0; i < m->ntools; i++) {
		skitx_free(m->tools[i].full);
		skitx_free(m->tools[i].remote);
		skitx_free(m->tools[i].desc);
		free(m->tools[i].schema);
	}
	skitx_free(m->srv);
	skitx_free(m->tools);
	skitx_free(m);
}

static void mcp_release(void *self)
{
	skit__mcp_free(self);
}

const struct skit__tool_provider_ops skit__mcp_tools = {
	"mcp", mcp_list, NULL, mcp_call, mcp_release,
};
