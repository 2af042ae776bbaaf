/* SPDX-License-Identifier: MIT */
/*
 * mcp.c - the MCP server's protocol core: JSON-RPC messages in, responses
 * and notifications out, for one registry's skills.
 *
 * It knows nothing of transports: the stdio loop is at the end of this
 * file, the HTTP one in mcp_http.c. The skill tools are the agent's own
 * (tools.c, through a session's skit_agent), so use_skill,
 * read_skill_resource, search_skills and run_skill_script mean exactly
 * what they mean in `skit run`: the same caps, the same disclosure (a
 * file is read only from an activated skill), the same policy and
 * sandbox. The Skills extension (skills/list, skills/get) and the
 * skill:// resources are served from the registry and the skill folders
 * directly, opening every file beneath its skill folder.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/inotify.h>
#endif

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "skit/mcp.h"
#include "lib/agent/agent_int.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/mcp/mcp_int.h"
#include "lib/model/model_int.h"
#include "lib/pack/pack_int.h" /* skit__tree_remove */
#include "lib/tools/tools_int.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/pool.h"
#include "util/utf8.h"
#include "lib/skill/yaml.h"

#define DEFAULT_MAX_MESSAGE (4u * 1024 * 1024)
#define DEFAULT_PAGE_SIZE   100
#define FRONTMATTER_MAX     (256u * 1024)
/* The Skills extension's per-skill limits (files and bytes). */
#define SKILL_FILES_MAX 512
#define SKILL_BYTES_MAX (16u * 1024 * 1024)
#define LIST_TTL_MS     60000
#define WATCH_MAX       4096

/* JSON-RPC error codes. */
#define RPC_PARSE    -32700
#define RPC_INVALID  -32600
#define RPC_METHOD   -32601
#define RPC_PARAMS   -32602
#define RPC_INTERNAL -32603

#define SKILLS_EXT "io.modelcontextprotocol/skills"

/* Newest first; the first is offered when the client asks for another. */
static const char *const versions[] = {
	"2025-11-25",
	"2025-06-18",
	"2025-03-26",
	"2024-11-05",
};

static const char *const levels[] = {
	"debug", "info",     "notice", "warning",
	"error", "critical", "alert",  "emergency",
};

struct skit_mcp_server {
	skit_registry *reg;
	const skit_policy *policy;
	skit_model *model; /* never called: the agent object needs one */
	bool allow_scripts;
	size_t max_message, page_size;
	char *workdir, *project_dir;
	struct skit__mcp_session *sessions[SKIT__MCP_MAX_SESSIONS + 1];
	size_t nsessions; /* sessions[0] is the default (stdio) one */
	unsigned long clock;
	int watch_fd;
};

/* A JSON-RPC failure to answer with. */
struct rpc_fail {
	int code;
	char message[256];
};

static int fail(struct rpc_fail *f, int code, const char *fmt, ...)
        SKIT_PRINTF(3, 4);

static int fail(struct rpc_fail *f, int code, const char *fmt, ...)
{
	va_list ap;

	f->code = code;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
	return 1;
}

/* ---- sessions -------------------------------------------------------- */

static void session_free(struct skit__mcp_session *s)
{
	if (!s)
		return;
	skit_agent_free(s->agent);
	if (s->scratch)
		(void)skit__tree_remove(AT_FDCWD, s->scratch, NULL);
	skitx_free(s->scratch);
	json_decref(s->queue);
	skitx_free(s);
}

static struct skit__mcp_session *session_new(void)
{
	struct skit__mcp_session *s = skitx_calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->log_level = 3; /* warning, until the client asks for more */
	s->queue = json_array();
	if (!s->queue) {
		skitx_free(s);
		return NULL;
	}
	return s;
}

struct skit__mcp_session *skit__mcp_session_open(skit_mcp_server *srv)
{
	struct skit__mcp_session *s;
	unsigned char raw[16];
	size_t oldest = 1;

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return NULL;
	s = session_new();
	if (!s)
		return NULL;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(s->id + 2 * i, 3, "%02x", raw[i]);
	if (srv->nsessions > SKIT__MCP_MAX_SESSIONS) {
		/* Full: the session idle longest makes room. */
		for (size_t i = 2; i < srv->nsessions; i++)
			if (srv->sessions[i]->seen <
			    srv->sessions[oldest]->seen)
				oldest = i;
		skit__mcp_session_close(srv, srv->sessions[oldest]);
	}
	s->seen = ++srv->clock;
	srv->sessions[srv->nsessions++] = s;
	return s;
}

struct skit__mcp_session *skit__mcp_session_find(skit_mcp_server *srv,
                                                 const char *id)
{
	for (size_t i = 1; i < srv->nsessions; i++)
		if (!strcmp(srv->sessions[i]->id, id)) {
			srv->sessions[i]->seen = ++srv->clock;
			return srv->sessions[i];
		}
	return NULL;
}

void skit__mcp_session_close(skit_mcp_server *srv, struct skit__mcp_session *s)
{
	for (size_t i = 1; i < srv->nsessions; i++) {
		if (srv->sessions[i] != s)
			continue;
		memmove(&srv->sessions[i], &srv->sessions[i + 1],
		        (srv->nsessions - i - 1) * sizeof(s));
		srv->nsessions--;
		session_free(s);
		return;
	}
}

char *skit__mcp_next(struct skit__mcp_session *s)
{
	char *json, *out;

	if (!json_array_size(s->queue))
		return NULL;
	json = json_dumps(json_array_get(s->queue, 0), JSON_COMPACT);
	json_array_remove(s->queue, 0);
	if (!json)
		return NULL;
	out = skitx_strdup(json);
	free(json);
	return out;
}

size_t skit__mcp_max_message(const skit_mcp_server *srv)
{
	return srv->max_message;
}

bool skit__mcp_version_ok(const char *v)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(versions); i++)
		if (!strcmp(v, versions[i]))
			return true;
	return false;
}

/* Queue a notification (steals `params`). */
static void notify(struct skit__mcp_session *s, const char *method,
                   json_t *params)
{
	json_t *n = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);

	/* No "params" at all rather than null: clients validate it. */
	if (n && params)
		json_object_set_new(n, "params", params);
	else
		json_decref(params);
	if (n)
		json_array_append_new(s->queue, n);
}

/* A log message for the client, when at or above its level. */
static void log_msg(struct skit__mcp_session *s, int level, const char *text)
{
	if (level < s->log_level)
		return;
	notify(s, "notifications/message",
	       json_pack("{s:s, s:s, s:s}", "level", levels[level], "logger",
	                 "skit", "data", text));
}

/* Report progress when the request carried a progress token. */
static void progress(struct skit__mcp_session *s, json_t *params, double done,
                     double total)
{
	json_t *token = json_object_get(json_object_get(params, "_meta"),
	                                "progressToken");

	if (!json_is_string(token) && !json_is_integer(token))
		return;
	notify(s, "notifications/progress",
	       json_pack("{s:O, s:f, s:f}", "progressToken", token, "progress",
	                 done, "total", total));
}

