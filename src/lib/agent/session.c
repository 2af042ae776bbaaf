/* SPDX-License-Identifier: MIT */
/*
 * session.c - the session file: the conversation kept as it grows, and
 * restored whole on a resume (include/skit/session.h).
 *
 * session.jsonl is one JSON object a line, each with a sequence number
 * `n` (0, 1, 2... with no gap) and a `type`:
 *
 *   session  the header: format "skit-session", version, id, skit's
 *            version, model, project, json_actions, resumed_from, title
 *   input    the user's text as typed (for listings)
 *   message  one message: role, text, calls [{id, name, arguments}],
 *            call_id, tool_name, is_error
 *   skill    a skill activated: name, source, dir, digest (its files'
 *            digest set, or null), text (what the model was given)
 *   plan     the whole plan: steps [{text, status}]
 *   usage    totals: input_tokens, output_tokens, turns, tool_calls,
 *            script_runs
 *   compact  the conversation was replaced: the `messages` records that
 *            follow are the whole conversation from here on
 *
 * Records are appended with one write() each through a descriptor opened
 * in the run folder without following links, so a kill -9 leaves at most
 * one record cut short at the end: a resume leaves that record out and
 * says so. Anything else that does not read (a bad line, a gap in `n`, a
 * record of an unknown type, a tool result with no call before it, a
 * header of another format version) refuses the whole file.
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skit/registry.h"
#include "lib/agent/approvals.h"
#include "lib/agent/audit_int.h"
#include "lib/agent/session.h"
#include "lib/core/error.h"
#include "lib/core/userconfig.h"
#include "lib/model/model_int.h"
#include "util/fs.h"
#include "util/path.h"

#define SESSION_FILE "session.jsonl"
#define FORMAT_NAME  "skit-session"
#define MAX_CALLS    128
#define TITLE_MAX    200

static const char *role_name(skit_role r)
{
	return r == SKIT_ROLE_USER        ? "user"
	       : r == SKIT_ROLE_ASSISTANT ? "assistant"
	                                  : "tool";
}

static const char *step_name(skit_step_status s)
{
	return s == SKIT_STEP_COMPLETED     ? "completed"
	       : s == SKIT_STEP_IN_PROGRESS ? "in_progress"
	                                    : "pending";
}

/* ---- writing ----------------------------------------------------------- */

static json_t *msg_json(const struct agent_msg *m)
{
	json_t *o = json_pack("{s:s, s:s}", "type", "message", "role",
	                      role_name(m->role));

	if (!o)
		return NULL;
	if (m->text)
		json_object_set_new(o, "text", json_string(m->text));
	if (m->ncalls) {
		json_t *calls = json_array();

		for (size_t i = 0; calls && i < m->ncalls; i++)
			json_array_append_new(
			        calls, json_pack("{s:s, s:s, s:s}", "id",
			                         m->calls[i].id, "name",
			                         m->calls[i].name, "arguments",
			                         m->calls[i].arguments));
		json_object_set_new(o, "calls", calls);
	}
	if (m->call_id)
		json_object_set_new(o, "call_id", json_string(m->call_id));
	if (m->tool_name)
		json_object_set_new(o, "tool_name", json_string(m->tool_name));
	if (m->is_error)
		json_object_set_new(o, "is_error", json_true());
	return o;
}

/* One record into `out` (a line), numbered from *seq. Steals `o`. */
static int add_record(struct skitx_buf *out, unsigned long long *seq, json_t *o)
{
	char *text;
	int rc;

	if (!o)
		return SKIT_ENOMEM;
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
	                             JSON_ENSURE_ASCII);
	json_decref(o);
	if (!text)
		return SKIT_ENOMEM;
	/* `n` first, so a reader sees the order at a glance: the object's
	 * text with the member spliced in after its brace. */
	rc = skitx_buf_printf(out, "{\"n\":%llu%s%s\n", *seq,
	                      text[1] == '}' ? "" : ",", text + 1)
	             ? SKIT_ENOMEM
	             : 0;
	free(text);
	if (!rc)
		(*seq)++;
	return rc;
}

static json_t *plan_json(const struct skit_agent *a)
{
	json_t *steps = json_array();

	for (size_t i = 0; steps && i < a->tc.nplan; i++)
		json_array_append_new(
		        steps,
		        json_pack("{s:s, s:s}", "text", a->tc.plan[i].text,
		                  "status", step_name(a->tc.plan[i].status)));
	return json_pack("{s:s, s:o}", "type", "plan", "steps", steps);
}

static json_t *usage_json(const struct skit_agent *a)
{
	return json_pack(
	        "{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "type", "usage",
	        "input_tokens", (json_int_t)a->stats.usage.input_tokens,
	        "output_tokens", (json_int_t)a->stats.usage.output_tokens,
	        "turns", (json_int_t)a->stats.turns, "tool_calls",
	        (json_int_t)a->stats.tool_calls, "script_runs",
	        (json_int_t)a->stats.script_runs, "compactions",
	        (json_int_t)a->compactions);
}

static json_t *skill_json(const struct skit_agent *a, size_t i)
{
	const struct skit__active_skill *s = &a->active[i];
	const struct agent_skill_text *t =
	        i < a->ntext ? &a->active_text[i] : NULL;
	skit_error e = { 0 };
	char digest[65];
	bool have = t && t->has_digest;

	/* Taken at activation with a session file; else (a session saved
	 * by a program without a trail) now. */
	if (have)
		memcpy(digest, t->digest, sizeof(digest));
	else
		have = !skit__skill_digest_set(skit_skill_dir(s->skill), digest,
		                               &e);
	return json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?}", "type", "skill",
	                 "name", s->name, "source", s->source, "dir",
	                 skit_skill_dir(s->skill), "digest",
	                 have ? digest : NULL, "text", t ? t->text : NULL);
}

