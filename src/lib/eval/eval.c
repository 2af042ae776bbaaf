/* SPDX-License-Identifier: MIT */
/*
 * eval.c - evals: run each trial of a loaded suite through the agent
 * loop, check what happened, and score it (see include/skit/eval.h).
 *
 * What a trial did is read back from its own audit trail (the tool_call
 * events of events.jsonl) and from the agent's stats and activated
 * skills, so an eval sees exactly what `skit runs show` would. Loading
 * the case files lives in eval_load.c, the held-out split and scoring of
 * trigger queries in eval_trigger.c, collecting what an entry's trials
 * left in eval_collect.c, rendering the report in eval_report.c.
 */
#include "common.h"

#include <pthread.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "skit/agent.h"
#include "skit/audit.h"
#include "skit/eval.h"
#include "skit/model.h"
#include "skit/policy.h"
#include "skit/registry.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/eval/eval_int.h"
#include "lib/core/rx.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/parallel.h"
#include "util/path.h"
#include "util/vec.h"
#include "util/clock.h"

#define CALLS_SHOWN   8
#define SHOW_MAX      SKIT__EVAL_SHOW_MAX
#define ANSWER_SHOWN  80
#define CASE_FILE_MAX (64u * 1024 * 1024) /* bytes of a copied file */

/* ---- one trial --------------------------------------------------------- */

static int push_dup(struct skitx_vec *v, const char *s)
{
	char *d = skitx_strdup(s);

	if (!d || skitx_vec_push(v, d)) {
		skitx_free(d);
		return SKIT_ENOMEM;
	}
	return 0;
}

static int reason(struct eval_trial *t, const char *fmt, ...) SKIT_PRINTF(2, 3);

static int reason(struct eval_trial *t, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t->passed = false;
	return push_dup(&t->reasons, line);
}

static bool in_strv(const struct eval_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

static bool in_vec(const struct skitx_vec *v, const char *s)
{
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->items[i], s))
			return true;
	return false;
}

/*
 * A tool_call event as a step: "tool", or "tool:target" for the skill
 * tools (the skill for use_skill, "skill/path" for the others).
 */
static int on_event(const char *json, size_t len, void *payload)
{
	struct eval_trial *t = payload;
	json_t *ev = json_loadb(json, len, 0, NULL), *args = NULL;
	const char *name, *a, *skill, *path;
	struct skitx_buf b;
	int rc = 0;

	if (!ev)
		return 0;
	name = json_string_value(json_object_get(ev, "name"));
	a = json_string_value(json_object_get(ev, "type"));
	if (!a || strcmp(a, "tool_call") || !name) {
		json_decref(ev);
		return 0;
	}
	a = json_string_value(json_object_get(ev, "arguments"));
	if (a)
		args = json_loads(a, 0, NULL);
	skitx_buf_init(&b, 0);
	rc = skitx_buf_puts(&b, name);
	skill = json_string_value(json_object_get(args, "skill"));
	path = json_string_value(json_object_get(args, "path"));
	if (!strcmp(name, "use_skill") &&
	    json_string_value(json_object_get(args, "name")))
		rc |= skitx_buf_printf(
		        &b, ":%s",
		        json_string_value(json_object_get(args, "name")));
	else if (skill && path)
		rc |= skitx_buf_printf(&b, ":%s/%s", skill, path);
	if (!rc)
		rc = push_dup(&t->calls, skitx_buf_cstr(&b));
	skitx_buf_release(&b);
	rc = rc ? SKIT_ENOMEM : 0;
	json_decref(args);
	json_decref(ev);
	return rc;
}

static bool step_matches(const char *want, const char *call)
{
	size_t n = strlen(want);

	if (strchr(want, ':'))
		return !strcmp(want, call);
	return !strncmp(want, call, n) && (call[n] == '\0' || call[n] == ':');
}

static int check_steps(struct eval_trial *t)
{
	const struct eval_case *c = t->c;
	size_t k = 0;
	struct skitx_buf seen;
	int rc = 0;

	for (size_t i = 0; i < t->calls.len && k < c->steps.n; i++)
		if (step_matches(c->steps.v[k], t->calls.items[i]))
			k++;
	if (k < c->steps.n) {
		skitx_buf_init(&seen, 0);
		for (size_t i = 0; i < t->calls.len && i < CALLS_SHOWN; i++)
			rc |= skitx_buf_printf(&seen, "%s%s", i ? ", " : "",
			                       (char *)t->calls.items[i]);
		if (t->calls.len > CALLS_SHOWN)
			rc |= skitx_buf_puts(&seen, ", ...");
		rc |= reason(t, "step %zu '%.*s' not taken (calls: %s)", k + 1,
		             SHOW_MAX, c->steps.v[k],
		             t->calls.len ? skitx_buf_cstr(&seen) : "none");
		skitx_buf_release(&seen);
		t->steps_ok = false;
	}
	if (c->max_tool_calls >= 0 && t->tools > c->max_tool_calls) {
		rc |= reason(t, "%u tool calls, over max_tool_calls %ld",
		             t->tools, c->max_tool_calls);
		t->steps_ok = false;
	}
	for (size_t i = 0; i < c->forbidden.n; i++)
		for (size_t j = 0; j < t->calls.len; j++)
			if (step_matches(c->forbidden.v[i],
			                 t->calls.items[j])) {
				rc |= reason(t,
				             "forbidden tool '%.*s' was called",
				             SHOW_MAX, c->forbidden.v[i]);
				t->steps_ok = false;
				break;
			}
	return rc;
}

