/* SPDX-License-Identifier: MIT */
/*
 * eval_load.c - loading eval case files and trigger sets into a suite
 * (see include/skit/eval.h): the paths given (case files, or folders of
 * them), each file parsed (YAML, or JSON read into the same tree) and
 * checked key by key, a trigger set's queries, a case's `files` kept
 * inside its folder, the suite's caps, and which folder is not trusted to
 * run. Its key-checking helpers are declared in eval_int.h; running the
 * trials is eval.c's, and it uses no other file of eval.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "skit/eval.h"
#include "skit/registry.h"
#include "lib/core/error.h"
#include "lib/eval/eval_int.h"
#include "lib/core/rx.h"
#include "lib/tools/tools_int.h"
#include "lib/skill/yaml.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/vec.h"

#define CASE_MAX         (1024u * 1024)
#define CASES_MAX        10000u
#define JSON_DEPTH       32
#define NAME_MAX_BYTES   100u
#define TRIALS_TOTAL_MAX 100000u
#define SHOW_MAX         SKIT__EVAL_SHOW_MAX
#define TURNS_MAX        25u /* a trigger set's max_turns */
#define TURNS_DEFAULT    3u

/* ---- loading ----------------------------------------------------------- */

/* "file:line: message" as SKIT_EINVALID. */
int skit__eval_bad(struct eval_loader *ld, const struct skit__ynode *n,
                   const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	unsigned int line = n ? n->line : 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		return skit__error_set(ld->err, SKIT_EINVALID, line,
		                       "%s:%u: %s", ld->file, line, msg);
	return skit__error_set(ld->err, SKIT_EINVALID, 0, "%s: %s", ld->file,
	                       msg);
}

static struct skit__ynode *ynode(struct skitx_pool *pool,
                                 enum skit__ynode_kind kind)
{
	struct skit__ynode *n = skitx_pool_alloc(pool, sizeof(*n));

	if (n) {
		memset(n, 0, sizeof(*n));
		n->kind = kind;
	}
	return n;
}

/*
 * A JSON document as the YAML module's tree, so one validator serves
 * both formats. Scalars become their text; jansson keeps no positions,
 * so lines are 0 and messages name only the file.
 */
static struct skit__ynode *from_json(struct skitx_pool *pool, json_t *j,
                                     int depth)
{
	struct skit__ynode *n;
	const char *k;
	json_t *v;
	size_t i, count;

	if (depth > JSON_DEPTH)
		return NULL;
	if (json_is_object(j) || json_is_array(j)) {
		n = ynode(pool, json_is_object(j) ? SKIT_YMAP : SKIT_YSEQ);
		count = json_is_object(j) ? json_object_size(j)
		                          : json_array_size(j);
		if (!n)
			return NULL;
		n->items =
		        skitx_pool_alloc(pool, (count + 1) * sizeof(*n->items));
		n->keys =
		        skitx_pool_alloc(pool, (count + 1) * sizeof(*n->keys));
		if (!n->items || !n->keys)
			return NULL;
		if (json_is_array(j)) {
			json_array_foreach(j, i, v)
			{
				n->items[n->n] = from_json(pool, v, depth + 1);
				if (!n->items[n->n++])
					return NULL;
			}
			return n;
		}
		json_object_foreach(j, k, v)
		{
			n->keys[n->n] = ynode(pool, SKIT_YSCALAR);
			if (!n->keys[n->n])
				return NULL;
			n->keys[n->n]->value = skitx_pool_strdup(pool, k);
			n->keys[n->n]->len = strlen(k);
			n->items[n->n] = from_json(pool, v, depth + 1);
			if (!n->keys[n->n]->value || !n->items[n->n++])
				return NULL;
		}
		return n;
	}
	n = ynode(pool, SKIT_YSCALAR);
	if (!n)
		return NULL;
	if (json_is_string(j))
		n->value = skitx_pool_strndup(pool, json_string_value(j),
		                              json_string_length(j));
	else if (json_is_integer(j))
		n->value = skitx_pool_printf(pool, "%lld",
		                             (long long)json_integer_value(j));
	else if (json_is_real(j))
		n->value = skitx_pool_printf(pool, "%.17g", json_real_value(j));
	else
		n->value = skitx_pool_strdup(pool, json_is_true(j)    ? "true"
		                                   : json_is_false(j) ? "false"
		                                                      : "null");
	if (n->value)
		n->len = strlen(n->value);
	return n->value ? n : NULL;
}