/* ---- the agent behind the tools -------------------------------------- */

/*
 * The agent object wants a model. The server never runs the agent's
 * loop, only its tools, so this one refuses to be called.
 */
static int no_model_complete(struct skit_model *m, skit_model_response *out,
                             const skit_model_request *req,
                             skit_model_delta_cb on_delta, void *payload,
                             skit_error *err)
{
	(void)m, (void)out, (void)req, (void)on_delta, (void)payload;
	return skit__error_set(err, SKIT_EPROVIDER, 0,
	                       "the MCP server has no model");
}

static const struct skit__provider no_model = {
	"mcp",
	NULL,
	no_model_complete,
	NULL,
};

static skit_approve_answer approve(const skit_approval *req, void *payload)
{
	const skit_mcp_server *srv = payload;

	/* --allow-scripts is the user's approval, for scripts only. */
	if (srv->allow_scripts && !strcmp(req->tool, "run_skill_script"))
		return SKIT_APPROVE_YES;
	return SKIT_APPROVE_NO_ASK;
}

/*
 * A fresh private folder under $TMPDIR (else /tmp) for the session's
 * scripts to work in, in `s->scratch`.
 */
static int make_scratch(struct skit__mcp_session *s, skit_error *err)
{
	const char *tmp = getenv("TMPDIR");
	struct skitx_buf b = SKITX_BUF_INIT;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (skitx_buf_printf(&b, "%s/skit-mcp-XXXXXX", tmp) < 0)
		return skit__error_oom(err);
	if (!mkdtemp(b.ptr)) {
		skitx_buf_release(&b);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot create a temporary folder in "
		                       "%s: %s",
		                       tmp, strerror(errno));
	}
	s->scratch = skitx_buf_detach(&b, NULL);
	return s->scratch ? 0 : skit__error_oom(err);
}

/*
 * The session's agent. Its project folder (where scripts run and what
 * they may write) follows `skit run`'s rules: the one given, else the
 * registry's project, else the folder the server started in unless that
 * is the home folder, / or a system folder (skit_project_for_run()).
 * MCP clients often start servers in just those folders; there the
 * session gets a private folder of its own instead, so a script can
 * write nothing of the user's.
 */
static int new_agent(skit_agent **out, skit_mcp_server *srv,
                     struct skit__mcp_session *s, skit_error *err)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char *found = NULL;
	int rc = 0;

	ao.registry = srv->reg;
	ao.model = srv->model;
	ao.search_tool = true;
	ao.policy = srv->policy;
	ao.workdir = srv->workdir;
	ao.project_dir = srv->project_dir;
	if (!ao.project_dir)
		ao.project_dir = skit_registry_project_dir(srv->reg);
	if (!ao.project_dir) {
		rc = skit_project_for_run(&found, NULL, err);
		if (rc == SKIT_ENOTFOUND) {
			rc = s->scratch ? 0 : make_scratch(s, err);
			found = NULL;
		}
		if (rc)
			return rc;
		ao.project_dir = found ? found : s->scratch;
	}
	ao.file_tools = false;
	/* ask_user asks the client's user when it can (mcp_elicit.c) */
	ao.on_ask = skit__mcp_ask;
	ao.ask_payload = s;
	/* Without --allow-scripts no one approves: run_skill_script is
	 * neither offered nor disclosed after an activation. */
	if (srv->allow_scripts)
		ao.hooks.on_approve = approve;
	ao.hooks.payload = srv;
	rc = skit_agent_new(out, &ao, err);
	skit_free(found);
	return rc;
}

static int session_agent(skit_mcp_server *srv, struct skit__mcp_session *s,
                         skit_error *err)
{
	if (s->agent)
		return 0;
	return new_agent(&s->agent, srv, s, err);
}

/* ---- skill entries (the Skills extension) ---------------------------- */

static bool one_of(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(v, *words))
			return true;
	return false;
}

/*
 * A plain scalar as a YAML 1.2 core-schema reader types it (null, bool,
 * integer, float), so that the JSON is what such a reader of the same
 * frontmatter gets; quoted and block scalars stay strings.
 */
static json_t *scalar_json(const struct skit__ynode *n)
{
	static const char *const nulls[] = { "",     "~",    "null",
		                             "Null", "NULL", NULL };
	static const char *const trues[] = { "true", "True", "TRUE", NULL };
	static const char *const falses[] = { "false", "False", "FALSE", NULL };
	const char *v = n->value, *digits = v + (*v == '-' || *v == '+');
	char *end;

	if (!n->plain || strlen(v) != n->len)
		return json_stringn(n->value, n->len);
	if (one_of(v, nulls))
		return json_null();
	if (one_of(v, trues) || one_of(v, falses))
		return json_boolean(one_of(v, trues));
	if (*digits && strspn(digits, "0123456789") == strlen(digits)) {
		long long i;

		errno = 0;
		i = strtoll(v, &end, 10);
		if (!errno && !*end)
			return json_integer(i);
	}
	if (*digits && strspn(digits, "0123456789.eE+-") == strlen(digits) &&
	    strchr("0123456789.", *digits) && strpbrk(digits, "0123456789")) {
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (!errno && !*end)
			return json_real(d);
	}
	return json_stringn(n->value, n->len);
}

/* The YAML tree as JSON, as a YAML reader with the core schema sees it. */
static json_t *ynode_json(const struct skit__ynode *n)
{
	json_t *j;

	if (!n)
		return json_null();
	if (n->kind == SKIT_YSCALAR)
		return scalar_json(n);
	j = n->kind == SKIT_YMAP ? json_object() : json_array();
	for (size_t i = 0; j && i < n->n; i++) {
		json_t *v = ynode_json(n->kind == SKIT_YMAP ? n->items[i]
		                                            : n->items[i]);

		if (!v) {
			json_decref(j);
			return NULL;
		}
		if (n->kind == SKIT_YMAP)
			json_object_set_new(j, n->keys[i]->value, v);
		else
			json_array_append_new(j, v);
	}
	return j;
}