/* Follow "a.b.0" into `j`. */
static json_t *json_path(json_t *j, const char *path)
{
	char key[256];

	while (j && *path) {
		size_t n = strcspn(path, ".");
		char *end;
		unsigned long idx;

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		path += n + (path[n] == '.');
		if (json_is_array(j)) {
			idx = strtoul(key, &end, 10);
			j = *key && !*end ? json_array_get(j, idx) : NULL;
		} else {
			j = json_object_get(j, key);
		}
	}
	return j;
}

/* The answer as JSON: all of it, else from its first '{' or '[' to the
 * matching last '}' or ']' (answers often wrap JSON in prose or fences). */
static json_t *answer_json(const char *answer)
{
	const char *o = strpbrk(answer, "{["), *e;
	json_t *j = json_loads(answer, 0, NULL);

	if (j || !o)
		return j;
	e = strrchr(answer, *o == '{' ? '}' : ']');
	return e && e > o ? json_loadb(o, (size_t)(e - o + 1), 0, NULL) : NULL;
}

static int check_output(struct eval_trial *t, const char *answer)
{
	const struct eval_case *c = t->c;
	json_t *j = NULL, *v;
	const char *vs;
	char *text;
	int rc = 0;

	for (size_t i = 0; i < c->contains.n; i++)
		if (!strstr(answer, c->contains.v[i])) {
			rc |= reason(t, "output lacks '%.*s'", SHOW_MAX,
			             c->contains.v[i]);
			t->output_ok = false;
		}
	for (size_t i = 0; i < c->not_contains.n; i++)
		if (strstr(answer, c->not_contains.v[i])) {
			rc |= reason(t, "output contains '%.*s'", SHOW_MAX,
			             c->not_contains.v[i]);
			t->output_ok = false;
		}
	for (size_t i = 0; i < c->regex.n; i++) {
		struct skit__rx *re;
		skit_error rx_err = { 0 };
		int m;

		/* Compiled when loading too, so only memory can fail here. A
		 * match stopped by a cost limit fails the check, saying so. */
		m = skit__rx_new(&re, c->regex.v[i], 0, &rx_err);
		if (!m)
			m = skit__rx_match(re, answer, strlen(answer), NULL,
			                   &rx_err);
		skit__rx_free(re);
		if (m == SKIT_ENOMEM) {
			rc |= m;
		} else if (m < 0) {
			rc |= reason(t, "output not checked against /%.*s/: %s",
			             SHOW_MAX, c->regex.v[i], rx_err.message);
			t->output_ok = false;
		} else if (!m) {
			rc |= reason(t, "output does not match /%.*s/",
			             SHOW_MAX, c->regex.v[i]);
			t->output_ok = false;
		}
	}
	if (c->njson)
		j = answer_json(answer);
	for (size_t i = 0; i < c->njson; i++) {
		v = j ? json_path(j, c->json[i].path) : NULL;
		/* json_dumps() allocates with the C library's malloc. */
		text = v && !json_is_string(v)
		               ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)
		               : NULL;
		vs = json_is_string(v) ? json_string_value(v) : text;
		if (vs && !strcmp(vs, c->json[i].equals)) {
			free(text);
			continue;
		}
		t->output_ok = false;
		if (!j)
			rc |= reason(t, "output is not JSON");
		else if (!v)
			rc |= reason(t, "output JSON has no '%.*s'", SHOW_MAX,
			             c->json[i].path);
		else
			rc |= reason(t,
			             "output JSON '%.*s' is '%.*s', not "
			             "'%.*s'",
			             SHOW_MAX, c->json[i].path, SHOW_MAX,
			             vs ? vs : "?", SHOW_MAX,
			             c->json[i].equals);
		free(text);
		if (!j)
			break;
	}
	json_decref(j);
	return rc;
}

static int check_skills(struct eval_trial *t)
{
	const struct eval_case *c = t->c;
	int rc = 0;

	for (size_t i = 0; i < c->exp_skills.n; i++)
		if (!in_vec(&t->skills, c->exp_skills.v[i]))
			rc |= reason(t, "skill '%.*s' was not activated",
			             SHOW_MAX, c->exp_skills.v[i]);
	for (size_t i = 0; i < c->not_skills.n; i++)
		if (in_vec(&t->skills, c->not_skills.v[i]))
			rc |= reason(t, "skill '%.*s' was activated", SHOW_MAX,
			             c->not_skills.v[i]);
	return rc;
}