int skit__eval_keys(struct eval_loader *ld, const struct skit__ynode *map,
                    const char *what, const char *const *allowed)
{
	if (!map || map->kind != SKIT_YMAP)
		return skit__eval_bad(ld, map, "%s must be a mapping", what);
	for (size_t i = 0; i < map->n; i++) {
		size_t k;

		for (k = 0; allowed[k]; k++)
			if (!strcmp(map->keys[i]->value, allowed[k]))
				break;
		if (!allowed[k])
			return skit__eval_bad(ld, map->keys[i],
			                      "unknown key '%.*s'", SHOW_MAX,
			                      map->keys[i]->value);
	}
	return 0;
}

int skit__eval_str(struct eval_loader *ld, const struct skit__ynode *map,
                   const char *key, const char **out, bool required)
{
	const struct skit__ynode *v = skit__yaml_get(map, key);

	*out = NULL;
	if (!v && required)
		return skit__eval_bad(ld, map, "missing '%s'", key);
	if (!v)
		return 0;
	if (v->kind != SKIT_YSCALAR)
		return skit__eval_bad(ld, v, "'%s' must be a string", key);
	*out = v->value;
	return 0;
}

/* A string or a list of strings. */
static int get_list(struct eval_loader *ld, const struct skit__ynode *map,
                    const char *key, struct eval_strv *out)
{
	const struct skit__ynode *v = skit__yaml_get(map, key);

	memset(out, 0, sizeof(*out));
	if (!v)
		return 0;
	if (v->kind == SKIT_YMAP)
		return skit__eval_bad(
		        ld, v, "'%s' must be a string or a list of strings",
		        key);
	out->v = skitx_pool_alloc(
	        ld->pool,
	        (v->kind == SKIT_YSEQ ? v->n : 1) * sizeof(*out->v) + 1);
	if (!out->v)
		return skit__error_oom(ld->err);
	if (v->kind == SKIT_YSCALAR) {
		out->v[out->n++] = v->value;
		return 0;
	}
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i]->kind != SKIT_YSCALAR)
			return skit__eval_bad(
			        ld, v->items[i],
			        "'%s' must be a string or a list of strings",
			        key);
		out->v[out->n++] = v->items[i]->value;
	}
	return 0;
}

int skit__eval_count(struct eval_loader *ld, const struct skit__ynode *map,
                     const char *key, unsigned long max, long *out)
{
	const struct skit__ynode *v = skit__yaml_get(map, key);
	unsigned long x = 0;
	const char *p;

	if (!v)
		return 0;
	if (v->kind != SKIT_YSCALAR || !v->value[0] || v->len > 9)
		return skit__eval_bad(ld, v, "'%s' must be a whole number",
		                      key);
	for (p = v->value; *p; p++) {
		if (*p < '0' || *p > '9')
			return skit__eval_bad(
			        ld, v, "'%s' must be a whole number", key);
		x = x * 10 + (unsigned long)(*p - '0');
	}
	if (x > max)
		return skit__eval_bad(ld, v, "'%s' must be at most %lu", key,
		                      max);
	*out = (long)x;
	return 0;
}

/*
 * Open the entry `rel` of a case's `files` beneath the case's folder
 * `dir`. Case files are untrusted input, and skit copies their files
 * itself, outside any sandbox, into the work folder that the trial's
 * programs and the model read: an absolute path, a '..' or a symbolic
 * link would name any file the user can read (a key, a token). So the
 * path is judged lexically first, for a clear message, then opened with
 * skit__open_beneath() (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
 * or one O_NOFOLLOW step per component), which leaves the folder at no
 * step and follows no link, not even one that points inside: one rule,
 * nothing to resolve, and no window between a check and the open. Only
 * a regular file with no other hard link is taken, since a hard link is
 * the one way left to give a file outside the folder a name inside it.
 *
 * Returns the descriptor, or -1 with *why set (static text).
 */