static json_t *header_json(const struct skit_agent *a, const char *id)
{
	char model[600];

	snprintf(model, sizeof(model), "%s:%s", skit_model_provider(a->model),
	         skit_model_name(a->model));
	return json_pack("{s:s, s:s, s:i, s:s?, s:s, s:s, s:s, s:b, s:s?, "
	                 "s:s?}",
	                 "type", "session", "format", FORMAT_NAME, "version",
	                 SKIT_SESSION_FORMAT_VERSION, "id", id, "skit",
	                 skit_version(), "model", model, "project",
	                 a->project_dir, "json_actions", a->json_actions,
	                 "resumed_from", a->resumed_from, "title",
	                 a->session_title);
}

/*
 * The state record `o` (stolen), unless `last` holds the text it was last
 * written with (then `last` is updated); with `last` NULL, always.
 */
static int add_state_record(struct skitx_buf *out, unsigned long long *seq,
                            json_t *o, char **last)
{
	char *text;
	int rc = 0;

	if (!o)
		return SKIT_ENOMEM;
	if (!last)
		return add_record(out, seq, o);
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text) {
		json_decref(o);
		return SKIT_ENOMEM;
	}
	if (*last && !strcmp(*last, text)) {
		json_decref(o);
	} else {
		rc = add_record(out, seq, o);
		skitx_free(*last);
		*last = rc ? NULL : skitx_strdup(text);
		if (!rc && !*last)
			rc = SKIT_ENOMEM;
	}
	free(text);
	return rc;
}

/* The plan (once there is one) and the usage; with `track`, only what
 * changed since the live file last had them. */
static int add_state(struct skit_agent *a, struct skitx_buf *out,
                     unsigned long long *seq, bool track)
{
	int rc = 0;

	if (a->tc.nplan || (track && a->session_plan))
		rc = add_state_record(out, seq, plan_json(a),
		                      track ? &a->session_plan : NULL);
	if (!rc)
		rc = add_state_record(out, seq, usage_json(a),
		                      track ? &a->session_usage : NULL);
	return rc;
}

static void session_failed(struct skit_agent *a, int rc, const char *what)
{
	if (a->audit_rc)
		return;
	a->audit_rc = rc;
	skit__error_set(&a->audit_err, rc, rc == SKIT_EIO ? errno : 0,
	                "session.jsonl: %s", what);
}

/* Append `b` to the file in one write. */
static void session_write(struct skit_agent *a, struct skitx_buf *b)
{
	if (a->session_fd < 0 || !skitx_buf_len(b))
		return;
	/* The trail's secrets (the API key) never reach this file either. */
	if (skit__audit_redact_buf(a->audit, b)) {
		session_failed(a, SKIT_ENOMEM, "out of memory");
		return;
	}
	if (skitx_fs_write_all(a->session_fd, skitx_buf_cstr(b),
	                       skitx_buf_len(b)))
		session_failed(a, SKIT_EIO, strerror(errno));
}

void skit__session_flush(struct skit_agent *a)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	unsigned long long seq = a->session_seq;
	size_t i;
	int rc = 0;

	if (a->session_fd < 0)
		return;
	for (i = a->session_written; !rc && i < a->nmsgs; i++)
		rc = add_record(&b, &seq, msg_json(&a->msgs[i]));
	if (!rc)
		rc = add_state(a, &b, &seq, true);
	if (rc) {
		session_failed(a, rc, "out of memory");
	} else {
		session_write(a, &b);
		a->session_written = a->nmsgs;
		a->session_seq = seq;
	}
	skitx_buf_release(&b);
}

void skit__session_input(struct skit_agent *a, const char *input)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t n = strcspn(input, "\n");

	if (!a->session_title) {
		a->session_title =
		        skitx_strndup(input, n > TITLE_MAX ? TITLE_MAX : n);
		if (!a->session_title) {
			session_failed(a, SKIT_ENOMEM, "out of memory");
			return;
		}
	}
	if (a->session_fd < 0)
		return;
	skit__session_flush(a);
	if (add_record(&b, &a->session_seq,
	               json_pack("{s:s, s:s}", "type", "input", "text", input)))
		session_failed(a, SKIT_ENOMEM, "out of memory");
	else
		session_write(a, &b);
	skitx_buf_release(&b);
}

void skit__session_skill(struct skit_agent *a, size_t i, const char *text,
                         const char *digest)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	struct agent_skill_text *t;
	skit_error e = { 0 };
	char *copy;

	if (a->ntext < a->nactive) {
		t = skitx_realloc(a->active_text, a->nactive * sizeof(*t));
		if (!t) {
			session_failed(a, SKIT_ENOMEM, "out of memory");
			return;
		}
		memset(t + a->ntext, 0, (a->nactive - a->ntext) * sizeof(*t));
		a->active_text = t;
		a->ntext = a->nactive;
	}
	copy = skitx_strdup(text);
	if (!copy) {
		session_failed(a, SKIT_ENOMEM, "out of memory");
		return;
	}
	t = &a->active_text[i];
	skitx_free(t->text);
	t->text = copy;
	/* The digest set of its files as the model got it: a resume sees
	 * from it whether the skill changed since. Without a session file
	 * it is taken only if the session is saved (skill_json()). */
	if (digest)
		memcpy(t->digest, digest, sizeof(t->digest));
	t->has_digest =
	        digest ||
	        (a->session_fd >= 0 &&
	         !skit__skill_digest_set(skit_skill_dir(a->active[i].skill),
	                                 t->digest, &e));
	if (a->session_fd < 0)
		return;
	skit__session_flush(a);
	if (add_record(&b, &a->session_seq, skill_json(a, i)))
		session_failed(a, SKIT_ENOMEM, "out of memory");
	else
		session_write(a, &b);
	skitx_buf_release(&b);
}

/* Every record of the session as it stands, from the header on; with
 * `track`, for the live file (what its state records hold is kept). */