/*
 * Copy the case's files into the trial's work folder. Each is opened
 * beneath the case's folder again, as when loading
 * (skit__eval_open_case_file()): the folder may have changed since, and a
 * checked path is not a checked file.
 */
static int copy_files(struct eval_trial *t, const char *work, skit_error *err)
{
	const struct eval_case *c = t->c;
	struct skitx_buf data;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->files.n; i++) {
		const char *rel = c->files.v[i], *base, *why = NULL;
		size_t blen;
		char *dst;
		int fd;

		base = skitx_path_name(rel, &blen);
		dst = skitx_path_join(work, base);
		skitx_buf_init(&data, 0);
		fd = dst ? skit__eval_open_case_file(c->dir, rel, &why) : -1;
		if (!dst)
			rc = SKIT_ENOMEM;
		else if (fd < 0)
			rc = SKIT_EUNSAFE;
		else
			rc = skitx_fs_read_fd(fd, &data, CASE_FILE_MAX);
		if (fd >= 0)
			close(fd);
		if (!rc)
			rc = skitx_fs_write_atomic(dst, skitx_buf_cstr(&data),
			                           skitx_buf_len(&data), 0600);
		if (rc == SKIT_ENOMEM)
			rc = skit__error_oom(err);
		else if (rc)
			rc = skit__error_set(
			        err, rc, 0, "%s: 'files': '%.*s' %s", c->file,
			        SHOW_MAX, rel,
			        why                  ? why
			        : rc == SKIT_ETOOBIG ? "is larger than 64 MiB"
			                             : "cannot be copied");
		skitx_buf_release(&data);
		skitx_free(dst);
	}
	return rc;
}

/*
 * A trigger trial stops once its skill is active: what the model does
 * with the skill does not matter. The global cancel flag is looked at
 * here too, since the agent watches only the trial's own flag.
 */
static void on_trigger_trace(skit_trace_kind kind, const char *line,
                             void *payload)
{
	struct eval_trial *t = payload;
	skit_agent *agent = t->agent;

	(void)line;
	if (t->cancel && *t->cancel)
		t->stop = 1;
	if (kind != SKIT_TRACE_SKILL || !agent)
		return;
	for (size_t i = 0; i < skit_agent_active_count(agent); i++)
		if (!strcmp(skit_agent_active_skill(agent, i), t->c->skill))
			t->stop = 1;
}

/*
 * A trigger trial is asked about every call that needs approval, as an
 * interactive session is (so it is offered the same tools), and declines.
 */
static skit_approve_answer decline(const skit_approval *req, void *payload)
{
	(void)req;
	(void)payload;
	return SKIT_APPROVE_NO;
}

/*
 * Set up registry, model, policy and agent, send the input, record. Each
 * trial works in its own folder (`work-*` next to its run folder), which
 * is both the project of the file tools and where scripts run. A trigger
 * query runs under a policy that approves nothing (reads and the skill
 * tools still run), for at most its `turns` model calls.
 */