/* The frontmatter of the SKILL.md at `path` as a JSON object. */
static int frontmatter_json(json_t **out, const char *path, skit_error *err)
{
	struct skitx_buf text;
	struct skitx_pool pool;
	struct skit__ynode *root = NULL;
	const char *s, *end, *yaml, *p;
	char msg[200];
	unsigned int line, col;
	int rc;

	*out = NULL;
	skitx_buf_init(&text, 0);
	skitx_pool_init(&pool, 0);
	rc = skitx_fs_read_file(path, &text, FRONTMATTER_MAX);
	if (rc == SKIT_ETOOBIG) {
		/* Only the head is needed; read it capped. */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		char buf[8192];
		ssize_t n;

		skitx_buf_clear(&text);
		rc = fd < 0 ? SKIT_EIO : 0;
		while (!rc && skitx_buf_len(&text) < FRONTMATTER_MAX &&
		       (n = read(fd, buf, sizeof(buf))) > 0)
			rc = skitx_buf_add(&text, buf, (size_t)n);
		if (fd >= 0)
			close(fd);
	}
	if (rc) {
		rc = skit__error_set(err, rc, 0, "%s: unreadable", path);
		goto out;
	}
	s = skitx_buf_cstr(&text);
	end = s + skitx_buf_len(&text);
	if (end - s >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	if (strncmp(s, "---", 3) || (s[3] != '\n' && s[3] != '\r')) {
		rc = skit__error_set(err, SKIT_EINVALID, 1,
		                     "%s: no frontmatter", path);
		goto out;
	}
	yaml = strchr(s, '\n') + 1;
	for (p = yaml; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (n == 3 && !memcmp(p, "---", 3))
			break;
		p = nl ? nl + 1 : end;
	}
	if (p >= end) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: frontmatter is not closed", path);
		goto out;
	}
	rc = skit__yaml_parse_flags(&root, &pool, yaml, (size_t)(p - yaml),
	                            SKIT_YAML_FLOW, msg, sizeof(msg), &line,
	                            &col);
	if (rc) {
		rc = skit__error_set(err, rc, line, "%s: %s", path, msg);
		goto out;
	}
	*out = root && root->kind == SKIT_YMAP ? ynode_json(root)
	                                       : json_object();
	if (!*out)
		rc = skit__error_oom(err);
out:
	skitx_pool_release(&pool);
	skitx_buf_release(&text);
	return rc;
}

struct files_walk {
	int dirfd;
	const char *name;
	json_t *list;
	size_t count;
	uint64_t bytes;
	int rc;
};

static int add_file(struct files_walk *w, const char *rel, const char *uri_path)
{
	char hex[65];
	uint64_t size = 0;
	json_t *item;
	int fd;

	if (w->count >= SKILL_FILES_MAX)
		return 1; /* served as far as the extension's limit */
	fd = skit__open_beneath(w->dirfd, rel, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0; /* vanished or unsafe: not a file of the skill */
	w->rc = skit__sha256_fd(fd, hex, &size);
	close(fd);
	if (w->rc)
		return w->rc == SKIT_ENOMEM ? 1 : (w->rc = 0);
	item = json_pack("{s:s+++, s:s+, s:I}", "uri", "skill://", w->name, "/",
	                 uri_path, "digest", "sha256:", hex, "size",
	                 (json_int_t)size);
	if (!item || json_array_append_new(w->list, item)) {
		w->rc = SKIT_ENOMEM;
		return 1;
	}
	w->count++;
	w->bytes += size;
	return 0;
}

static int walk_cb(const char *relpath, bool is_dir, void *payload)
{
	struct files_walk *w = payload;
	struct stat st;

	if (is_dir)
		return 0;
	/* Only regular files: a link or a device is not served. */
	if (fstatat(w->dirfd, relpath, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return add_file(w, relpath, relpath);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The Skill entry of `e`: uri, frontmatter, resources. */
static int skill_entry(json_t **out, skit_mcp_server *srv, const skit_entry *e,
                       skit_error *err)
{
	struct files_walk w = { -1, NULL, NULL, 0, 0, 0 };
	skit_skill *skill = NULL;
	json_t *fm = NULL;
	int rc;

	*out = NULL;
	rc = frontmatter_json(&fm, e->file, err);
	if (rc)
		return rc;
	w.name = e->name;
	w.list = json_array();
	w.dirfd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!w.list || w.dirfd < 0) {
		rc = w.list ? skit__error_set(err, SKIT_EIO, 0, "%s: %s",
		                              e->dir, strerror(errno))
		            : skit__error_oom(err);
		goto out;
	}
	add_file(&w, base_name(e->file), "SKILL.md");
	if (!w.rc) {
		rc = skit_registry_load(&skill, srv->reg, e, err);
		if (rc)
			goto out;
		rc = skit_skill_foreach_file(skill, walk_cb, &w, err);
		if (rc > 0)
			rc = 0;
	}
	if (!rc && w.rc)
		rc = skit__error_code(err, w.rc);
	if (rc)
		goto out;
	*out = json_pack("{s:s++, s:O, s:O}", "uri", "skill://", e->name,
	                 "/SKILL.md", "frontmatter", fm, "resources", w.list);
	if (!*out)
		rc = skit__error_oom(err);
out:
	if (w.dirfd >= 0)
		close(w.dirfd);
	skit_skill_free(skill);
	json_decref(fm);
	json_decref(w.list);
	return rc;
}

/* Split "skill://NAME/PATH"; the name and the path are copied out. */
static int parse_uri(const char *uri, char *name, size_t ncap, char *path,
                     size_t pcap, struct rpc_fail *f)
{
	const char *p, *slash, *why;

	if (strncmp(uri, "skill://", 8))
		return fail(f, RPC_PARAMS, "not a skill:// URI");
	p = uri + 8;
	slash = strchr(p, '/');
	if (!slash || slash == p || (size_t)(slash - p) >= ncap)
		return fail(f, RPC_PARAMS, "the URI names no skill file");
	memcpy(name, p, (size_t)(slash - p));
	name[slash - p] = '\0';
	if (strlen(slash + 1) >= pcap)
		return fail(f, RPC_PARAMS, "the path is too long");
	snprintf(path, pcap, "%s", slash + 1);
	why = skit__check_rel_path(path);
	if (!*path || why)
		return fail(f, RPC_PARAMS, "%.100s: %s", path,
		            why ? why : "empty path");
	return 0;
}

static const skit_entry *find_skill(skit_mcp_server *srv, const char *name)
{
	const skit_entry *e = skit_registry_find(srv->reg, name, NULL);

	return e && e->state == SKIT_ENTRY_ACTIVE && !strcmp(e->name, name)
	               ? e
	               : NULL;
}

/* A page's start from a cursor (a decimal index). */
static int cursor_start(json_t *params, size_t *start, struct rpc_fail *f)
{
	json_t *c = json_object_get(params, "cursor");
	char *end;
	unsigned long long v;

	*start = 0;
	if (!c || json_is_null(c))
		return 0;
	if (!json_is_string(c))
		return fail(f, RPC_PARAMS, "\"cursor\" must be a string");
	errno = 0;
	v = strtoull(json_string_value(c), &end, 10);
	if (errno || *end || end == json_string_value(c) || v > SIZE_MAX)
		return fail(f, RPC_PARAMS, "unknown cursor");
	*start = (size_t)v;
	return 0;
}

/* The next-page cursor after `end`, when the listing goes on. */
static void set_cursor(json_t *result, size_t end, size_t total)
{
	char buf[32];

	if (end >= total)
		return;
	snprintf(buf, sizeof(buf), "%zu", end);
	json_object_set_new(result, "nextCursor", json_string(buf));
}

static int m_skills_list(skit_mcp_server *srv, struct skit__mcp_session *s,
                         json_t *params, json_t **result, struct rpc_fail *f,
                         skit_error *err)
{
	size_t start, total = skit_registry_count(srv->reg), end;
	json_t *list;
	int rc = 0;

	if (cursor_start(params, &start, f))
		return 1;
	if (start > total)
		return fail(f, RPC_PARAMS, "unknown cursor");
	end = start + srv->page_size < total ? start + srv->page_size : total;
	list = json_array();
	*result = json_pack("{s:s, s:o, s:i, s:s}", "resultType", "complete",
	                    "skills", list, "ttlMs", LIST_TTL_MS, "cacheScope",
	                    "public");
	if (!*result)
		return skit__error_oom(err);
	for (size_t i = start; i < end; i++) {
		const skit_entry *e = skit_registry_entry(srv->reg, i);
		skit_error ie = { 0 };
		json_t *entry = NULL;

		rc = skill_entry(&entry, srv, e, &ie);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		if (rc) {
			/* One unreadable skill does not hide the others. */
			log_msg(s, 3, ie.message);
			rc = 0;
			continue;
		}
		json_array_append_new(list, entry);
	}
	set_cursor(*result, end, total);
	progress(s, params, (double)end, (double)total);
	return 0;
}

static int m_skills_get(skit_mcp_server *srv, struct skit__mcp_session *s,
                        json_t *params, json_t **result, struct rpc_fail *f,
                        skit_error *err)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	char name[256], path[SKIT__TOOL_PATH_MAX];
	const skit_entry *e;
	skit_error ie = { 0 };
	json_t *entry = NULL;
	int rc;

	(void)s;
	if (!uri)
		return fail(f, RPC_PARAMS, "missing \"uri\"");
	if (parse_uri(uri, name, sizeof(name), path, sizeof(path), f))
		return 1;
	if (strcmp(path, "SKILL.md"))
		return fail(f, RPC_PARAMS, "not the URI of a SKILL.md");
	e = find_skill(srv, name);
	if (!e)
		return fail(f, RPC_PARAMS, "no skill at %.200s", uri);
	rc = skill_entry(&entry, srv, e, &ie);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc)
		return fail(f, RPC_INTERNAL, "%s", ie.message);
	*result = json_pack("{s:s, s:o, s:i, s:s}", "resultType", "complete",
	                    "skill", entry, "ttlMs", LIST_TTL_MS, "cacheScope",
	                    "public");
	return *result ? 0 : skit__error_oom(err);
}

/* ---- resources -------------------------------------------------------- */

static const char *mime_type(const char *path, bool text)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".md", "text/markdown" },
		{ ".txt", "text/plain" },
		{ ".py", "text/x-python" },
		{ ".sh", "text/x-shellscript" },
		{ ".json", "application/json" },
		{ ".yaml", "application/yaml" },
		{ ".yml", "application/yaml" },
		{ ".html", "text/html" },
		{ ".csv", "text/csv" },
		{ ".js", "text/javascript" },
		{ ".png", "image/png" },
		{ ".pdf", "application/pdf" },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < SKIT_ARRAY_SIZE(types); i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].type;
	return text ? "text/plain" : "application/octet-stream";
}