static int whole_session(struct skit_agent *a, const char *id,
                         struct skitx_buf *b, unsigned long long *seq,
                         bool track)
{
	int rc;

	rc = add_record(b, seq, header_json(a, id));
	for (size_t i = 0; !rc && i < a->nactive; i++)
		rc = add_record(b, seq, skill_json(a, i));
	if (!rc)
		rc = add_state(a, b, seq, track);
	if (!rc && a->compactions)
		rc = add_record(b, seq,
		                json_pack("{s:s, s:s, s:I}", "type", "compact",
		                          "reason", "resumed", "messages",
		                          (json_int_t)a->nmsgs));
	for (size_t i = 0; !rc && i < a->nmsgs; i++)
		rc = add_record(b, seq, msg_json(&a->msgs[i]));
	return rc;
}

void skit__session_rewritten(struct skit_agent *a, const char *reason)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	unsigned long long seq = a->session_seq;
	int rc;

	if (a->session_fd < 0)
		return;
	rc = add_record(&b, &seq,
	                json_pack("{s:s, s:s, s:I}", "type", "compact",
	                          "reason", reason, "messages",
	                          (json_int_t)a->nmsgs));
	for (size_t i = 0; !rc && i < a->nmsgs; i++)
		rc = add_record(&b, &seq, msg_json(&a->msgs[i]));
	if (!rc)
		rc = add_state(a, &b, &seq, true);
	if (rc) {
		session_failed(a, rc, "out of memory");
	} else {
		session_write(a, &b);
		a->session_written = a->nmsgs;
		a->session_seq = seq;
	}
	skitx_buf_release(&b);
}

int skit_agent_session_save(const skit_agent *agent, const char *path,
                            skit_error *err)
{
	/* Untracked: the agent's state is only read. */
	struct skit_agent *a = (struct skit_agent *)agent;
	struct skitx_buf b = SKITX_BUF_INIT;
	unsigned long long seq = 0;
	int rc;

	if (!agent || !path)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "an agent and a path are needed");
	rc = whole_session(a, skit_agent_session_id(a), &b, &seq, false);
	if (rc) {
		skitx_buf_release(&b);
		return skit__error_oom(err);
	}
	rc = skitx_fs_write_atomic(path, skitx_buf_cstr(&b), skitx_buf_len(&b),
	                           0600);
	skitx_buf_release(&b);
	if (rc)
		return skit__error_set(err, SKIT_EIO, errno, "%s: %s", path,
		                       strerror(errno));
	return 0;
}

/* ---- the ledger --------------------------------------------------------- */

/*
 * The sessions this user's skit made: their ids, one a line, in
 * `sessions` beside the user config (a folder no sandboxed program may
 * write). A repository can carry a planted `.agents/runs`; checked out
 * under `umask 077` its session files are private like skit's own, so
 * from the trail of a project the user does not trust only a session of
 * the ledger is taken (session_mine()).
 */
#define LEDGER_MAX (8u * 1024 * 1024) /* bytes read, from its end */

static char *ledger_path(void)
{
	char *cfg = NULL, *dir, *path;

	if (skit__user_config_path(&cfg) || !cfg)
		return NULL;
	dir = skitx_path_dirname(cfg);
	skitx_free(cfg);
	path = dir ? skitx_path_join(dir, "sessions") : NULL;
	skitx_free(dir);
	return path;
}

/* Record `id`; best effort (a session that is not recorded can still be
 * resumed where the project is trusted, or from another runs folder). */
static void ledger_add(const char *id)
{
	char *path = ledger_path(),
	     *dir = path ? skitx_path_dirname(path) : NULL;
	int fd = -1;

	if (dir && !skitx_fs_mkdir_p(dir, 0700))
		fd = open(path,
		          O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		                  O_CLOEXEC,
		          0600);
	if (fd >= 0) {
		size_t n = strlen(id);
		char line[80];
		ssize_t w;

		if (n < sizeof(line) - 1) {
			memcpy(line, id, n);
			line[n] = '\n';
			(void)flock(fd, LOCK_EX);
			w = write(fd, line, n + 1); /* best effort, as above */
			(void)w;
		}
		close(fd);
	}
	skitx_free(dir);
	skitx_free(path);
}

/* Whether the ledger holds `id`. */
static bool ledger_has(const char *id)
{
	char *path = ledger_path(), *buf = NULL;
	size_t n = strlen(id);
	bool found = false;
	struct stat st;
	off_t from;
	ssize_t got;
	int fd;

	fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	skitx_free(path);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !n) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	from = st.st_size > (off_t)LEDGER_MAX ? st.st_size - LEDGER_MAX : 0;
	buf = skitx_malloc((size_t)(st.st_size - from) + 2);
	got = buf ? pread(fd, buf + 1, (size_t)(st.st_size - from), from) : -1;
	close(fd);
	if (got >= 0) {
		buf[0] = '\n';
		buf[got + 1] = '\0';
		for (const char *p = buf; !found && (p = strstr(p, id)); p++)
			found = p[-1] == '\n' && p[n] == '\n';
	}
	skitx_free(buf);
	return found;
}

/*
 * Whether the session file `file`, of id `id` and project `project` (the
 * header's), may be taken. Only a file in its project's own trail
 * (`.agents/runs`, where `--continue` looks) can be a session a
 * repository carries; one there is taken when the ledger holds it, or
 * when the user trusts the project (its files are the user's to vouch
 * for). A file elsewhere (another runs folder, a program's own path) is
 * the user's choice.
 */