static int run_trial(struct eval_runner *r, struct eval_trial *t)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	const struct eval_case *c = t->c;
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_policy *pol = NULL;
	skit_agent *agent = NULL;
	skit_agent_stats st;
	skit_error err = { 0 }, ferr = { 0 };
	char *spec = NULL, *case_runs = NULL, *answer = NULL, *work = NULL;
	long t0;
	int rc, send_rc = 0;

	t->passed = t->steps_ok = t->output_ok = true;
	case_runs = skitx_path_join(r->runs_dir, c->name);
	spec = r->o->model ? skitx_strdup(r->o->model)
	                   : skitx_malloc(strlen(c->cassette) + 8);
	if (!case_runs || !spec) {
		rc = SKIT_ENOMEM;
		goto out;
	}
	if (!r->o->model)
		snprintf(spec, strlen(c->cassette) + 8, "replay:%s",
		         c->cassette);
	rc = skitx_fs_mkdir_p(case_runs, 0700);
	if (rc) {
		rc = skit__error_set(&err, SKIT_EIO, 0, "%s: cannot create",
		                     case_runs);
		goto fail;
	}
	rc = skit_registry_new(&reg, &err);
	for (size_t i = 0; !rc && i < c->skills.n; i++)
		rc = skit_registry_add_root(reg, "eval", c->skills.v[i], &err);
	if (!rc)
		rc = skit_registry_scan(reg, &err);
	if (!rc)
		rc = skit_policy_new(&pol, &err);
	if (rc)
		goto fail;
	skit_policy_set_yes(pol, !c->skill);
	/*
	 * No program of a trial gets the network. An eval reads no config
	 * and takes no network flag, so nothing the user said grants it;
	 * and a skill's `allowed-tools` must not either. The policy lets a
	 * skill's WebFetch(domain:HOST) through its proxy when the user's
	 * rules would allow WebFetch there without asking, and the approval
	 * above (the --yes of an unattended run) would count as that: the
	 * repository under test would grant itself the network.
	 */
	skit_policy_set_no_network(pol, true);
	if (c->skill && !skit_registry_find(reg, c->skill, NULL)) {
		rc = skit__error_set(&err, SKIT_ENOTFOUND, 0,
		                     "skill '%.*s' is not among the loaded "
		                     "skills",
		                     SHOW_MAX, c->skill);
		goto fail;
	}
	mo.spec = spec;
	mo.cancel = r->o->cancel;
	mo.ratelimit = r->limits;
	rc = skit_model_new(&model, &mo, &err);
	if (rc)
		goto fail;
	/* The trial's own folder, for the file tools and the scripts. */
	work = skitx_path_join(case_runs, "work-XXXXXX");
	if (!work) {
		rc = SKIT_ENOMEM;
		goto out;
	}
	if (!mkdtemp(work)) {
		rc = skit__error_set(&err, SKIT_EIO, 0, "%s: %s", work,
		                     strerror(errno));
		goto fail;
	}
	rc = copy_files(t, work, &err);
	if (rc)
		goto fail;
	ao.registry = reg;
	ao.model = model;
	ao.runs_dir = case_runs;
	ao.policy = pol;
	ao.project_dir = work;
	ao.workdir = work;
	ao.cancel = r->o->cancel;
	ao.script_timeout_ms = r->o->script_timeout_ms;
	if (c->skill) {
		ao.max_turns = c->turns;
		ao.cancel = &t->stop;
		ao.hooks.on_trace = on_trigger_trace;
		ao.hooks.on_approve = decline;
		ao.hooks.payload = t;
		t->cancel = r->o->cancel;
	}
	rc = skit_agent_new(&agent, &ao, &err);
	if (rc)
		goto fail;
	t->agent = agent;
	t->run_dir = skitx_strdup(skit_agent_run_dir(agent));
	if (!t->run_dir) {
		rc = SKIT_ENOMEM;
		goto out;
	}
	t0 = skitx_clock_ms();
	send_rc = skit_agent_send(agent, c->input, &answer, &err);
	t->wall_ms = (uint64_t)(skitx_clock_ms() - t0);
	t->ran = true;
	skit_agent_get_stats(agent, &st);
	t->in = st.usage.input_tokens;
	t->out = st.usage.output_tokens;
	t->tools = st.tool_calls;
	t->scripts = st.script_runs;
	for (size_t i = 0; i < skit_agent_active_count(agent); i++)
		if (push_dup(&t->skills, skit_agent_active_skill(agent, i))) {
			rc = SKIT_ENOMEM;
			goto out;
		}
	t->agent = NULL;
	if (c->skill) {
		t->triggered = in_vec(&t->skills, c->skill);
		/* Stopped once triggered, or out of turns: both answers. */
		if ((send_rc == SKIT_ECANCELED && t->triggered &&
		     !(r->o->cancel && *r->o->cancel)) ||
		    send_rc == SKIT_ELIMIT)
			send_rc = 0;
	}
	skit_agent_finish(agent, skit_agent_status(send_rc), send_rc ? 1 : 0,
	                  &ferr);
	agent = NULL;
	rc = skit_run_foreach_event(t->run_dir, on_event, t, NULL, &ferr);
	if (rc == SKIT_ENOMEM)
		goto out;
	if (rc)
		rc = reason(t, "cannot read the audit trail: %s", ferr.message);
	if (send_rc) {
		rc = reason(t, "agent: %s", err.message);
		t->steps_ok = t->output_ok = false;
	}
	if (c->skill) {
		t->passed = t->passed && t->triggered == c->should;
		goto out;
	}
	rc |= check_skills(t);
	rc |= check_steps(t);
	rc |= check_output(t, answer ? answer : "");
	goto out;
fail:
	/* Setting up is part of the trial: a bad cassette is a failure. */
	t->steps_ok = t->output_ok = false;
	rc = rc == SKIT_ENOMEM ? rc : reason(t, "%s", err.message);
out:
	t->agent = NULL;
	skit_agent_free(agent);
	skit_model_free(model);
	skit_policy_free(pol);
	skit_registry_free(reg);
	skit_free(answer);
	skitx_free(work);
	skitx_free(spec);
	skitx_free(case_runs);
	return rc;
}

static void run_batch(void *payload, size_t worker, size_t begin, size_t end)
{
	struct eval_runner *r = payload;

	for (size_t i = begin; i < end; i++) {
		struct eval_trial *t = &r->trials[i];

		if (r->o->cancel && *r->o->cancel) {
			t->passed = false;
			continue;
		}
		if (run_trial(r, t))
			t->passed = false; /* out of memory: reasons may lack */
		pthread_mutex_lock(&r->mu);
		r->done++;
		if (r->o->progress)
			r->o->progress(r->done, r->n, t->c->name, t->passed,
			               r->o->payload);
		pthread_mutex_unlock(&r->mu);
	}
}