struct res_walk {
	json_t *list;
	const char *name;
	int rc;
};

static int res_cb(const char *relpath, bool is_dir, void *payload)
{
	struct res_walk *w = payload;
	json_t *item;

	if (is_dir)
		return 0;
	item = json_pack("{s:s+++, s:s, s:s}", "uri", "skill://", w->name, "/",
	                 relpath, "name", relpath, "mimeType",
	                 mime_type(relpath, true));
	if (!item || json_array_append_new(w->list, item)) {
		w->rc = SKIT_ENOMEM;
		return 1;
	}
	return 0;
}

static int m_resources_list(skit_mcp_server *srv, struct skit__mcp_session *s,
                            json_t *params, json_t **result, struct rpc_fail *f,
                            skit_error *err)
{
	size_t start, total = skit_registry_count(srv->reg), end;
	json_t *list;

	(void)s;
	if (cursor_start(params, &start, f))
		return 1;
	if (start > total)
		return fail(f, RPC_PARAMS, "unknown cursor");
	end = start + srv->page_size < total ? start + srv->page_size : total;
	list = json_array();
	*result = json_pack("{s:o}", "resources", list);
	if (!*result)
		return skit__error_oom(err);
	for (size_t i = start; i < end; i++) {
		const skit_entry *e = skit_registry_entry(srv->reg, i);
		struct res_walk w = { list, e->name, 0 };
		skit_skill *skill = NULL;
		skit_error ie = { 0 };
		json_t *md;

		md = json_pack("{s:s++, s:s, s:s, s:s}", "uri", "skill://",
		               e->name, "/SKILL.md", "name", e->name,
		               "description", e->description, "mimeType",
		               "text/markdown");
		if (!md || json_array_append_new(list, md))
			return skit__error_oom(err);
		if (skit_registry_load(&skill, srv->reg, e, &ie))
			continue;
		skit_skill_foreach_file(skill, res_cb, &w, &ie);
		skit_skill_free(skill);
		if (w.rc)
			return skit__error_oom(err);
	}
	set_cursor(*result, end, total);
	return 0;
}

static int m_templates_list(skit_mcp_server *srv, struct skit__mcp_session *s,
                            json_t *params, json_t **result, struct rpc_fail *f,
                            skit_error *err)
{
	(void)srv, (void)s, (void)params, (void)f;
	*result = json_pack(
	        "{s:[{s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}]}",
	        "resourceTemplates", "uriTemplate", "skill://{skill}/SKILL.md",
	        "name", "skill", "mimeType", "text/markdown", "uriTemplate",
	        "skill://{skill}/{+path}", "name", "skill-file", "description",
	        "A file of a skill, by its path inside the skill folder",
	        "mimeType", "application/octet-stream");
	return *result ? 0 : skit__error_oom(err);
}