static bool session_mine(const char *file, const char *id, const char *project)
{
	char *f, *trail, *tr = NULL;
	bool inside, trusted = false;
	size_t n;

	if (!project || !*project)
		return true;
	trail = skitx_path_join(project, ".agents/runs");
	f = realpath(file, NULL);
	if (trail)
		tr = realpath(trail, NULL);
	skitx_free(trail);
	n = tr ? strlen(tr) : 0;
	inside = f && tr && !strncmp(f, tr, n) && f[n] == '/';
	free(f); /* realpath(3) allocates with malloc */
	free(tr);
	if (!inside || (id && *id && ledger_has(id)))
		return true;
	return !skit_trust_check(&trusted, project, NULL) && trusted;
}

/* ---- reading ----------------------------------------------------------- */

struct loaded_skill {
	char *name, *source, *dir, *digest, *text;
};

/* A session file, read and checked, before anything is applied. */
struct loaded {
	json_t *header;
	struct agent_msg *msgs;
	size_t nmsgs, cap;
	struct loaded_skill *skills;
	size_t nskills;
	json_t *plan; /* the last plan record's steps */
	json_t *usage;
	char *title;
	unsigned int compactions;
	bool truncated;
};

static void loaded_release(struct loaded *l)
{
	json_decref(l->header);
	for (size_t i = 0; i < l->nmsgs; i++)
		skit__agent_msg_release(&l->msgs[i]);
	skitx_free(l->msgs);
	for (size_t i = 0; i < l->nskills; i++) {
		skitx_free(l->skills[i].name);
		skitx_free(l->skills[i].source);
		skitx_free(l->skills[i].dir);
		skitx_free(l->skills[i].digest);
		skitx_free(l->skills[i].text);
	}
	skitx_free(l->skills);
	json_decref(l->plan);
	json_decref(l->usage);
	skitx_free(l->title);
	memset(l, 0, sizeof(*l));
}

static void clear_msgs(struct loaded *l)
{
	for (size_t i = 0; i < l->nmsgs; i++)
		skit__agent_msg_release(&l->msgs[i]);
	l->nmsgs = 0;
}

static char *dup_opt(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? skitx_strdup(json_string_value(v)) : NULL;
}

/* One "message" record into l->msgs; a description of what is wrong in
 * `why` (returns SKIT_EINVALID), or SKIT_ENOMEM. */
static int read_message(struct loaded *l, json_t *o, const char **why,
                        bool json_actions)
{
	const char *role = json_string_value(json_object_get(o, "role"));
	json_t *text = json_object_get(o, "text");
	json_t *calls = json_object_get(o, "calls");
	struct agent_msg *m;
	skit_role r;

	if (!role)
		return *why = "a message without a role", SKIT_EINVALID;
	if (!strcmp(role, "user"))
		r = SKIT_ROLE_USER;
	else if (!strcmp(role, "assistant"))
		r = SKIT_ROLE_ASSISTANT;
	else if (!strcmp(role, "tool"))
		r = SKIT_ROLE_TOOL;
	else
		return *why = "a message of an unknown role", SKIT_EINVALID;
	if (text && !json_is_string(text))
		return *why = "a message whose text is not a string",
		       SKIT_EINVALID;
	if (!text && r != SKIT_ROLE_ASSISTANT)
		return *why = "a message without text", SKIT_EINVALID;
	if (calls && (r != SKIT_ROLE_ASSISTANT || !json_is_array(calls) ||
	              json_array_size(calls) > MAX_CALLS))
		return *why = "malformed tool calls", SKIT_EINVALID;
	if (r == SKIT_ROLE_TOOL) {
		const struct agent_msg *prev =
		        l->nmsgs ? &l->msgs[l->nmsgs - 1] : NULL;

		if (json_actions)
			return *why = "a tool message in a session of the "
			              "JSON action protocol",
			       SKIT_EINVALID;
		if (!json_is_string(json_object_get(o, "call_id")) ||
		    !json_is_string(json_object_get(o, "tool_name")))
			return *why = "a tool result without its call",
			       SKIT_EINVALID;
		if (!prev ||
		    !(prev->role == SKIT_ROLE_TOOL ||
		      (prev->role == SKIT_ROLE_ASSISTANT && prev->ncalls)))
			return *why = "a tool result that answers no call",
			       SKIT_EINVALID;
	}
	if (l->nmsgs == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct agent_msg *g = skitx_realloc(l->msgs, cap * sizeof(*g));

		if (!g)
			return SKIT_ENOMEM;
		l->msgs = g;
		l->cap = cap;
	}
	m = &l->msgs[l->nmsgs++];
	memset(m, 0, sizeof(*m));
	m->role = r;
	if (text && !(m->text = skitx_strdup(json_string_value(text))))
		return SKIT_ENOMEM;
	if (r == SKIT_ROLE_TOOL) {
		m->call_id = dup_opt(o, "call_id");
		m->tool_name = dup_opt(o, "tool_name");
		m->is_error = json_is_true(json_object_get(o, "is_error"));
		if (!m->call_id || !m->tool_name)
			return SKIT_ENOMEM;
	}
	if (calls && json_array_size(calls)) {
		size_t n = json_array_size(calls), i;
		json_t *c;

		m->calls = skitx_calloc(n, sizeof(*m->calls));
		if (!m->calls)
			return SKIT_ENOMEM;
		json_array_foreach(calls, i, c)
		{
			const char *id =
			        json_string_value(json_object_get(c, "id"));
			const char *name =
			        json_string_value(json_object_get(c, "name"));
			const char *args = json_string_value(
			        json_object_get(c, "arguments"));

			if (!id || !name || !args)
				return *why = "malformed tool calls",
				       SKIT_EINVALID;
			m->calls[i].id = skitx_strdup(id);
			m->calls[i].name = skitx_strdup(name);
			m->calls[i].arguments = skitx_strdup(args);
			m->ncalls = i + 1;
			if (!m->calls[i].id || !m->calls[i].name ||
			    !m->calls[i].arguments)
				return SKIT_ENOMEM;
		}
	}
	return 0;
}