static void trial_release(struct eval_trial *t)
{
	struct skitx_vec *vs[] = { &t->reasons, &t->skills, &t->calls };

	for (size_t k = 0; k < SKIT_ARRAY_SIZE(vs); k++) {
		for (size_t i = 0; i < vs[k]->len; i++)
			skitx_free(vs[k]->items[i]);
		skitx_vec_release(vs[k]);
	}
	skitx_free(t->run_dir);
}

/* ---- scoring ----------------------------------------------------------- */

int skit__eval_add_skill(struct skitx_pool *pool, skit_eval_skill_result **v,
                         size_t *n, size_t *cap, const char *name,
                         unsigned int tp, unsigned int fp, unsigned int fn)
{
	skit_eval_skill_result *k = NULL, *grown;

	for (size_t i = 0; !k && i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			k = &(*v)[i];
	if (!k) {
		if (*n == *cap) {
			size_t grow = *cap ? *cap * 2 : 8;

			grown = skitx_realloc(*v, grow * sizeof(**v));
			if (!grown)
				return SKIT_ENOMEM;
			*v = grown;
			*cap = grow;
		}
		k = &(*v)[(*n)++];
		memset(k, 0, sizeof(*k));
		k->name = skitx_pool_strdup(pool, name);
		if (!k->name)
			return SKIT_ENOMEM;
	}
	k->tp += tp;
	k->fp += fp;
	k->fn += fn;
	return 0;
}

/* A trial's true and false positives and false negatives, added to the
 * table `v` (a case's own). */
static int score_skills(struct skitx_pool *pool, skit_eval_skill_result **v,
                        size_t *n, size_t *cap, const struct eval_trial *t)
{
	const struct eval_case *c = t->c;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->exp_skills.n; i++) {
		bool hit = in_vec(&t->skills, c->exp_skills.v[i]);

		rc = skit__eval_add_skill(pool, v, n, cap, c->exp_skills.v[i],
		                          hit, 0, !hit);
	}
	for (size_t i = 0; !rc && i < c->not_skills.n; i++)
		rc = skit__eval_add_skill(pool, v, n, cap, c->not_skills.v[i],
		                          0, 0, 0);
	for (size_t i = 0; !rc && i < t->skills.len; i++)
		if (!in_strv(&c->exp_skills, t->skills.items[i]))
			rc = skit__eval_add_skill(pool, v, n, cap,
			                          t->skills.items[i], 0, 1, 0);
	return rc;
}