static int m_resources_read(skit_mcp_server *srv, struct skit__mcp_session *s,
                            json_t *params, json_t **result, struct rpc_fail *f,
                            skit_error *err)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	char name[256], path[SKIT__TOOL_PATH_MAX];
	struct skitx_buf data;
	const skit_entry *e;
	struct stat st;
	json_t *content = NULL;
	bool text;
	int dirfd, fd, rc;

	(void)s;
	if (!uri)
		return fail(f, RPC_PARAMS, "missing \"uri\"");
	if (parse_uri(uri, name, sizeof(name), path, sizeof(path), f))
		return 1;
	e = find_skill(srv, name);
	if (!e)
		return fail(f, RPC_PARAMS, "no skill named '%.64s'", name);
	dirfd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return fail(f, RPC_INTERNAL, "skill folder unreadable");
	fd = skit__open_beneath(
	        dirfd, strcmp(path, "SKILL.md") ? path : base_name(e->file),
	        O_RDONLY | O_NONBLOCK);
	close(dirfd);
	if (fd < 0)
		return fail(f, RPC_PARAMS, "%.200s: %s", uri,
		            skit__open_failure(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(f, RPC_PARAMS, "%.200s: not a regular file", uri);
	}
	skitx_buf_init(&data, 0);
	rc = skitx_fs_read_fd(fd, &data, SKILL_BYTES_MAX);
	close(fd);
	if (rc == SKIT_ETOOBIG) {
		skitx_buf_release(&data);
		return fail(f, RPC_PARAMS, "%.200s: larger than %u MiB", uri,
		            SKILL_BYTES_MAX >> 20);
	}
	if (rc) {
		skitx_buf_release(&data);
		return rc == SKIT_ENOMEM ? skit__error_oom(err)
		                         : fail(f, RPC_INTERNAL, "read error");
	}
	text = !skitx_utf8_check(skitx_buf_cstr(&data), skitx_buf_len(&data),
	                         NULL);
	if (text) {
		content =
		        json_pack("{s:s, s:s, s:s%}", "uri", uri, "mimeType",
		                  mime_type(path, true), "text",
		                  skitx_buf_cstr(&data), skitx_buf_len(&data));
	} else {
		size_t n = skitx_buf_len(&data);
		char *b64 = skitx_malloc(4 * ((n + 2) / 3) + 1);

		if (b64) {
			EVP_EncodeBlock(
			        (unsigned char *)b64,
			        (const unsigned char *)skitx_buf_cstr(&data),
			        (int)n);
			content = json_pack("{s:s, s:s, s:s}", "uri", uri,
			                    "mimeType", mime_type(path, false),
			                    "blob", b64);
			skitx_free(b64);
		}
	}
	skitx_buf_release(&data);
	if (!content)
		return skit__error_oom(err);
	*result = json_pack("{s:[o]}", "contents", content);
	return *result ? 0 : skit__error_oom(err);
}

/* ---- the index a plain client sees ----------------------------------- */

/* Characters of the index in the instructions and in use_skill's
 * description: about 2,000 tokens, as a client's own skills list is. */
#define INDEX_BUDGET 8000

static const char instructions_text[] =
        "This server serves Agent Skills. Call use_skill with a skill's "
        "name to get its instructions, then read_skill_resource for its "
        "files; search_skills finds skills by topic. Clients with the "
        "skills extension use skills/list and skill:// resources.";

/*
 * `head`, a blank line, then the registry's index as skit's agent
 * renders it (one "- name: description" line a skill), within
 * INDEX_BUDGET: so that a client without the skills extension (the
 * most common kind) still learns which skills exist.
 */
static int with_index(const skit_mcp_server *srv, const char *head,
                      struct skitx_buf *out, skit_error *err)
{
	skit_prompt_options po = SKIT_PROMPT_OPTIONS_INIT;
	skit_prompt_stats st;
	char *index = NULL;
	int rc;

	po.format = SKIT_PROMPT_MARKDOWN;
	po.budget = INDEX_BUDGET;
	rc = skit_registry_render_index(srv->reg, &po, &index, &st, err);
	if (rc)
		return rc;
	rc = skitx_buf_printf(
	        out, "%s\n\nAvailable skills:\n%s", head,
	        st.shown || st.omitted ? index : "(no skills are installed)");
	skit_free(index);
	return rc ? skit__error_oom(err) : 0;
}

/* ---- tools ------------------------------------------------------------ */

static const char *const tool_names[] = {
	"use_skill", "read_skill_resource", "search_skills", "run_skill_script",
	"ask_user",
};

static bool tool_served(const skit_mcp_server *srv, const char *name)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tool_names); i++)
		if (!strcmp(name, tool_names[i]))
			return srv->allow_scripts ||
			       strcmp(name, "run_skill_script");
	return false;
}

static int m_tools_list(skit_mcp_server *srv, struct skit__mcp_session *s,
                        json_t *params, json_t **result, struct rpc_fail *f,
                        skit_error *err)
{
	json_t *list = json_array();

	(void)s, (void)params, (void)f;
	*result = json_pack("{s:o}", "tools", list);
	if (!*result)
		return skit__error_oom(err);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tool_names); i++) {
		const skit_tool_schema *ts = skit__tool_schema(tool_names[i]);
		struct skitx_buf desc = SKITX_BUF_INIT;
		json_t *schema, *tool;
		bool ro = strcmp(tool_names[i], "run_skill_script");
		int rc = 0;

		if (!tool_served(srv, tool_names[i]))
			continue;
		/* use_skill names the skills it can give ("from the index"
		 * means nothing to a client that was sent none). */
		if (!strcmp(ts->name, "use_skill"))
			rc = with_index(srv, ts->description, &desc, err);
		else if (skitx_buf_puts(&desc, ts->description))
			rc = skit__error_oom(err);
		if (rc) {
			skitx_buf_release(&desc);
			return rc;
		}
		schema = json_loads(ts->parameters, 0, NULL);
		tool = json_pack("{s:s, s:s, s:o, s:{s:b, s:b}}", "name",
		                 ts->name, "description", skitx_buf_cstr(&desc),
		                 "inputSchema", schema, "annotations",
		                 "readOnlyHint", ro, "openWorldHint", false);
		skitx_buf_release(&desc);
		if (!schema || !tool || json_array_append_new(list, tool))
			return skit__error_oom(err);
	}
	return 0;
}

static int m_tools_call(skit_mcp_server *srv, struct skit__mcp_session *s,
                        json_t *params, json_t **result, struct rpc_fail *f,
                        skit_error *err)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments");
	struct skitx_buf out;
	bool is_error = false;
	skit_error ae = { 0 };
	json_t *own = NULL;
	char line[160];
	int rc;

	if (!name)
		return fail(f, RPC_PARAMS, "missing \"name\"");
	if (!tool_served(srv, name))
		return fail(f, RPC_PARAMS, "unknown tool '%.64s'", name);
	if (args && !json_is_object(args))
		return fail(f, RPC_PARAMS, "\"arguments\" must be an object");
	if (!args)
		args = own = json_object();
	rc = session_agent(srv, s, &ae);
	if (rc) {
		json_decref(own);
		return rc == SKIT_ENOMEM
		               ? skit__error_oom(err)
		               : fail(f, RPC_INTERNAL, "%s", ae.message);
	}
	/*
	 * Every call is its own turn and task: the per-turn activation cap
	 * and the per-task script cap hold per call, as they do for one
	 * model turn in `skit run`.
	 */
	s->agent->turn_activations = 0;
	s->agent->tc.task_scripts = 0;
	snprintf(line, sizeof(line), "tools/call %s", name);
	log_msg(s, 1, line);
	skitx_buf_init(&out, 0);
	rc = skit__tools_call(s->agent, name, args, &out, &is_error, &ae);
	json_decref(own);
	if (rc == SKIT_ENOMEM) {
		skitx_buf_release(&out);
		return skit__error_oom(err);
	}
	if (rc) {
		/* A cap ran out: the client sees it as the tool's error. */
		skitx_buf_clear(&out);
		skitx_buf_puts(&out, ae.message);
		is_error = true;
	}
	progress(s, params, 1, 1);
	*result = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
	                    "text", skitx_buf_cstr(&out), "isError", is_error);
	skitx_buf_release(&out);
	return *result ? 0 : skit__error_oom(err);
}