static int read_skill(struct loaded *l, json_t *o, const char **why)
{
	struct loaded_skill *g, *s = NULL;
	const char *name = json_string_value(json_object_get(o, "name"));
	json_t *digest = json_object_get(o, "digest");

	if (!name || !json_is_string(json_object_get(o, "source")) ||
	    !json_is_string(json_object_get(o, "dir")) ||
	    (digest && !json_is_string(digest) && !json_is_null(digest)))
		return *why = "a malformed skill record", SKIT_EINVALID;
	/* A skill activated again replaces its record. */
	for (size_t i = 0; i < l->nskills; i++)
		if (!strcmp(l->skills[i].name, name))
			s = &l->skills[i];
	if (!s) {
		g = skitx_realloc(l->skills, (l->nskills + 1) * sizeof(*g));
		if (!g)
			return SKIT_ENOMEM;
		l->skills = g;
		s = &l->skills[l->nskills++];
		memset(s, 0, sizeof(*s));
	} else {
		skitx_free(s->name);
		skitx_free(s->source);
		skitx_free(s->dir);
		skitx_free(s->digest);
		skitx_free(s->text);
		memset(s, 0, sizeof(*s));
	}
	s->name = dup_opt(o, "name");
	s->source = dup_opt(o, "source");
	s->dir = dup_opt(o, "dir");
	s->digest = dup_opt(o, "digest");
	s->text = dup_opt(o, "text");
	return s->name && s->source && s->dir ? 0 : SKIT_ENOMEM;
}

/* `key` of `o` is absent, null or a string. */
static bool str_or_null(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return !v || json_is_null(v) || json_is_string(v);
}

/* The first line `o` (NULL when it is not JSON). */
static int read_header(json_t *o, const char *path, skit_error *err)
{
	const char *format = json_string_value(json_object_get(o, "format"));
	json_t *version = json_object_get(o, "version");
	const char *type = json_string_value(json_object_get(o, "type"));
	json_t *n = json_object_get(o, "n");

	if (!json_is_object(o) || !type || strcmp(type, "session") || !format ||
	    strcmp(format, FORMAT_NAME))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s is not a skit session file; it was "
		                       "not loaded",
		                       path);
	if (!json_is_integer(version) ||
	    json_integer_value(version) != SKIT_SESSION_FORMAT_VERSION) {
		const char *by = json_string_value(json_object_get(o, "skit"));

		return skit__error_set(
		        err, SKIT_EINVALID, 0,
		        "%s was written by skit %s in session "
		        "format %lld; this skit (%s) reads "
		        "format %d only; it was not loaded",
		        path, by ? by : "(unknown)",
		        json_is_integer(version)
		                ? (long long)json_integer_value(version)
		                : -1LL,
		        skit_version(), SKIT_SESSION_FORMAT_VERSION);
	}
	if (!json_is_integer(n) || json_integer_value(n) != 0 ||
	    !str_or_null(o, "id") || !str_or_null(o, "title") ||
	    !str_or_null(o, "resumed_from"))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: line 1: a malformed header; it was "
		                       "not loaded",
		                       path);
	return 0;
}

/* Read and check the whole file `path` into `l`. */
static int session_read(const char *path, struct loaded *l, skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	const char *p, *end, *why = NULL;
	unsigned long long line = 0;
	struct stat st;
	bool json_actions = false;
	int fd, rc;

	memset(l, 0, sizeof(*l));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return skit__error_set(
		        err, errno == ENOENT ? SKIT_ENOTFOUND : SKIT_EIO, errno,
		        "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s is not a regular file", path);
	}
	/* skit writes sessions 0600 for their owner: a file others may
	 * read or write, or someone else's, was not written by this user's
	 * skit (a repository can carry a planted .agents/runs; git checks
	 * files out 0644), and a conversation is never taken from it. */
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return skit__error_set(err, SKIT_EUNSAFE, 0,
		                       "%s is %s (mode %03o): skit writes its "
		                       "sessions private (0600), so this one "
		                       "was not written by your skit; it was "
		                       "not loaded",
		                       path,
		                       st.st_uid != geteuid()
		                               ? "not yours"
		                               : "open to other users",
		                       (unsigned int)(st.st_mode & 0777));
	}
	rc = skitx_fs_read_fd(fd, &b, SKIT_SESSION_MAX_BYTES);
	close(fd);
	if (rc == SKIT_ETOOBIG)
		return skit__error_set(err, rc, 0,
		                       "%s is larger than %u bytes; it was not "
		                       "loaded",
		                       path, SKIT_SESSION_MAX_BYTES);
	if (rc) {
		skitx_buf_release(&b);
		return skit__error_set(err, rc, errno, "%s: cannot read it",
		                       path);
	}
	p = skitx_buf_cstr(&b);
	end = p + skitx_buf_len(&b);
	rc = 0;
	while (!rc && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		json_error_t jerr;
		json_t *o, *n;
		const char *type;

		if (!nl) {
			/* What a crash leaves: one record cut short. */
			l->truncated = true;
			break;
		}
		line++;
		o = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES,
		               &jerr);
		p = nl + 1;
		n = o ? json_object_get(o, "n") : NULL;
		type = o ? json_string_value(json_object_get(o, "type")) : NULL;
		if (line == 1) {
			/* err says what is wrong with it */
			rc = read_header(o, path, err);
			if (!rc &&
			    !session_mine(
			            path,
			            json_string_value(json_object_get(o, "id")),
			            json_string_value(
			                    json_object_get(o, "project"))))
				rc = skit__error_set(
				        err, SKIT_EUNSAFE, 0,
				        "%s is not a session your skit made (it "
				        "is not in its ledger) and its project is "
				        "not a trusted folder: a repository can "
				        "carry one; it was not loaded",
				        path);
			if (!rc) {
				json_actions = json_is_true(
				        json_object_get(o, "json_actions"));
				l->header = json_incref(o);
				l->title = dup_opt(o, "title");
				if (!l->title &&
				    json_is_string(json_object_get(o, "title")))
					rc = SKIT_ENOMEM;
			}
		} else if (!json_is_object(o)) {
			why = "not a JSON object";
		} else if (!json_is_integer(n) ||
		           (unsigned long long)json_integer_value(n) !=
		                   line - 1) {
			why = "a record out of sequence (a line is missing or "
			      "repeated)";
		} else if (!type) {
			why = "a record without a type";
		} else if (!strcmp(type, "message")) {
			rc = read_message(l, o, &why, json_actions);
		} else if (!strcmp(type, "input")) {
			json_t *t = json_object_get(o, "text");

			if (!json_is_string(t))
				why = "a malformed input record";
			else if (!l->title) {
				const char *s = json_string_value(t);
				size_t k = strcspn(s, "\n");

				l->title = skitx_strndup(
				        s, k > TITLE_MAX ? TITLE_MAX : k);
				if (!l->title)
					rc = SKIT_ENOMEM;
			}
		} else if (!strcmp(type, "skill")) {
			rc = read_skill(l, o, &why);
		} else if (!strcmp(type, "plan")) {
			json_t *steps = json_object_get(o, "steps");

			if (!json_is_array(steps) ||
			    json_array_size(steps) > 50)
				why = "a malformed plan";
			json_decref(l->plan);
			l->plan = json_incref(steps);
		} else if (!strcmp(type, "usage")) {
			json_decref(l->usage);
			l->usage = json_incref(o);
		} else if (!strcmp(type, "compact")) {
			clear_msgs(l);
			l->compactions++;
		} else {
			why = "a record of a type this skit does not know";
		}
		json_decref(o);
		if (why)
			rc = SKIT_EINVALID;
		if (rc == SKIT_EINVALID && why)
			skit__error_set(err, rc, 0,
			                "%s: line %llu: %s; the session was "
			                "not loaded",
			                path, line, why);
		else if (rc == SKIT_ENOMEM)
			skit__error_oom(err);
	}
	if (!rc && !l->header)
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: empty; the session was not loaded",
		                     path);
	skitx_buf_release(&b);
	if (rc)
		loaded_release(l);
	return rc;
}