static int cmp_skill(const void *a, const void *b)
{
	return strcmp(((const skit_eval_skill_result *)a)->name,
	              ((const skit_eval_skill_result *)b)->name);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double skit__eval_median(double *v, size_t n)
{
	if (!n)
		return 0.0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static bool has_steps(const struct eval_case *c)
{
	return c->steps.n || c->max_tool_calls >= 0 || c->forbidden.n;
}

static bool has_output(const struct eval_case *c)
{
	return c->contains.n || c->not_contains.n || c->regex.n || c->njson;
}

static int build_case(skit_eval_report *rep, struct eval_runner *r, size_t ci,
                      size_t first)
{
	const struct eval_case *c = &r->s->cases[ci];
	struct eval_raw *raw = &rep->case_raw[rep->ncases];
	skit_eval_case_result *cr = &rep->cases[rep->ncases++];
	struct skitx_pool *pool = &rep->pool;
	struct eval_collected got;
	double threshold = c->threshold >= 0 ? c->threshold : r->threshold;
	skit_eval_skill_result *own = NULL;
	size_t nown = 0, own_cap = 0;
	int rc;

	memset(cr, 0, sizeof(*cr));
	rc = skit__eval_collect(pool, r, first, c->trials, 0, &got);
	if (!rc)
		rc = skit__eval_raw(pool, r, ci, first, raw);
	if (rc)
		return rc;
	/* The report outlives the suite: copy what it shows of it. */
	cr->name = skitx_pool_strdup(pool, c->name);
	cr->file = skitx_pool_strdup(pool, c->file);
	if (!cr->name || !cr->file)
		return SKIT_ENOMEM;
	cr->trials = c->trials;
	cr->has_steps = has_steps(c);
	cr->has_output = has_output(c);
	cr->steps_ok = cr->output_ok = true;
	for (size_t k = 0; !rc && k < c->trials; k++) {
		const struct eval_trial *t = &r->trials[first + k];

		cr->trials_passed += t->passed;
		cr->steps_ok &= t->steps_ok;
		cr->output_ok &= t->output_ok;
		cr->input_tokens += t->in;
		cr->output_tokens += t->out;
		cr->wall_ms += t->wall_ms;
		cr->tool_calls += t->tools;
		cr->script_runs += t->scripts;
		rc = score_skills(pool, &own, &nown, &own_cap, t);
	}
	/* The case's own skill counts, kept so that merged shards give the
	 * same skill table, then added to the report's. */
	raw->skills = skitx_pool_alloc(pool, (nown + 1) * sizeof(*raw->skills));
	if (!rc && !raw->skills)
		rc = SKIT_ENOMEM;
	for (size_t i = 0; !rc && i < nown; i++) {
		raw->skills[i].name = own[i].name;
		raw->skills[i].tp = own[i].tp;
		raw->skills[i].fp = own[i].fp;
		raw->skills[i].fn = own[i].fn;
		raw->nskills++;
		rc = skit__eval_add_skill(pool, &rep->skills, &rep->nskills,
		                          &rep->skill_cap, own[i].name,
		                          own[i].tp, own[i].fp, own[i].fn);
	}
	skitx_free(own);
	cr->reasons = got.reasons;
	cr->reason_count = got.nreasons;
	cr->run_dirs = got.dirs;
	cr->run_dir_count = got.ndirs;
	cr->skills = got.skills;
	cr->skill_count = got.nskills;
	/* A small epsilon so that 2/3 passes a threshold written 0.66. */
	cr->passed = cr->trials_passed + 1e-9 >= threshold * cr->trials &&
	             cr->trials_passed > 0;
	return rc;
}

void skit__eval_finish_skills(skit_eval_skill_result *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		skit_eval_skill_result *k = &v[i];

		k->precision =
		        skit__eval_share(k->tp, (size_t)k->tp + k->fp, NAN);
		k->recall = skit__eval_share(k->tp, (size_t)k->tp + k->fn, NAN);
		k->f1 = skit__eval_f1(k->precision, k->recall);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_skill);
}

static int build_report(skit_eval_report *rep, struct eval_runner *r)
{
	skit_eval_summary *sum = &rep->sum;
	double *m[5];
	size_t first = 0;
	int rc = 0;

	rep->cases = skitx_calloc(r->s->n ? r->s->n : 1, sizeof(*rep->cases));
	rep->case_raw =
	        skitx_calloc(r->s->n ? r->s->n : 1, sizeof(*rep->case_raw));
	for (size_t k = 0; k < 5; k++)
		m[k] = skitx_calloc(r->n ? r->n : 1, sizeof(double));
	if (!rep->cases || !rep->case_raw || !m[0] || !m[1] || !m[2] || !m[3] ||
	    !m[4])
		rc = SKIT_ENOMEM;
	for (size_t ci = 0; !rc && ci < r->s->n; ci++) {
		if (!r->sel[ci])
			continue; /* another shard's: no trials */
		if (!r->s->cases[ci].skill)
			rc = build_case(rep, r, ci, first);
		first += r->s->cases[ci].trials;
	}
	if (!rc)
		rc = skit__eval_score_queries(rep, r);
	for (size_t i = 0; !rc && i < rep->ncases; i++)
		sum->cases_passed += rep->cases[i].passed;
	for (size_t i = 0; !rc && i < r->n; i++) {
		const struct eval_trial *t = &r->trials[i];

		sum->trials_passed += t->passed;
		sum->step_checked += has_steps(t->c);
		sum->step_passed += has_steps(t->c) && t->steps_ok;
		sum->output_checked += has_output(t->c);
		sum->output_passed += has_output(t->c) && t->output_ok;
		sum->input_tokens += t->in;
		sum->output_tokens += t->out;
		sum->wall_ms += t->wall_ms;
		sum->tool_calls += t->tools;
		sum->script_runs += t->scripts;
		m[0][i] = (double)t->in;
		m[1][i] = (double)t->out;
		m[2][i] = (double)t->wall_ms;
		m[3][i] = t->tools;
		m[4][i] = t->scripts;
	}
	sum->cases = rep->ncases;
	sum->trials = r->n;
	sum->pass_rate =
	        skit__eval_share(sum->cases_passed + sum->queries_passed,
	                         sum->cases + sum->queries, 1.0);
	sum->step_pass_rate =
	        skit__eval_share(sum->step_passed, sum->step_checked, 1.0);
	sum->output_pass_rate =
	        skit__eval_share(sum->output_passed, sum->output_checked, 1.0);
	if (!rc) {
		sum->median_input_tokens = skit__eval_median(m[0], r->n);
		sum->median_output_tokens = skit__eval_median(m[1], r->n);
		sum->median_wall_ms = skit__eval_median(m[2], r->n);
		sum->median_tool_calls = skit__eval_median(m[3], r->n);
		sum->median_script_runs = skit__eval_median(m[4], r->n);
	}
	for (size_t k = 0; k < 5; k++)
		skitx_free(m[k]);
	if (!rc)
		skit__eval_finish_skills(rep->skills, rep->nskills);
	return rc;
}

/* ---- shards ------------------------------------------------------------ */

/*
 * An entry's stable identity: what it is, not where it sits, so that
 * adding or reordering entries moves no other entry to another shard. A
 * case is its file's name (not its folder, which differs between
 * machines) and its name; a query its skill and text.
 */
static int identity(struct skitx_buf *b, const struct eval_case *c)
{
	const char *base;
	size_t blen;

	skitx_buf_clear(b);
	if (c->skill)
		return skitx_buf_printf(b, "query\n%zu:%s\n%s",
		                        strlen(c->skill), c->skill, c->input);
	base = skitx_path_name(c->file, &blen);
	return skitx_buf_printf(b, "case\n%zu:%.*s\n%s", blen, (int)blen, base,
	                        c->name);
}

/*
 * Which entries this run takes (`sel`), and the suite's own id: the
 * SHA-256 of every entry's identity and trials, in order, which shard
 * reports must share to be merged.
 */
static int select_shard(const skit_eval_suite *s, const skit_eval_options *o,
                        bool *sel, char id[65])
{
	struct skitx_buf b, all;
	char hex[65];
	int rc = 0;

	skitx_buf_init(&b, 0);
	skitx_buf_init(&all, 0);
	for (size_t i = 0; !rc && i < s->n; i++) {
		uint64_t h = 0;

		rc = identity(&b, &s->cases[i]);
		if (rc)
			break;
		skit__sha256_hex(skitx_buf_cstr(&b), skitx_buf_len(&b), hex);
		for (size_t k = 0; k < 16; k++)
			h = h << 4 |
			    (uint64_t)(hex[k] <= '9' ? hex[k] - '0'
			                             : hex[k] - 'a' + 10);
		sel[i] = !o->shard_count ||
		         h % o->shard_count == o->shard_index - 1;
		rc = skitx_buf_printf(&all, "%s %u\n", hex, s->cases[i].trials);
	}
	if (!rc)
		skit__sha256_hex(skitx_buf_cstr(&all), skitx_buf_len(&all), id);
	skitx_buf_release(&b);
	skitx_buf_release(&all);
	return rc ? SKIT_ENOMEM : 0;
}

/* ---- running ----------------------------------------------------------- */

static int make_runs_dir(char **out, const skit_eval_options *o,
                         skit_error *err)
{
	const char *tmp = getenv("TMPDIR");
	struct skitx_buf b;

	if (o->runs_dir) {
		*out = skitx_path_absolute(o->runs_dir);
		if (!*out)
			return skit__error_oom(err);
		if (skitx_fs_mkdir_p(*out, 0700))
			return skit__error_set(err, SKIT_EIO, 0,
			                       "%s: cannot create the folder",
			                       o->runs_dir);
		return 0;
	}
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	skitx_buf_init(&b, 0);
	if (skitx_buf_printf(&b, "%s/skit-eval-XXXXXX", tmp)) {
		skitx_buf_release(&b);
		return skit__error_oom(err);
	}
	if (!mkdtemp(b.ptr)) {
		skitx_buf_release(&b);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot create a folder in %s: %s", tmp,
		                       strerror(errno));
	}
	*out = skitx_buf_detach(&b, NULL);
	return *out ? 0 : skit__error_oom(err);
}