/* ---- prompts ---------------------------------------------------------- */

static bool promptable(const skit_entry *e)
{
	return !(e->flags & SKIT_SKILL_NOT_USER_INVOCABLE);
}

static int m_prompts_list(skit_mcp_server *srv, struct skit__mcp_session *s,
                          json_t *params, json_t **result, struct rpc_fail *f,
                          skit_error *err)
{
	size_t start, total = skit_registry_count(srv->reg), end;
	json_t *list = json_array();

	(void)s;
	*result = json_pack("{s:o}", "prompts", list);
	if (!*result)
		return skit__error_oom(err);
	if (cursor_start(params, &start, f))
		return 1;
	if (start > total)
		return fail(f, RPC_PARAMS, "unknown cursor");
	end = start + srv->page_size < total ? start + srv->page_size : total;
	for (size_t i = start; i < end; i++) {
		const skit_entry *e = skit_registry_entry(srv->reg, i);
		json_t *p;

		if (!promptable(e))
			continue;
		p = json_pack("{s:s, s:s, s:[{s:s, s:s, s:b}]}", "name",
		              e->name, "description", e->description,
		              "arguments", "name", "arguments", "description",
		              e->argument_hint ? e->argument_hint
		                               : "text for $ARGUMENTS",
		              "required", false);
		if (!p || json_array_append_new(list, p))
			return skit__error_oom(err);
	}
	set_cursor(*result, end, total);
	return 0;
}

static int m_prompts_get(skit_mcp_server *srv, struct skit__mcp_session *s,
                         json_t *params, json_t **result, struct rpc_fail *f,
                         skit_error *err)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments"), *v;
	const skit_entry *e;
	struct skitx_buf out;
	skit_agent *a = NULL;
	skit_error ae = { 0 };
	int rc;

	if (!name)
		return fail(f, RPC_PARAMS, "missing \"name\"");
	if (args && !json_is_object(args))
		return fail(f, RPC_PARAMS, "\"arguments\" must be an object");
	v = json_object_get(args, "arguments");
	if (v && !json_is_string(v))
		return fail(f, RPC_PARAMS, "argument values must be strings");
	e = find_skill(srv, name);
	if (!e || !promptable(e))
		return fail(f, RPC_PARAMS, "no prompt named '%.64s'", name);
	/*
	 * A prompt is the body as `/name args` gives it: a fresh agent, so
	 * that a skill already activated by a tool call still renders.
	 */
	rc = new_agent(&a, srv, s, &ae);
	skitx_buf_init(&out, 0);
	if (!rc)
		rc = skit__agent_activate(a, name, NULL, json_string_value(v),
		                          TRIGGER_USER, &out, &ae);
	skit_agent_free(a);
	if (rc) {
		skitx_buf_release(&out);
		return rc == SKIT_ENOMEM
		               ? skit__error_oom(err)
		               : fail(f, RPC_PARAMS, "%s", ae.message);
	}
	*result =
	        json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}]}", "description",
	                  e->description, "messages", "role", "user", "content",
	                  "type", "text", "text", skitx_buf_cstr(&out));
	skitx_buf_release(&out);
	return *result ? 0 : skit__error_oom(err);
}

/* ---- lifecycle and utilities ----------------------------------------- */

static int m_initialize(skit_mcp_server *srv, struct skit__mcp_session *s,
                        json_t *params, json_t **result, struct rpc_fail *f,
                        skit_error *err)
{
	const char *want =
	        json_string_value(json_object_get(params, "protocolVersion"));
	struct skitx_buf instr = SKITX_BUF_INIT;
	int rc;

	if (!want)
		return fail(f, RPC_PARAMS, "missing \"protocolVersion\"");
	rc = with_index(srv, instructions_text, &instr, err);
	if (rc)
		return rc;
	s->initialized = true;
	/* a client that can show its user a form (ask_user) */
	s->elicit = json_is_object(json_object_get(
	        json_object_get(params, "capabilities"), "elicitation"));
	*result = json_pack(
	        "{s:s, s:{s:{}, s:{s:b}, s:{s:b, s:b}, s:{s:b}, s:{s:{}}},"
	        " s:{s:s, s:s, s:s}, s:s}",
	        "protocolVersion",
	        skit__mcp_version_ok(want) ? want : versions[0], "capabilities",
	        "logging", "prompts", "listChanged", false, "resources",
	        "listChanged", true, "subscribe", false, "tools", "listChanged",
	        true, "extensions", SKILLS_EXT, "serverInfo", "name", "skit",
	        "title", "skit skills server", "version", SKIT_VERSION,
	        "instructions", skitx_buf_cstr(&instr));
	skitx_buf_release(&instr);
	return *result ? 0 : skit__error_oom(err);
}

static int m_ping(skit_mcp_server *srv, struct skit__mcp_session *s,
                  json_t *params, json_t **result, struct rpc_fail *f,
                  skit_error *err)
{
	(void)srv, (void)s, (void)params, (void)f;
	*result = json_object();
	return *result ? 0 : skit__error_oom(err);
}

static int m_set_level(skit_mcp_server *srv, struct skit__mcp_session *s,
                       json_t *params, json_t **result, struct rpc_fail *f,
                       skit_error *err)
{
	const char *lvl = json_string_value(json_object_get(params, "level"));

	(void)srv;
	for (size_t i = 0; lvl && i < SKIT_ARRAY_SIZE(levels); i++)
		if (!strcmp(lvl, levels[i])) {
			s->log_level = (int)i;
			*result = json_object();
			return *result ? 0 : skit__error_oom(err);
		}
	return fail(f, RPC_PARAMS, "unknown log level");
}

typedef int (*method_fn)(skit_mcp_server *, struct skit__mcp_session *,
                         json_t *, json_t **, struct rpc_fail *, skit_error *);

static const struct {
	const char *name;
	method_fn fn;
} methods[] = {
	{ "initialize", m_initialize },
	{ "ping", m_ping },
	{ "logging/setLevel", m_set_level },
	{ "skills/list", m_skills_list },
	{ "skills/get", m_skills_get },
	{ "resources/list", m_resources_list },
	{ "resources/templates/list", m_templates_list },
	{ "resources/read", m_resources_read },
	{ "tools/list", m_tools_list },
	{ "tools/call", m_tools_call },
	{ "prompts/list", m_prompts_list },
	{ "prompts/get", m_prompts_get },
};