int skit_session_check(const char *path, skit_session_info *info,
                       skit_error *err)
{
	struct loaded l;
	int rc;

	if (info)
		memset(info, 0, sizeof(*info));
	if (!path)
		return skit__error_set(err, SKIT_EUSAGE, 0, "no path");
	rc = session_read(path, &l, err);
	if (rc)
		return rc;
	if (info) {
		info->id = dup_opt(l.header, "id");
		info->resumed_from = dup_opt(l.header, "resumed_from");
		info->model = dup_opt(l.header, "model");
		info->project = dup_opt(l.header, "project");
		info->first_line = l.title ? skitx_strdup(l.title) : NULL;
		info->messages = l.nmsgs;
		info->skills = l.nskills;
		info->compactions = l.compactions;
		info->truncated = l.truncated;
	}
	loaded_release(&l);
	return 0;
}

void skit_session_info_release(skit_session_info *info)
{
	if (!info)
		return;
	skitx_free(info->id);
	skitx_free(info->resumed_from);
	skitx_free(info->model);
	skitx_free(info->project);
	skitx_free(info->first_line);
	memset(info, 0, sizeof(*info));
}

/* ---- restoring --------------------------------------------------------- */

/* Answer calls left without a result, and a question left without a
 * reply, so the conversation the model gets again is well-formed. */
static int close_open_turns(struct skit_agent *a, skit_error *err)
{
	struct agent_msg *last = a->nmsgs ? &a->msgs[a->nmsgs - 1] : NULL;

	if (last && last->role == SKIT_ROLE_ASSISTANT && last->ncalls &&
	    !a->json_actions) {
		size_t n = last->ncalls;
		skit_tool_call *calls = last->calls;

		for (size_t i = 0; i < n; i++) {
			int rc = skit__agent_push_result(
			        a, &calls[i],
			        "Not run: the session stopped before this "
			        "call's result was recorded.",
			        true, err);

			if (rc)
				return rc;
		}
		last = &a->msgs[a->nmsgs - 1];
	} else if (last && last->role == SKIT_ROLE_TOOL) {
		/* Results of every call, and no reply after them: fine. */
		return 0;
	}
	if (last && last->role == SKIT_ROLE_USER)
		return skit__agent_push_text(
		        a, SKIT_ROLE_ASSISTANT,
		        "[No reply: the session stopped before the model "
		        "answered this message.]",
		        err);
	return 0;
}

static int restore_plan(struct skit_agent *a, json_t *steps)
{
	size_t n = json_array_size(steps), i;
	struct skit__plan_step *plan;
	json_t *s;

	if (!n)
		return 0;
	plan = skitx_calloc(n, sizeof(*plan));
	if (!plan)
		return SKIT_ENOMEM;
	json_array_foreach(steps, i, s)
	{
		const char *text =
		        json_string_value(json_object_get(s, "text"));
		const char *st =
		        json_string_value(json_object_get(s, "status"));

		plan[i].text = skitx_strdup(text ? text : "");
		plan[i].status =
		        !st                          ? SKIT_STEP_PENDING
		        : !strcmp(st, "completed")   ? SKIT_STEP_COMPLETED
		        : !strcmp(st, "in_progress") ? SKIT_STEP_IN_PROGRESS
		                                     : SKIT_STEP_PENDING;
		if (!plan[i].text) {
			for (size_t k = 0; k < i; k++)
				skitx_free(plan[k].text);
			skitx_free(plan);
			return SKIT_ENOMEM;
		}
	}
	a->tc.plan = plan;
	a->tc.nplan = n;
	return 0;
}