int skit_eval_run(skit_eval_report **out, const skit_eval_suite *s,
                  const skit_eval_options *opts, skit_error *err)
{
	struct eval_runner r;
	skit_eval_report *rep = NULL;
	char *runs_dir = NULL;
	size_t jobs;
	int rc = 0;

	assert(out && s && opts);
	*out = NULL;
	if (opts->version != SKIT_EVAL_OPTIONS_VERSION)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "unknown eval options version %u",
		                       opts->version);
	if (!(opts->pass_threshold >= 0.0 && opts->pass_threshold <= 1.0))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "the pass threshold must be from 0 to "
		                       "1");
	if (!(opts->holdout < 1.0))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "the holdout must be under 1");
	if ((opts->shard_count || opts->shard_index) &&
	    (opts->shard_index < 1 || opts->shard_index > opts->shard_count ||
	     opts->shard_count > SKIT__EVAL_SHARDS_MAX))
		return skit__error_set(
		        err, SKIT_EUSAGE, 0,
		        "shard %u/%u: the shard is 1 to N, and N "
		        "at most %u",
		        opts->shard_index, opts->shard_count,
		        SKIT__EVAL_SHARDS_MAX);
	/* Folder trust first: nothing of an untrusted suite runs. */
	if (opts->honour_trust) {
		char *dir = NULL;

		rc = skit_eval_suite_untrusted(&dir, s, err);
		if (!rc && dir)
			rc = skit__error_set(err, SKIT_EDENIED, 0,
			                     "%s is not a trusted folder: its "
			                     "eval cases do not run until the "
			                     "user trusts it",
			                     dir);
		skitx_free(dir);
		if (rc)
			return rc;
	}
	for (size_t i = 0; !opts->model && i < s->n; i++)
		if (!s->cases[i].cassette)
			return skit__error_set(
			        err, SKIT_EUSAGE, 0,
			        "%s%s%s: no cassette, and no "
			        "model given",
			        s->cases[i].file, s->cases[i].skill ? ": " : "",
			        s->cases[i].skill ? s->cases[i].name : "");
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.o = opts;
	r.threshold = opts->pass_threshold > 0 ? opts->pass_threshold : 1.0;
	r.sel = skitx_calloc(s->n ? s->n : 1, sizeof(*r.sel));
	rep = skitx_calloc(1, sizeof(*rep));
	if (!r.sel || !rep || select_shard(s, opts, r.sel, rep->suite_id)) {
		rc = skit__error_oom(err);
		goto out;
	}
	skitx_pool_init(&rep->pool, 0);
	rep->suite_entries = s->n;
	rep->sum.shard_index = opts->shard_count ? opts->shard_index : 0;
	rep->sum.shard_count = opts->shard_count;
	for (size_t i = 0; i < s->n; i++)
		r.n += r.sel[i] ? s->cases[i].trials : 0;
	/* Shared even without --rpm and --tpm: a 429's pause then still
	 * holds back every trial, not only the one that got it. */
	if (skit_ratelimit_new(&r.limits, opts->rpm, opts->tpm, err)) {
		rc = SKIT_ENOMEM;
		goto out;
	}
	rc = make_runs_dir(&runs_dir, opts, err);
	if (rc)
		goto out;
	r.runs_dir = runs_dir;
	r.trials = skitx_calloc(r.n ? r.n : 1, sizeof(*r.trials));
	r.held = skitx_calloc(s->n ? s->n : 1, sizeof(*r.held));
	/* The held-out split is the whole suite's, whatever the shard. */
	if (!r.trials || !r.held ||
	    skit__eval_split(s, opts->holdout, r.held)) {
		rc = skit__error_oom(err);
		goto out;
	}
	for (size_t i = 0, k = 0; i < s->n; i++)
		for (unsigned int t = 0; r.sel[i] && t < s->cases[i].trials;
		     t++)
			r.trials[k++].c = &s->cases[i];
	/* Worker threads must share the C library's allocator. */
	jobs = opts->jobs > 1 && skitx_alloc_is_default() ? opts->jobs : 1;
	pthread_mutex_init(&r.mu, NULL);
	skitx_parallel_for(r.n, 1, jobs, run_batch, &r);
	pthread_mutex_destroy(&r.mu);
	rc = build_report(rep, &r);
	if (!rc) {
		rep->sum.runs_dir = skitx_pool_strdup(&rep->pool, runs_dir);
		rc = rep->sum.runs_dir ? 0 : SKIT_ENOMEM;
	}
	if (rc) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (opts->cancel && *opts->cancel) {
		rc = skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
		goto out;
	}
	*out = rep;
	rep = NULL;