static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT), *out;

	json_decref(j);
	if (!s)
		return NULL;
	out = skitx_strdup(s);
	free(s);
	return out;
}

static char *error_response(json_t *id, int code, const char *message)
{
	return dump(json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0",
	                      "id", id ? id : json_null(), "error", "code",
	                      code, "message", message));
}

int skit__mcp_handle(skit_mcp_server *srv, struct skit__mcp_session *s,
                     const char *msg, size_t len, char **response,
                     skit_error *err)
{
	json_t *req = NULL, *id, *params, *result = NULL;
	struct rpc_fail f = { 0, "" };
	const char *method;
	json_error_t jerr;
	method_fn fn = NULL;
	int rc = 0;

	*response = NULL;
	if (len > srv->max_message) {
		*response =
		        error_response(NULL, RPC_INVALID, "message too large");
		goto out;
	}
	req = json_loadb(msg, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
	                 &jerr);
	if (!req) {
		*response = error_response(NULL, RPC_PARSE, "parse error");
		goto out;
	}
	if (!json_is_object(req)) {
		*response = error_response(NULL, RPC_INVALID,
		                           json_is_array(req)
		                                   ? "batches are not supported"
		                                   : "not a JSON-RPC message");
		goto out;
	}
	id = json_object_get(req, "id");
	method = json_string_value(json_object_get(req, "method"));
	params = json_object_get(req, "params");
	if (id && !json_is_string(id) && !json_is_integer(id)) {
		*response =
		        error_response(NULL, RPC_INVALID,
		                       "\"id\" must be a string or integer");
		goto out;
	}
	if (!method) {
		/* A response to us (we send no requests) is dropped. */
		if (!json_object_get(req, "result") &&
		    !json_object_get(req, "error"))
			*response = error_response(id, RPC_INVALID,
			                           "not a JSON-RPC message");
		goto out;
	}
	if (!json_is_string(json_object_get(req, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(req, "jsonrpc")), "2.0")) {
		if (id)
			*response = error_response(
			        id, RPC_INVALID, "\"jsonrpc\" must be \"2.0\"");
		goto out;
	}
	if (params && !json_is_object(params)) {
		if (id)
			*response = error_response(
			        id, RPC_PARAMS, "\"params\" must be an object");
		goto out;
	}
	if (!id) {
		/*
		 * Notifications. Requests are answered one at a time, so a
		 * cancellation always names one already answered: the
		 * specification lets it be ignored.
		 */
		if (!strcmp(method, "notifications/cancelled"))
			log_msg(s, 0, "cancellation for a finished request");
		goto out;
	}
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(methods); i++)
		if (!strcmp(method, methods[i].name))
			fn = methods[i].fn;
	if (!fn) {
		*response = error_response(id, RPC_METHOD, "method not found");
		goto out;
	}
	if (!s->initialized && fn != m_initialize && fn != m_ping) {
		*response = error_response(id, RPC_INVALID,
		                           "not initialized: send initialize "
		                           "first");
		goto out;
	}
	rc = fn(srv, s, params ? params : json_object_get(req, "params"),
	        &result, &f, err);
	if (rc < 0)
		goto out;
	if (rc > 0) {
		json_decref(result);
		rc = 0;
		*response = error_response(id, f.code, f.message);
		goto out;
	}
	*response = dump(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
	                           id, "result", result));
out:
	json_decref(req);
	return rc;
}

/* ---- public ----------------------------------------------------------- */

int skit_mcp_server_new(skit_mcp_server **out, const skit_mcp_options *opts,
                        skit_error *err)
{
	skit_mcp_server *srv;

	assert(out && opts);
	*out = NULL;
	if (opts->version != SKIT_MCP_OPTIONS_VERSION || !opts->registry)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "the MCP server needs a registry");
	srv = skitx_calloc(1, sizeof(*srv));
	if (!srv)
		return skit__error_oom(err);
	srv->reg = opts->registry;
	srv->policy = opts->policy;
	srv->allow_scripts = opts->allow_scripts;
	srv->max_message =
	        opts->max_message ? opts->max_message : DEFAULT_MAX_MESSAGE;
	srv->page_size = opts->page_size ? opts->page_size : DEFAULT_PAGE_SIZE;
	srv->watch_fd = -1;
	srv->workdir = opts->workdir ? skitx_strdup(opts->workdir) : NULL;
	srv->project_dir =
	        opts->project_dir ? skitx_strdup(opts->project_dir) : NULL;
	srv->sessions[0] = session_new();
	srv->nsessions = 1;
	if (!srv->sessions[0] || (opts->workdir && !srv->workdir) ||
	    (opts->project_dir && !srv->project_dir)) {
		skit_mcp_server_free(srv);
		return skit__error_oom(err);
	}
	srv->model = skitx_calloc(1, sizeof(*srv->model));
	if (srv->model) {
		srv->model->provider = &no_model;
		srv->model->name = skitx_strdup("mcp");
	}
	if (!srv->model || !srv->model->name) {
		skit_mcp_server_free(srv);
		return skit__error_oom(err);
	}
	*out = srv;
	return 0;
}

int skit_mcp_server_handle(skit_mcp_server *srv, const char *msg, size_t len,
                           char **response, skit_error *err)
{
	int rc;

	assert(srv && msg && response);
	rc = skit__mcp_handle(srv, srv->sessions[0], msg, len, response, err);
	return rc;
}

int skit_mcp_server_next_notification(skit_mcp_server *srv, char **out,
                                      skit_error *err)
{
	assert(srv && out);
	(void)err;
	*out = skit__mcp_next(srv->sessions[0]);
	return 0;
}

#ifdef __linux__
static void watch_dir(int fd, const char *dir)
{
	inotify_add_watch(fd, dir,
	                  IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
	                          IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF);
}

/* Watch every root and every folder in it (one level: a skill's
 * SKILL.md and its top-level files and folders). */
static void watch_all(skit_mcp_server *srv)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	for (size_t i = 0; i < skit_registry_root_count(srv->reg); i++) {
		const char *label = NULL, *path = NULL;
		bool exists = false;
		size_t nskills = 0;

		skit_registry_root(srv->reg, i, &label, &path, &exists,
		                   &nskills);
		if (!path || n++ >= WATCH_MAX)
			continue;
		watch_dir(srv->watch_fd, path);
		/* Every folder of the root, skill or not yet: a SKILL.md
		 * written into a new folder is a change too. */
		d = opendir(path);
		while (d && (de = readdir(d)) && n < WATCH_MAX) {
			struct stat st;
			char *sub;

			if (de->d_name[0] == '.')
				continue;
			sub = skitx_path_join(path, de->d_name);
			if (sub && !stat(sub, &st) && S_ISDIR(st.st_mode)) {
				watch_dir(srv->watch_fd, sub);
				n++;
			}
			skitx_free(sub);
		}
		if (d)
			closedir(d);
	}
}
#endif