static uint64_t usage_of(json_t *usage, const char *key)
{
	json_t *v = json_object_get(usage, key);

	return json_is_integer(v) && json_integer_value(v) > 0
	               ? (uint64_t)json_integer_value(v)
	               : 0;
}

static int restore(struct skit_agent *a, struct loaded *l, const char *path,
                   skit_error *err)
{
	struct skitx_buf note = SKITX_BUF_INIT;
	json_t *kept = json_array(), *changed = json_array(),
	       *dropped = json_array();
	int rc = 0;

	if (json_is_true(json_object_get(l->header, "json_actions")) !=
	    a->json_actions) {
		rc = skit__error_set(err, SKIT_EUSAGE, 0,
		                     "%s was held %s the JSON action protocol; "
		                     "resume it %s --json-actions",
		                     path, a->json_actions ? "without" : "with",
		                     a->json_actions ? "without" : "with");
		goto out;
	}
	/* The conversation moves over whole. */
	a->msgs = l->msgs;
	a->nmsgs = l->nmsgs;
	a->msgs_cap = l->cap;
	l->msgs = NULL;
	l->nmsgs = l->cap = 0;
	a->resumed_from = dup_opt(l->header, "id");
	if (!a->resumed_from) {
		/* A session saved without a trail: name it by its file. */
		a->resumed_from = skitx_strdup(path);
	}
	a->session_title = l->title;
	l->title = NULL;
	a->compactions = l->compactions;
	if (!a->resumed_from || !kept || !changed || !dropped) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = restore_plan(a, l->plan);
	if (rc) {
		rc = skit__error_oom(err);
		goto out;
	}
	a->stats.usage.input_tokens = usage_of(l->usage, "input_tokens");
	a->stats.usage.output_tokens = usage_of(l->usage, "output_tokens");
	a->stats.turns = (unsigned int)usage_of(l->usage, "turns");
	a->stats.tool_calls = (unsigned int)usage_of(l->usage, "tool_calls");
	a->stats.script_runs = (unsigned int)usage_of(l->usage, "script_runs");
	a->tc.script_runs = a->stats.script_runs;
	for (size_t i = 0; !rc && i < l->nskills; i++) {
		struct loaded_skill *s = &l->skills[i];
		enum skit__restored how;

		rc = skit__agent_restore_skill(a, s->name, s->source, s->digest,
		                               s->text, &note, &how, err);
		if (!rc)
			json_array_append_new(how == SKIT_RESTORED_KEPT ? kept
			                      : how == SKIT_RESTORED_CHANGED
			                              ? changed
			                              : dropped,
			                      json_string(s->name));
	}
	if (!rc)
		rc = close_open_turns(a, err);
	if (!rc && skitx_buf_len(&note)) {
		a->resume_note = skitx_buf_detach(&note, NULL);
		if (!a->resume_note)
			rc = skit__error_oom(err);
	}
	if (!rc) {
		a->resume_event =
		        json_pack("{s:s, s:s, s:I, s:O, s:O, s:O, s:b}", "from",
		                  a->resumed_from, "file", path, "messages",
		                  (json_int_t)a->nmsgs, "skills_kept", kept,
		                  "skills_changed", changed, "skills_dropped",
		                  dropped, "truncated", l->truncated);
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "resumed session %s: %zu messages, %zu "
		                  "skill(s) active%s",
		                  a->resumed_from, a->nmsgs, a->nactive,
		                  l->truncated ? " (its last record, cut "
		                                 "short by a crash, was "
		                                 "left out)"
		                               : "");
	}
out:
	json_decref(kept);
	json_decref(changed);
	json_decref(dropped);
	skitx_buf_release(&note);
	return rc;
}

int skit__session_start(struct skit_agent *a, const char *resume,
                        skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int rc;

	a->session_fd = -1;
	/* The skills layer for a host's loop (agent_host.c) holds no
	 * conversation: no session. */
	if (!a->model->provider)
		return 0;
	if (resume) {
		struct loaded l;

		rc = session_read(resume, &l, err);
		if (rc)
			return rc;
		rc = restore(a, &l, resume, err);
		loaded_release(&l);
		if (rc)
			return rc;
	}
	if (!a->audit)
		return 0;
	a->session_fd = openat(skit__audit_dirfd(a->audit), SESSION_FILE,
	                       O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
	                               O_NOFOLLOW | O_CLOEXEC,
	                       0600);
	if (a->session_fd < 0)
		return skit__error_set(err, SKIT_EIO, errno, "%s/%s: %s",
		                       skit_audit_dir(a->audit), SESSION_FILE,
		                       strerror(errno));
	rc = whole_session(a, skit_audit_id(a->audit), &b, &a->session_seq,
	                   true);
	if (rc) {
		skitx_buf_release(&b);
		return skit__error_oom(err);
	}
	session_write(a, &b);
	skitx_buf_release(&b);
	ledger_add(skit_audit_id(a->audit));
	a->session_written = a->nmsgs;
	if (a->audit_rc)
		return skit__error_set(err, a->audit_rc, 0, "%s",
		                       a->audit_err.message);
	return 0;
}

void skit__session_run_started(struct skit_agent *a)
{
	if (a->resume_event) {
		skit__agent_audit(a, "session_resumed", a->resume_event);
		a->resume_event = NULL;
	}
}

void skit__session_release(struct skit_agent *a)
{
	if (a->session_fd >= 0)
		close(a->session_fd);
	a->session_fd = -1;
	skitx_free(a->session_plan);
	skitx_free(a->session_usage);
	skitx_free(a->resumed_from);
	skitx_free(a->resume_note);
	skitx_free(a->session_title);
	json_decref(a->resume_event);
	for (size_t i = 0; i < a->ntext; i++)
		skitx_free(a->active_text[i].text);
	skitx_free(a->active_text);
	skitx_buf_release(&a->streamed);
}