int skit__eval_open_case_file(const char *dir, const char *rel,
                              const char **why)
{
	const char *lexical = skit__check_rel_path(rel);
	struct stat st;
	int dfd, fd, e;

	if (lexical) {
		*why = rel[0] == '/' ? "is an absolute path; a case's files "
		                       "must be inside its folder"
		       : !rel[0]     ? "is empty"
		       : strstr(lexical, "..")
		               ? "leaves the case folder ('..'); a case's "
		                 "files must be inside its folder"
		               : "is too long";
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*why = "cannot be opened: the case's folder cannot be";
		return -1;
	}
	fd = skit__open_beneath(dfd, rel, O_RDONLY | O_NONBLOCK);
	e = errno;
	close(dfd);
	if (fd < 0) {
		*why = e == ENOENT ? "does not exist"
		       : e == ELOOP || e == EXDEV
		               ? "goes through a symbolic link; a case's "
		                 "files must be inside its folder"
		       : e == ENOTDIR ? "does not exist, or goes through a "
		                        "symbolic link"
		       : e == EACCES  ? "cannot be read (permission denied)"
		                      : "cannot be opened";
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*why = "is not a regular file";
		return -1;
	}
	if (st.st_nlink > 1) {
		close(fd);
		*why = "has other hard links; copy the file into the case's "
		       "folder";
		return -1;
	}
	return fd;
}

/* A path of the case, against the case file's folder. */
const char *skit__eval_resolve(struct eval_loader *ld, const char *rel)
{
	if (rel[0] == '/')
		return rel;
	return skitx_pool_printf(ld->pool, "%s/%s", ld->dir, rel);
}

int skit__eval_paths(struct eval_loader *ld, const struct skit__ynode *map,
                     const char *key, struct eval_strv *out, bool skills)
{
	const struct skit__ynode *node = skit__yaml_get(map, key);
	int rc = get_list(ld, map, key, out);

	for (size_t i = 0; !rc && i < out->n; i++) {
		const char *p = skit__eval_resolve(ld, out->v[i]);
		char *md;
		bool is_skill;

		if (!p)
			return skit__error_oom(ld->err);
		if (!skills) {
			/* Kept relative: copied from beneath `dir` again. */
			const struct skit__ynode *item =
			        node->kind == SKIT_YSEQ ? node->items[i] : node;
			const char *why;
			int fd = skit__eval_open_case_file(ld->dir, out->v[i],
			                                   &why);

			if (fd < 0)
				return skit__eval_bad(ld, item,
				                      "'%s': '%.*s' %s", key,
				                      SHOW_MAX, out->v[i], why);
			close(fd);
			continue;
		}
		if (!skitx_fs_is_dir(p))
			return skit__eval_bad(ld, node,
			                      "'%s': no such folder '%.*s'",
			                      key, SHOW_MAX, out->v[i]);
		/* A skill folder: its parent is the root. */
		md = skitx_path_join(p, "SKILL.md");
		if (!md)
			return skit__error_oom(ld->err);
		is_skill = skitx_fs_exists(md);
		skitx_free(md);
		out->v[i] = p;
		if (is_skill) {
			md = skitx_path_dirname(p);
			out->v[i] = md ? skitx_pool_strdup(ld->pool, md) : NULL;
			skitx_free(md);
		}
		if (!out->v[i])
			return skit__error_oom(ld->err);
	}
	return rc;
}