int skit_mcp_server_watch(skit_mcp_server *srv, int *fd, skit_error *err)
{
	assert(srv && fd);
	*fd = -1;
#ifdef __linux__
	if (srv->watch_fd < 0) {
		srv->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (srv->watch_fd < 0)
			return skit__error_set(err, SKIT_EIO, 0, "inotify: %s",
			                       strerror(errno));
		watch_all(srv);
	}
	*fd = srv->watch_fd;
	return 0;
#else
	return skit__error_set(err, SKIT_EIO, 0,
	                       "watching folders needs inotify (Linux)");
#endif
}

int skit_mcp_server_changed(skit_mcp_server *srv, skit_error *err)
{
#ifdef __linux__
	union {
		struct inotify_event ev;
		char bytes[4096];
	} buf;
	bool changed = false;
	ssize_t n;
	int rc, fd;

	assert(srv);
	if (srv->watch_fd < 0)
		return 0;
	while ((n = read(srv->watch_fd, buf.bytes, sizeof(buf))) > 0)
		changed = true;
	if (!changed)
		return 0;
	/*
	 * Watches follow the folders as they come and go. They are set
	 * before the rescan, so that a change the scan misses (a SKILL.md
	 * written into a folder made a moment ago) raises a new event.
	 */
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, srv->watch_fd);
		close(fd);
		watch_all(srv);
	}
	rc = skit_registry_scan(srv->reg, err);
	if (rc)
		return rc;
	watch_all(srv); /* and the folders the scan found */
	for (size_t i = 0; i < srv->nsessions; i++) {
		struct skit__mcp_session *s = srv->sessions[i];

		if (!s->initialized)
			continue;
		/* Activated skills may be gone: their state starts over. */
		skit_agent_free(s->agent);
		s->agent = NULL;
		notify(s, "notifications/resources/list_changed", NULL);
		/* use_skill's description names the skills. */
		notify(s, "notifications/tools/list_changed", NULL);
		log_msg(s, 1, "skills changed on disk; rescanned");
	}
	return 0;
#else
	(void)srv, (void)err;
	return 0;
#endif
}

/* ---- stdio ------------------------------------------------------------ */

static int write_line(int fd, char *line)
{
	int rc;

	if (!line)
		return SKIT_ENOMEM;
	rc = skitx_fs_write_all(fd, line, strlen(line));
	if (!rc)
		rc = skitx_fs_write_all(fd, "\n", 1);
	skitx_free(line);
	return rc;
}

static int flush_queue(skit_mcp_server *srv, int out_fd)
{
	char *n;
	int rc = 0;

	while (!rc && (n = skit__mcp_next(srv->sessions[0])))
		rc = write_line(out_fd, n);
	return rc;
}

int skit_mcp_serve_stdio(skit_mcp_server *srv, int in_fd, int out_fd,
                         const volatile int *stop, skit_error *err)
{
	struct skit__mcp_io io = { 0 };
	struct skitx_buf in;
	bool discarding = false, eof = false;
	char chunk[65536];
	size_t used = 0;
	int rc = 0;

	assert(srv);
	skitx_buf_init(&in, 0);
	io.in_fd = in_fd;
	io.out_fd = out_fd;
	io.in = &in;
	io.used = &used;
	io.max_message = srv->max_message;
	io.stop = stop;
	srv->sessions[0]->io = &io;
	while (!rc && !eof) {
		struct pollfd pf[2] = { { in_fd, POLLIN, 0 },
			                { srv->watch_fd, POLLIN, 0 } };
		ssize_t n;
		char *nl, *resp, *copy;

		used = 0;
		if (stop && *stop) {
			rc = skit__error_set(err, SKIT_ECANCELED, 0, "stopped");
			break;
		}
		if (poll(pf, srv->watch_fd >= 0 ? 2 : 1, 200) < 0) {
			if (errno == EINTR)
				continue;
			rc = skit__error_set(err, SKIT_EIO, 0, "poll: %s",
			                     strerror(errno));
			break;
		}
		if (srv->watch_fd >= 0 && (pf[1].revents & POLLIN)) {
			skit_error we = { 0 };

			skit_mcp_server_changed(srv, &we);
			rc = flush_queue(srv, out_fd);
		}
		if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(in_fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			eof = true;
			break;
		}
		if (skitx_buf_add(&in, chunk, (size_t)n)) {
			rc = skit__error_oom(err);
			break;
		}
		while (!rc && (nl = memchr(skitx_buf_cstr(&in) + used, '\n',
		                           skitx_buf_len(&in) - used))) {
			const char *line = skitx_buf_cstr(&in) + used;
			size_t len = (size_t)(nl - line);

			used += len + 1;
			if (discarding) {
				discarding = false;
				rc = write_line(out_fd,
				                error_response(NULL,
				                               RPC_INVALID,
				                               "message too "
				                               "large"));
				continue;
			}
			if (len && line[len - 1] == '\r')
				len--;
			if (!len)
				continue;
			/* A call may read more input while it runs (asking
			 * the user: mcp_elicit.c), which moves `in`. */
			copy = skitx_strndup(line, len);
			if (!copy) {
				rc = skit__error_oom(err);
				break;
			}
			rc = skit__mcp_handle(srv, srv->sessions[0], copy, len,
			                      &resp, err);
			skitx_free(copy);
			if (!rc)
				rc = flush_queue(srv, out_fd);
			if (!rc && resp)
				rc = write_line(out_fd, resp);
		}
		/* Keep the unfinished line; drop it when past the cap. */
		if (used) {
			size_t rest = skitx_buf_len(&in) - used;

			memmove((char *)skitx_buf_cstr(&in),
			        skitx_buf_cstr(&in) + used, rest);
			skitx_buf_truncate(&in, rest);
		}
		if (skitx_buf_len(&in) > srv->max_message) {
			discarding = true;
			skitx_buf_clear(&in);
		}
		if (rc == SKIT_EIO)
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "writing the output: %s",
			                     strerror(errno));
	}
	srv->sessions[0]->io = NULL;
	skitx_buf_release(&in);
	return rc;
}

bool skit__mcp_scripts_allowed(const skit_mcp_server *srv)
{
	return srv->allow_scripts;
}

void skit_mcp_server_free(skit_mcp_server *srv)
{
	if (!srv)
		return;
	for (size_t i = 0; i < srv->nsessions; i++)
		session_free(srv->sessions[i]);
	if (srv->watch_fd >= 0)
		close(srv->watch_fd);
	skit_model_free(srv->model);
	skitx_free(srv->workdir);
	skitx_free(srv->project_dir);
	skitx_free(srv);
}