const char *skit_agent_session_id(const skit_agent *agent)
{
	return agent && agent->audit ? skit_audit_id(agent->audit) : NULL;
}

const char *skit_agent_resumed_from(const skit_agent *agent)
{
	return agent ? agent->resumed_from : NULL;
}

/* ---- finding a session ------------------------------------------------- */

static bool is_run_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'z') || s[i] == 'T' ||
		      s[i] == 'Z' || s[i] == '-'))
			return false;
	return true;
}

/* Whether `file` is a session of `project` (NULL: any) that holds a
 * conversation: its header (the first line) names the project, and a
 * message record follows. The whole file is checked when it loads, so a
 * damaged last session is refused, not passed over for an older one. */
static bool session_of(const char *file, const char *project)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	const char *nl, *p;
	json_t *h = NULL;
	bool ok = false;

	if (skitx_fs_read_file(file, &b, SKIT_SESSION_MAX_BYTES))
		goto out;
	p = skitx_buf_cstr(&b);
	nl = strchr(p, '\n');
	if (!nl)
		goto out;
	h = json_loadb(p, (size_t)(nl - p), 0, NULL);
	ok = h &&
	     (!project ||
	      !strcmp(json_string_value(json_object_get(h, "project"))
	                      ? json_string_value(json_object_get(h, "project"))
	                      : "",
	              project)) &&
	     strstr(nl, "\"type\":\"message\"") != NULL;
out:
	json_decref(h);
	skitx_buf_release(&b);
	return ok;
}

struct candidate {
	char *name, *file;
	struct timespec mtime;
};

/* Newest first: the session file written last, then the name. */
static int cmp_newest(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;

	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec ? 1 : -1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec < b->mtime.tv_nsec ? 1 : -1;
	return strcmp(b->name, a->name);
}

/* The runs of `runs_dir` whose name starts with `prefix` ("" for all)
 * and that hold a session file. */
static int candidates(const char *runs_dir, const char *prefix,
                      struct candidate **out, size_t *count, skit_error *err)
{
	struct candidate *c = NULL, *g;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	*out = NULL;
	*count = 0;
	d = opendir(runs_dir);
	if (!d)
		return errno == ENOENT
		               ? 0
		               : skit__error_set(err, SKIT_EIO, errno, "%s: %s",
		                                 runs_dir, strerror(errno));
	while (!rc && (de = readdir(d))) {
		char *run, *file;

		if (!is_run_id(de->d_name) ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		run = skitx_path_join(runs_dir, de->d_name);
		file = run ? skitx_path_join(run, SESSION_FILE) : NULL;
		skitx_free(run);
		if (!file) {
			rc = skit__error_oom(err);
			break;
		}
		/* For "last", only this user's private files (as skit
		 * writes them): a planted one never stands in the way. */
		if (lstat(file, &st) < 0 || !S_ISREG(st.st_mode) ||
		    (!*prefix &&
		     (st.st_uid != geteuid() || (st.st_mode & 077)))) {
			skitx_free(file);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			g = skitx_realloc(c, cap * sizeof(*g));
			if (!g) {
				skitx_free(file);
				rc = skit__error_oom(err);
				break;
			}
			c = g;
		}
		c[n].file = file;
		c[n].mtime = st.st_mtim;
		c[n].name = skitx_strdup(de->d_name);
		if (!c[n++].name)
			rc = skit__error_oom(err);
	}
	closedir(d);
	if (!rc)
		qsort(c, n, sizeof(*c), cmp_newest);
	*out = c;
	*count = n;
	return rc;
}

int skit_session_find(const char *runs_dir, const char *project_dir,
                      const char *which, char **path, skit_error *err)
{
	struct candidate *c = NULL;
	char *proj = NULL, *match = NULL;
	size_t n = 0, hits = 0;
	bool last;
	int rc;

	*path = NULL;
	if (!runs_dir || !which || !*which)
		return skit__error_set(
		        err, SKIT_EUSAGE, 0,
		        "a runs folder and a session are needed");
	last = !strcmp(which, "last");
	if (!last && !is_run_id(which))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "'%.80s' is not a session id (a run id "
		                       "such as 20261121T143005Z-1a2b3c4d, or "
		                       "'last')",
		                       which);
	rc = candidates(runs_dir, last ? "" : which, &c, &n, err);
	if (!rc && project_dir && last &&
	    !(proj = skitx_path_absolute(project_dir)))
		rc = skit__error_oom(err);
	for (size_t i = 0; !rc && i < n; i++) {
		if (last) {
			char *dir = skitx_path_join(runs_dir, c[i].name);
			/* not one a skit is running now */
			bool live = dir && skit__audit_writer_alive(dir);

			skitx_free(dir);
			if (live || !session_of(c[i].file, proj) ||
			    (proj && !session_mine(c[i].file, c[i].name, proj)))
				continue;
		} else if (strcmp(c[i].name, which)) {
			hits++; /* a prefix: it must be unique */
			if (!match)
				match = c[i].file;
			continue;
		}
		match = c[i].file;
		hits = 1;
		break;
	}
	if (!rc && hits > 1)
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "'%s' starts %zu session ids; give more "
		                     "of it",
		                     which, hits);
	else if (!rc && !match)
		rc = last ? skit__error_set(err, SKIT_ENOTFOUND, 0,
		                            "no session of this project in %s "
		                            "to continue",
		                            runs_dir)
		          : skit__error_set(err, SKIT_ENOTFOUND, 0,
		                            "no session '%s' in %s", which,
		                            runs_dir);
	if (!rc && !(*path = skitx_strdup(match)))
		rc = skit__error_oom(err);
	for (size_t i = 0; i < n; i++) {
		skitx_free(c[i].name);
		skitx_free(c[i].file);
	}
	skitx_free(c);
	skitx_free(proj);
	return rc;
}