out:
	for (size_t i = 0; r.trials && i < r.n; i++)
		trial_release(&r.trials[i]);
	skitx_free(r.trials);
	skitx_free(r.held);
	skitx_free(r.sel);
	skit_ratelimit_free(r.limits);
	skitx_free(runs_dir);
	skit_eval_report_free(rep);
	return rc;
}

size_t skit_eval_report_case_count(const skit_eval_report *r)
{
	return r->ncases;
}

const skit_eval_case_result *skit_eval_report_case(const skit_eval_report *r,
                                                   size_t i)
{
	return i < r->ncases ? &r->cases[i] : NULL;
}

size_t skit_eval_report_skill_count(const skit_eval_report *r)
{
	return r->nskills;
}

const skit_eval_skill_result *skit_eval_report_skill(const skit_eval_report *r,
                                                     size_t i)
{
	return i < r->nskills ? &r->skills[i] : NULL;
}

size_t skit_eval_report_query_count(const skit_eval_report *r)
{
	return r->nqueries;
}

const skit_eval_query_result *skit_eval_report_query(const skit_eval_report *r,
                                                     size_t i)
{
	return i < r->nqueries ? &r->queries[i] : NULL;
}

size_t skit_eval_report_trigger_count(const skit_eval_report *r)
{
	return r->ntriggers;
}

const skit_eval_trigger_result *
skit_eval_report_trigger(const skit_eval_report *r, size_t i)
{
	return i < r->ntriggers ? &r->triggers[i] : NULL;
}

void skit_eval_report_summary(const skit_eval_report *r, skit_eval_summary *out)
{
	*out = r->sum;
}

int skit_eval_report_write(char **out, const skit_eval_report *r,
                           skit_eval_format format, skit_error *err)
{
	struct skitx_buf b;
	int rc;

	assert(out && r);
	*out = NULL;
	if (format != SKIT_EVAL_TEXT && format != SKIT_EVAL_JSON &&
	    format != SKIT_EVAL_JUNIT)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "unknown report format %d", (int)format);
	skitx_buf_init(&b, 0);
	rc = skit__eval_render(&b, r, format);
	if (rc) {
		skitx_buf_release(&b);
		return skit__error_oom(err);
	}
	*out = skitx_buf_detach(&b, NULL);
	return *out ? 0 : skit__error_oom(err);
}

void skit_eval_report_free(skit_eval_report *r)
{
	if (!r)
		return;
	skitx_pool_release(&r->pool);
	skitx_free(r->cases);
	skitx_free(r->case_raw);
	skitx_free(r->query_raw);
	skitx_free(r->skills);
	skitx_free(r->queries);
	skitx_free(r->triggers);
	skitx_free(r);
}