static int load_output(struct eval_loader *ld, struct eval_case *c,
                       const struct skit__ynode *out)
{
	static const char *const keys[] = { "contains", "not_contains", "regex",
		                            "json", NULL };
	static const char *const jkeys[] = { "path", "equals", NULL };
	const struct skit__ynode *js;
	int rc = skit__eval_keys(ld, out, "'output'", keys);

	if (!rc)
		rc = get_list(ld, out, "contains", &c->contains);
	if (!rc)
		rc = get_list(ld, out, "not_contains", &c->not_contains);
	if (!rc)
		rc = get_list(ld, out, "regex", &c->regex);
	for (size_t i = 0; !rc && i < c->regex.n; i++) {
		struct skit__rx *re;
		skit_error rx_err = { 0 };

		rc = skit__rx_new(&re, c->regex.v[i], 0, &rx_err);
		skit__rx_free(re);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(ld->err);
		if (rc)
			return skit__eval_bad(ld, skit__yaml_get(out, "regex"),
			                      "bad regex '%.*s': %s", SHOW_MAX,
			                      c->regex.v[i], rx_err.message);
	}
	js = skit__yaml_get(out, "json");
	if (rc || !js)
		return rc;
	if (js->kind == SKIT_YMAP)
		return skit__eval_bad(
		        ld, js, "'json' must be a list of {path, equals}");
	c->json = skitx_pool_alloc(ld->pool, (js->n + 1) * sizeof(*c->json));
	if (!c->json)
		return skit__error_oom(ld->err);
	for (size_t i = 0; !rc && i < js->n; i++) {
		const struct skit__ynode *item = js->items[i];

		rc = skit__eval_keys(ld, item, "a 'json' check", jkeys);
		if (!rc)
			rc = skit__eval_str(ld, item, "path", &c->json[i].path,
			                    true);
		if (!rc)
			rc = skit__eval_str(ld, item, "equals",
			                    &c->json[i].equals, true);
		c->njson++;
	}
	return rc;
}

static int load_expected(struct eval_loader *ld, struct eval_case *c,
                         const struct skit__ynode *ex)
{
	static const char *const keys[] = {
		"skills",          "not_skills", "steps", "max_tool_calls",
		"forbidden_tools", "output",     NULL
	};
	int rc = skit__eval_keys(ld, ex, "'expected'", keys);

	if (!rc)
		rc = get_list(ld, ex, "skills", &c->exp_skills);
	if (!rc)
		rc = get_list(ld, ex, "not_skills", &c->not_skills);
	if (!rc)
		rc = get_list(ld, ex, "steps", &c->steps);
	if (!rc)
		rc = get_list(ld, ex, "forbidden_tools", &c->forbidden);
	if (!rc)
		rc = skit__eval_count(ld, ex, "max_tool_calls", 100000,
		                      &c->max_tool_calls);
	if (!rc && skit__yaml_get(ex, "output"))
		rc = load_output(ld, c, skit__yaml_get(ex, "output"));
	return rc;
}

int skit__eval_name(struct eval_loader *ld, const struct skit__ynode *map,
                    const char **out)
{
	const struct skit__ynode *node = skit__yaml_get(map, "name");
	int rc = skit__eval_str(ld, map, "name", out, false);
	const char *n = *out;

	if (rc || !n)
		return rc;
	if (!n[0] || strlen(n) > NAME_MAX_BYTES || !strcmp(n, ".") ||
	    !strcmp(n, "..") || strchr(n, '/'))
		return skit__eval_bad(ld, node,
		                      "'name' must be a file name of 1 to %u "
		                      "bytes, without '/'",
		                      NAME_MAX_BYTES);
	for (; *n; n++)
		if ((unsigned char)*n < 0x20 || *n == 0x7f)
			return skit__eval_bad(ld, node,
			                      "'name' has a control character");
	return 0;
}

int skit__eval_cassette(struct eval_loader *ld, const struct skit__ynode *map,
                        const char **out)
{
	const char *rel = NULL;
	int rc = skit__eval_str(ld, map, "cassette", &rel, false);

	if (rc || !rel)
		return rc;
	*out = skit__eval_resolve(ld, rel);
	return *out ? 0 : skit__error_oom(ld->err);
}

int skit__eval_trials(struct eval_loader *ld, const struct skit__ynode *map,
                      unsigned int *out)
{
	long n = -1;
	int rc = skit__eval_count(ld, map, "trials", SKIT__EVAL_TRIALS_MAX, &n);

	if (!rc && n == 0)
		rc = skit__eval_bad(ld, skit__yaml_get(map, "trials"),
		                    "'trials' must be at least 1");
	if (!rc && n > 0)
		*out = (unsigned int)n;
	return rc;
}

int skit__eval_rate(struct eval_loader *ld, const struct skit__ynode *map,
                    const char *key, bool below_one, double *out)
{
	const char *s = NULL;
	char *end;
	double v;
	int rc = skit__eval_str(ld, map, key, &s, false);

	if (rc || !s)
		return rc;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.0 && v <= 1.0) ||
	    (below_one && v >= 1.0))
		return skit__eval_bad(ld, skit__yaml_get(map, key),
		                      "'%s' must be a number from 0 to %s", key,
		                      below_one ? "under 1" : "1");
	*out = v;
	return 0;
}

static int load_case(struct eval_loader *ld, struct eval_case *c,
                     const struct skit__ynode *root)
{
	static const char *const keys[] = { "name",     "description",
		                            "input",    "skills",
		                            "files",    "cassette",
		                            "trials",   "pass_threshold",
		                            "expected", NULL };
	const char *name = NULL, *desc = NULL;
	int rc;

	if (!root)
		return skit__eval_bad(ld, NULL, "empty case file");
	rc = skit__eval_keys(ld, root, "a case", keys);
	if (!rc)
		rc = skit__eval_name(ld, root, &name);
	if (!rc)
		rc = skit__eval_str(ld, root, "description", &desc, false);
	if (!rc)
		rc = skit__eval_str(ld, root, "input", &c->input, true);
	if (!rc && !c->input[0])
		rc = skit__eval_bad(ld, skit__yaml_get(root, "input"),
		                    "'input' is empty");
	if (!rc)
		rc = skit__eval_paths(ld, root, "skills", &c->skills, true);
	if (!rc)
		rc = skit__eval_paths(ld, root, "files", &c->files, false);
	if (!rc)
		rc = skit__eval_cassette(ld, root, &c->cassette);
	if (!rc)
		rc = skit__eval_trials(ld, root, &c->trials);
	if (!rc)
		rc = skit__eval_rate(ld, root, "pass_threshold", false,
		                     &c->threshold);
	if (!rc && skit__yaml_get(root, "expected"))
		rc = load_expected(ld, c, skit__yaml_get(root, "expected"));
	if (!rc && name)
		c->name = name;
	return rc;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

static bool is_case_file(const char *name)
{
	return name[0] != '.' &&
	       (has_suffix(name, ".yaml") || has_suffix(name, ".yml") ||
	        has_suffix(name, ".json"));
}

static int parse_case(struct eval_loader *ld, struct skit__ynode **root,
                      const struct skitx_buf *text)
{
	char msg[200];
	unsigned int line = 0, col = 0;
	json_error_t je;
	json_t *j;
	int rc;

	if (!has_suffix(ld->file, ".json")) {
		rc = skit__yaml_parse(root, ld->pool, skitx_buf_cstr(text),
		                      skitx_buf_len(text), msg, sizeof(msg),
		                      &line, &col);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(ld->err);
		if (rc)
			return skit__error_set(ld->err, SKIT_EINVALID, line,
			                       "%s:%u: %s", ld->file, line,
			                       msg);
		return 0;
	}
	j = json_loadb(skitx_buf_cstr(text), skitx_buf_len(text),
	               JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return skit__error_set(ld->err, SKIT_EINVALID,
		                       (unsigned int)je.line, "%s:%d: %s",
		                       ld->file, je.line, je.text);
	*root = from_json(ld->pool, j, 0);
	json_decref(j);
	if (!*root)
		return skit__error_set(ld->err, SKIT_EINVALID, 0,
		                       "%s: too deeply nested, or out of "
		                       "memory",
		                       ld->file);
	return 0;
}

int skit__eval_add(struct eval_loader *ld, skit_eval_suite *s,
                   struct eval_case **out)
{
	struct eval_case *grown, *c;

	if (s->n >= CASES_MAX)
		return skit__error_set(ld->err, SKIT_ETOOBIG, 0,
		                       "%s: too many cases and queries (over "
		                       "%u)",
		                       ld->file, CASES_MAX);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;

		grown = skitx_realloc(s->cases, cap * sizeof(*s->cases));
		if (!grown)
			return skit__error_oom(ld->err);
		s->cases = grown;
		s->cap = cap;
	}
	c = &s->cases[s->n++];
	memset(c, 0, sizeof(*c));
	c->threshold = -1.0;
	c->max_tool_calls = -1;
	c->trials = 1;
	c->file = ld->file;
	c->dir = ld->dir;
	c->name = ld->name;
	*out = c;
	return 0;
}

/* ---- trigger sets ------------------------------------------------------ */

static int load_query(struct eval_loader *ld, struct eval_case *c,
                      const struct skit__ynode *q)
{
	static const char *const keys[] = { "query", "should_trigger",
		                            "cassette", NULL };
	const char *should = NULL;
	int rc = skit__eval_keys(ld, q, "a query", keys);

	if (!rc)
		rc = skit__eval_str(ld, q, "query", &c->input, true);
	if (!rc && !c->input[0])
		rc = skit__eval_bad(ld, skit__yaml_get(q, "query"),
		                    "'query' is empty");
	if (!rc)
		rc = skit__eval_str(ld, q, "should_trigger", &should, true);
	if (!rc && strcmp(should, "true") && strcmp(should, "false"))
		rc = skit__eval_bad(ld, skit__yaml_get(q, "should_trigger"),
		                    "'should_trigger' must be true or false");
	if (!rc)
		c->should = !strcmp(should, "true");
	if (!rc)
		rc = skit__eval_cassette(ld, q, &c->cassette);
	return rc;
}

int skit__eval_load_set(struct eval_loader *ld, skit_eval_suite *s,
                        const struct skit__ynode *root, const char *name)
{
	static const char *const keys[] = {
		"name",     "description", "skill",     "skills",
		"cassette", "trials",      "threshold", "max_turns",
		"holdout",  "seed",        "queries",   NULL
	};
	const struct skit__ynode *qs = skit__yaml_get(root, "queries");
	const char *own_name = NULL, *desc = NULL;
	struct eval_case set;
	long turns = TURNS_DEFAULT;
	int rc;

	memset(&set, 0, sizeof(set));
	set.threshold = 0.5;
	set.seed = "0";
	set.trials = 1;
	rc = skit__eval_keys(ld, root, "a trigger set", keys);
	if (!rc)
		rc = skit__eval_name(ld, root, &own_name);
	if (!rc)
		rc = skit__eval_str(ld, root, "description", &desc, false);
	if (!rc)
		rc = skit__eval_str(ld, root, "skill", &set.skill, true);
	if (!rc && !set.skill[0])
		rc = skit__eval_bad(ld, skit__yaml_get(root, "skill"),
		                    "'skill' is empty");
	if (!rc && !skit__yaml_get(root, "skills"))
		rc = skit__eval_bad(ld, root, "missing 'skills'");
	if (!rc)
		rc = skit__eval_paths(ld, root, "skills", &set.skills, true);
	if (!rc)
		rc = skit__eval_cassette(ld, root, &set.cassette);
	if (!rc)
		rc = skit__eval_trials(ld, root, &set.trials);
	if (!rc)
		rc = skit__eval_count(ld, root, "max_turns", TURNS_MAX, &turns);
	if (!rc && turns < 1)
		rc = skit__eval_bad(ld, skit__yaml_get(root, "max_turns"),
		                    "'max_turns' must be at least 1");
	if (!rc)
		rc = skit__eval_rate(ld, root, "threshold", false,
		                     &set.threshold);
	if (!rc && set.threshold <= 0.0)
		rc = skit__eval_bad(ld, skit__yaml_get(root, "threshold"),
		                    "'threshold' must be above 0");
	if (!rc)
		rc = skit__eval_rate(ld, root, "holdout", true, &set.holdout);
	if (!rc && skit__yaml_get(root, "seed"))
		rc = skit__eval_str(ld, root, "seed", &set.seed, true);
	if (!rc && (qs->kind != SKIT_YSEQ || !qs->n))
		rc = skit__eval_bad(ld, qs,
		                    "'queries' must be a non-empty list of "
		                    "{query, should_trigger}");
	if (rc)
		return rc;
	set.turns = (unsigned int)turns;
	set.set = ++s->sets;
	if (own_name)
		name = own_name;
	for (size_t i = 0; !rc && i < qs->n; i++) {
		struct eval_case *c;

		rc = skit__eval_add(ld, s, &c);
		if (rc)
			break;
		c->name = skitx_pool_printf(ld->pool, "%s#%zu", name, i + 1);
		if (!c->name)
			return skit__error_oom(ld->err);
		c->skills = set.skills;
		c->cassette = set.cassette;
		c->trials = set.trials;
		c->threshold = set.threshold;
		c->skill = set.skill;
		c->turns = set.turns;
		c->set = set.set;
		c->holdout = set.holdout;
		c->seed = set.seed;
		rc = load_query(ld, c, qs->items[i]);
	}
	return rc;
}

/* ---- files and folders ------------------------------------------------- */

static int load_file(skit_eval_suite *s, const char *path, skit_error *err)
{
	size_t first = s->n;
	struct skitx_buf text;
	struct skit__ynode *root = NULL;
	struct eval_loader ld;
	struct eval_case *c;
	char *abs = skitx_path_absolute(path), *dir = NULL, *dot;
	const char *base;
	size_t blen;
	int rc;

	skitx_buf_init(&text, CASE_MAX);
	if (abs)
		dir = skitx_path_dirname(abs);
	ld.pool = &s->pool;
	ld.file = skitx_pool_strdup(&s->pool, path);
	ld.dir = dir ? skitx_pool_strdup(&s->pool, dir) : NULL;
	ld.err = err;
	base = skitx_path_name(path, &blen);
	ld.name = base ? skitx_pool_strndup(&s->pool, base, blen) : NULL;
	if (!ld.file || !ld.dir || !ld.name) {
		rc = skit__error_oom(err);
		goto out;
	}
	dot = strrchr((char *)ld.name, '.');
	if (dot && dot != ld.name)
		*dot = '\0';
	rc = skitx_fs_read_file(path, &text, CASE_MAX);
	if (rc == SKIT_ETOOBIG)
		rc = skit__error_set(err, rc, 0, "%s: larger than 1 MiB", path);
	else if (rc == SKIT_ENOMEM)
		rc = skit__error_oom(err);
	else if (rc)
		rc = skit__error_set(err, rc == SKIT_ENOTFOUND ? rc : SKIT_EIO,
		                     0, "%s: %s", path, strerror(errno));
	if (!rc)
		rc = parse_case(&ld, &root, &text);
	if (rc)
		goto out;
	if (root && root->kind == SKIT_YMAP &&
	    skit__yaml_get(root, "queries")) {
		rc = skit__eval_load_set(&ld, s, root, ld.name);
		goto out;
	}
	rc = skit__eval_add(&ld, s, &c);
	if (!rc)
		rc = load_case(&ld, c, root);
out:
	for (size_t i = first; !rc && i < s->n; i++)
		s->trials += s->cases[i].trials;
	if (!rc && s->trials > TRIALS_TOTAL_MAX)
		rc = skit__error_set(err, SKIT_ETOOBIG, 0,
		                     "%s: the suite would run over %u trials",
		                     path, TRIALS_TOTAL_MAX);
	skitx_buf_release(&text);
	skitx_free(abs);
	skitx_free(dir);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The case files a path names, sorted by name within a folder. */
static int list_path(struct skitx_vec *files, const char *path, skit_error *err)
{
	struct dirent *de;
	size_t first = files->len;
	DIR *d;
	char *p;

	if (!skitx_fs_is_dir(path)) {
		if (!skitx_fs_exists(path))
			return skit__error_set(err, SKIT_ENOTFOUND, 0,
			                       "%s: no such file or folder",
			                       path);
		p = skitx_strdup(path);
		if (!p || skitx_vec_push(files, p)) {
			skitx_free(p);
			return skit__error_oom(err);
		}
		return 0;
	}
	d = opendir(path);
	if (!d)
		return skit__error_set(err, SKIT_EIO, 0, "%s: %s", path,
		                       strerror(errno));
	while ((de = readdir(d))) {
		if (!is_case_file(de->d_name))
			continue;
		p = skitx_path_join(path, de->d_name);
		if (!p || skitx_vec_push(files, p) || files->len > CASES_MAX) {
			skitx_free(p);
			closedir(d);
			return files->len > CASES_MAX
			               ? skit__error_set(err, SKIT_ETOOBIG, 0,
			                                 "%s: too many case "
			                                 "files",
			                                 path)
			               : skit__error_oom(err);
		}
	}
	closedir(d);
	if (files->len == first)
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "%s: no *.yaml, *.yml or *.json case "
		                       "files",
		                       path);
	qsort(files->items + first, files->len - first, sizeof(void *),
	      cmp_str);
	return 0;
}

int skit_eval_suite_load(skit_eval_suite **out, const char *const *paths,
                         size_t n, skit_error *err)
{
	struct skitx_vec files = SKITX_VEC_INIT;
	skit_eval_suite *s;
	int rc = 0;

	assert(out && (paths || !n));
	*out = NULL;
	if (!n)
		return skit__error_set(err, SKIT_EUSAGE, 0, "no case files");
	s = skitx_calloc(1, sizeof(*s));
	if (!s)
		return skit__error_oom(err);
	skitx_pool_init(&s->pool, 0);
	for (size_t i = 0; !rc && i < n; i++)
		rc = list_path(&files, paths[i], err);
	for (size_t i = 0; !rc && i < files.len; i++)
		rc = load_file(s, files.items[i], err);
	for (size_t i = 0; i < files.len; i++)
		skitx_free(files.items[i]);
	skitx_vec_release(&files);
	if (rc) {
		skit_eval_suite_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/*
 * The folder the user would trust for case files in `dir`: their
 * project, as for a run started there, or `dir` itself when that is no
 * project (the home folder, say, which cannot be trusted: the user then
 * learns why from `skit trust`).
 */
static int trust_target(char **out, const char *dir, skit_error *err)
{
	int rc = skit_project_for_run(out, dir, NULL);

	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc || !*out) {
		*out = skitx_strdup(dir);
		if (!*out)
			return skit__error_oom(err);
	}
	return 0;
}

int skit_eval_suite_untrusted(char **out, const skit_eval_suite *s,
                              skit_error *err)
{
	const char *last = NULL;

	assert(out && s);
	*out = NULL;
	for (size_t i = 0; i < s->n; i++) {
		const char *dir = s->cases[i].dir;
		bool trusted = false;

		/* The entries of one folder are next to each other. */
		if (last && !strcmp(last, dir))
			continue;
		last = dir;
		if (skit_trust_check(&trusted, dir, err) < 0)
			return SKIT_ENOMEM;
		if (!trusted)
			return trust_target(out, dir, err);
	}
	return 0;
}

size_t skit_eval_suite_count(const skit_eval_suite *s)
{
	return s->n;
}

const char *skit_eval_suite_case_name(const skit_eval_suite *s, size_t i)
{
	return i < s->n ? s->cases[i].name : NULL;
}

const char *skit_eval_suite_case_file(const skit_eval_suite *s, size_t i)
{
	return i < s->n ? s->cases[i].file : NULL;
}

void skit_eval_suite_free(skit_eval_suite *s)
{
	if (!s)
		return;
	skitx_pool_release(&s->pool);
	skitx_free(s->cases);
	skitx_free(s);
}
