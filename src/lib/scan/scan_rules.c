/* SPDX-License-Identifier: MIT */
/*
 * scan_rules.c - load a scan rules file (YAML) and compile it: each
 * rule's regex, and one Aho-Corasick automaton over every keyword.
 *
 * Speed: a skill store holds hundreds of megabytes, and running some forty
 * regular expressions over every byte would cost forty passes. Instead all
 * keywords go into one Aho-Corasick automaton (a transition table with one
 * column per byte class) that reads each file once, folding ASCII case;
 * only the lines where a rule's keyword occurs are handed to that rule's
 * regex. The regex decides; the keywords only choose where to look, and
 * the rule examples check that every positive example holds one of its
 * rule's keywords.
 */
#include "common.h"

#include <errno.h>

#include "lib/scan/scan_int.h"
#include "lib/core/datadir.h"
#include "lib/core/error.h"
#include "lib/skill/yaml.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/vec.h"

#define RULES_FILE_MAX (1u << 20) /* bytes of a rules file */
#define RULES_MAX      512u       /* rules in a file */
#define KEYWORD_MAX    64u        /* bytes of one keyword */
#define SPAN_MAX       5u         /* lines a windowed rule reads */

const char *const skit__scan_ctx_names[NCTX] = {
	"frontmatter", "instruction", "hidden", "script", "decoded",
	"example",     "doc",         "data",   "file",
};

const char *const skit__scan_det_names[NDET] = {
	"regex",         "executable", "archive",     "encoded-blob",
	"symlink",       "too-large",  "setuid",      "combination",
	"link-mismatch", "polyglot",   "work-budget",
};

static const char *const sev_names[] = { "info", "low", "medium", "high",
	                                 "critical" };

static const uint8_t fold[256] = {
#define F(c)   ((c) >= 'A' && (c) <= 'Z' ? (c) + 32 : (c))
#define R4(b)  F(b), F(b + 1), F(b + 2), F(b + 3)
#define R16(b) R4(b), R4(b + 4), R4(b + 8), R4(b + 12)
#define R64(b) R16(b), R16(b + 16), R16(b + 32), R16(b + 48)
	R64(0), R64(64), R64(128), R64(192)
#undef R64
#undef R16
#undef R4
#undef F
};

/* ---- severities ------------------------------------------------------- */

const char *skit_scan_severity_name(skit_scan_severity s)
{
	return (unsigned)s <= SKIT_SCAN_CRITICAL ? sev_names[s] : "?";
}

int skit_scan_severity_parse(skit_scan_severity *out, const char *name)
{
	for (size_t i = 0; i <= SKIT_SCAN_CRITICAL; i++)
		if (!strcmp(name, sev_names[i])) {
			*out = (skit_scan_severity)i;
			return 0;
		}
	return SKIT_EINVALID;
}

/* 3: a hex digit (also base64), 1: base64 only, 0: neither. */
static uint8_t b64_class(uint8_t c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F'))
		return 3;
	if ((c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z') || c == '+' ||
	    c == '/')
		return 1;
	return 0;
}

/* ---- rules file ------------------------------------------------------- */

static int rule_error(skit_error *err, const char *id, const char *what)
{
	return skit__error_set(err, SKIT_EINVALID, 0, "scan rule %.80s: %s",
	                       id ? id : "(no id)", what);
}

static const char *scalar(const struct skit__ynode *map, const char *key)
{
	const struct skit__ynode *n = skit__yaml_get(map, key);

	return n && n->kind == SKIT_YSCALAR ? n->value : NULL;
}

/* A list of strings, or a single string, as a node list. */
static int string_list(const struct skit__ynode *n,
                       const struct skit__ynode *const **items, size_t *count)
{
	if (!n) {
		*items = NULL;
		*count = 0;
		return 0;
	}
	if (n->kind == SKIT_YSEQ) {
		for (size_t i = 0; i < n->n; i++)
			if (n->items[i]->kind != SKIT_YSCALAR &&
			    n->items[i]->kind != SKIT_YMAP)
				return SKIT_EINVALID;
		*items = (const struct skit__ynode *const *)n->items;
		*count = n->n;
		return 0;
	}
	return SKIT_EINVALID;
}

int skit__scan_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* An example: a string, or {hex: "..."} for bytes YAML cannot carry. */
static int load_example(skit_scanner *sc, struct example *ex,
                        const struct skit__ynode *n, bool positive)
{
	const char *hex;
	size_t hl;
	char *bytes;

	ex->positive = positive;
	if (n->kind == SKIT_YSCALAR) {
		ex->text = n->value;
		ex->len = n->len;
		return 0;
	}
	hex = scalar(n, "hex");
	if (!hex || (hl = strlen(hex)) % 2)
		return SKIT_EINVALID;
	bytes = skitx_pool_alloc(&sc->pool, hl / 2 + 1);
	if (!bytes)
		return SKIT_ENOMEM;
	for (size_t i = 0; i < hl; i += 2) {
		int hi = skit__scan_hexval(hex[i]),
		    lo = skit__scan_hexval(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return SKIT_EINVALID;
		bytes[i / 2] = (char)(hi << 4 | lo);
	}
	ex->text = bytes;
	ex->len = hl / 2;
	return 0;
}

static int parse_where(unsigned int *out, const struct skit__ynode *n)
{
	const struct skit__ynode *const *items;
	size_t count;

	if (!n) {
		*out = CTX_TEXT_ALL;
		return 0;
	}
	if (string_list(n, &items, &count) || !count)
		return SKIT_EINVALID;
	*out = 0;
	for (size_t i = 0; i < count; i++) {
		size_t c;

		if (items[i]->kind != SKIT_YSCALAR)
			return SKIT_EINVALID;
		if (!strcmp(items[i]->value, "markdown")) {
			*out |= (1u << CTX_FRONTMATTER) |
			        (1u << CTX_INSTRUCTION) | (1u << CTX_HIDDEN) |
			        (1u << CTX_EXAMPLE) | (1u << CTX_DOC);
			continue;
		}
		for (c = 0; c < CTX_FILE; c++)
			if (!strcmp(items[i]->value, skit__scan_ctx_names[c]))
				break;
		if (c == CTX_FILE)
			return SKIT_EINVALID;
		*out |= 1u << c;
	}
	return 0;
}

/* A new automaton state; the table grows by doubling. */
static int32_t ac_state(skit_scanner *sc, size_t *alloc)
{
	if (sc->nstates == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 256;
		int32_t *nx = skitx_realloc(sc->next, na * 256 * sizeof(*nx));

		if (!nx)
			return -1;
		sc->next = nx;
		*alloc = na;
	}
	for (size_t c = 0; c < 256; c++)
		sc->next[sc->nstates * 256 + c] = -1;
	return (int32_t)sc->nstates++;
}

static int ac_add(skit_scanner *sc, size_t *alloc, const char *kw, size_t len,
                  uint32_t rule, struct skitx_vec *outs)
{
	int32_t s = 0;
	struct acout *o;

	for (size_t i = 0; i < len; i++) {
		int32_t *slot =
		        &sc->next[(size_t)s * 256 + fold[(uint8_t)kw[i]]];

		if (*slot < 0) {
			int32_t t = ac_state(sc, alloc);

			if (t < 0)
				return SKIT_ENOMEM;
			slot = &sc->next[(size_t)s * 256 +
			                 fold[(uint8_t)kw[i]]];
			*slot = t;
		}
		s = *slot;
	}
	o = skitx_pool_alloc(&sc->pool, sizeof(*o));
	if (!o)
		return SKIT_ENOMEM;
	o->rule = rule;
	o->len = (uint32_t)len;
	o->next = s; /* the end state, until ac_build links the lists */
	return skitx_vec_push(outs, o);
}

/*
 * Shrink the table from 256 columns to one per byte class: every byte no
 * keyword holds leads back to the root from any state, so those bytes
 * share column 0, and a capital letter shares its small letter's column.
 * Some 50 columns instead of 256 keep the table in the CPU's cache.
 */
static int ac_compress(skit_scanner *sc)
{
	bool used[256] = { false };
	size_t ncls = 1;
	int32_t *small;

	for (size_t s = 0; s < sc->nstates; s++)
		for (size_t c = 0; c < 256; c++)
			if (sc->next[s * 256 + c] != 0)
				used[c] = true;
	for (size_t c = 0; c < 256; c++)
		if (used[c] && fold[c] == c)
			sc->cls[c] = (uint8_t)ncls++;
	for (size_t c = 0; c < 256; c++)
		sc->cls[c] = sc->cls[fold[c]];
	if (sc->nstates > INT32_MAX / ncls)
		return SKIT_ETOOBIG;
	small = skitx_malloc(sc->nstates * ncls * sizeof(*small));
	if (!small)
		return SKIT_ENOMEM;
	/*
	 * Each entry is the next state's row offset (state * ncls), saving
	 * a multiplication a byte, and negative (~offset) when that state
	 * ends a keyword, saving a lookup a byte.
	 */
	for (size_t s = 0; s < sc->nstates; s++) {
		small[s * ncls] = 0;
		for (size_t c = 0; c < 256; c++) {
			int32_t t = sc->next[s * 256 + c];
			int32_t o = t * (int32_t)ncls;

			if (sc->cls[c])
				small[s * ncls + sc->cls[c]] =
				        sc->emits[t] ? ~o : o;
		}
	}
	skitx_free(sc->next);
	sc->next = small;
	sc->ncls = ncls;
	return 0;
}

/* Failure links by breadth-first order, then the full transition table. */
static int ac_build(skit_scanner *sc, struct skitx_vec *outs)
{
	size_t n = sc->nstates, head = 0, tail = 0;
	int32_t *fail = skitx_calloc(n, sizeof(*fail));
	int32_t *queue = skitx_malloc(n * sizeof(*queue));
	int rc = 0;

	sc->out = skitx_malloc(n * sizeof(*sc->out));
	sc->dict = skitx_malloc(n * sizeof(*sc->dict));
	sc->emits = skitx_calloc(n, 1);
	sc->outs = skitx_malloc((outs->len + 1) * sizeof(*sc->outs));
	if (!fail || !queue || !sc->out || !sc->dict || !sc->emits ||
	    !sc->outs) {
		rc = SKIT_ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < n; s++) {
		sc->out[s] = -1;
		sc->dict[s] = -1;
	}
	for (size_t i = 0; i < outs->len; i++) {
		struct acout *o = outs->items[i];
		int32_t s = o->next;

		sc->outs[i] = *o;
		sc->outs[i].next = sc->out[s];
		sc->out[s] = (int32_t)i;
	}
	sc->nouts = outs->len;
	for (size_t c = 0; c < 256; c++) {
		int32_t t = sc->next[c];

		if (t < 0) {
			sc->next[c] = 0;
		} else {
			fail[t] = 0;
			queue[tail++] = t;
		}
	}
	while (head < tail) {
		int32_t s = queue[head++];

		sc->dict[s] =
		        sc->out[fail[s]] >= 0 ? fail[s] : sc->dict[fail[s]];
		if (fail[s] == 0)
			sc->dict[s] = -1;
		for (size_t c = 0; c < 256; c++) {
			int32_t *slot = &sc->next[(size_t)s * 256 + c];
			int32_t f = sc->next[(size_t)fail[s] * 256 + c];

			if (*slot < 0) {
				*slot = f;
			} else {
				fail[*slot] = f;
				queue[tail++] = *slot;
			}
		}
		sc->emits[s] = sc->out[s] >= 0 || sc->dict[s] >= 0;
	}
	rc = ac_compress(sc);
out:
	skitx_free(fail);
	skitx_free(queue);
	return rc;
}

/* The bit of signal `name`, registered on first mention; -1 when full. */
static int signal_bit(skit_scanner *sc, const char *name, size_t len)
{
	char *copy;

	for (size_t i = 0; i < sc->nsignals; i++)
		if (strlen(sc->signal_names[i]) == len &&
		    !memcmp(sc->signal_names[i], name, len))
			return (int)i;
	if (sc->nsignals == SIGNALS_MAX || !len)
		return -1;
	copy = skitx_pool_strndup(&sc->pool, name, len);
	if (!copy)
		return -1;
	sc->signal_names[sc->nsignals] = copy;
	return (int)sc->nsignals++;
}

/* "a|b|c" as a set of signal bits; 0 on a bad name. */
static uint32_t signal_set(skit_scanner *sc, const char *spec)
{
	uint32_t set = 0;

	while (*spec) {
		const char *bar = strchr(spec, '|');
		size_t len = bar ? (size_t)(bar - spec) : strlen(spec);
		int bit = signal_bit(sc, spec, len);

		if (bit < 0)
			return 0;
		set |= 1u << bit;
		spec += len + (bar != NULL);
	}
	return set;
}

/* A combination's `all` and `raise` lists. */
static int load_combination(skit_scanner *sc, struct rule *r,
                            const struct skit__ynode *n, skit_error *err)
{
	const struct skit__ynode *const *items;
	size_t count;

	if (string_list(skit__yaml_get(n, "all"), &items, &count) || !count ||
	    count > GROUPS_MAX)
		return rule_error(err, r->id,
		                  "\"all\" must list 1 to 4 signals (a|b for "
		                  "either)");
	for (size_t i = 0; i < count; i++) {
		if (items[i]->kind != SKIT_YSCALAR ||
		    !(r->all[i] = signal_set(sc, items[i]->value)))
			return rule_error(err, r->id, "a bad signal name");
	}
	r->nall = count;
	if (string_list(skit__yaml_get(n, "raise"), &items, &count))
		return rule_error(err, r->id, "\"raise\" must list signals");
	for (size_t i = 0; i < count; i++) {
		uint32_t s = items[i]->kind == SKIT_YSCALAR
		                     ? signal_set(sc, items[i]->value)
		                     : 0;

		if (!s)
			return rule_error(err, r->id, "a bad signal name");
		r->raise |= s;
	}
	return 0;
}

static int load_rule(skit_scanner *sc, struct rule *r,
                     const struct skit__ynode *n, uint32_t index, size_t *alloc,
                     struct skitx_vec *outs, skit_error *err)
{
	const char *sev, *pattern, *det, *icase, *demote, *span, *view, *sig;
	const struct skit__ynode *const *items;
	size_t count;
	skit_error rx_err = { 0 };
	int rc;

	if (n->kind != SKIT_YMAP)
		return rule_error(err, NULL, "a rule must be a mapping");
	r->id = scalar(n, "id");
	r->family = scalar(n, "family");
	r->explain = scalar(n, "explain");
	sev = scalar(n, "severity");
	if (!r->id || !*r->id)
		return rule_error(err, NULL, "\"id\" is missing");
	if (!r->family || !r->explain || !sev)
		return rule_error(err, r->id,
		                  "\"family\", \"severity\" and \"explain\" "
		                  "are required");
	if (strchr(r->explain, '\n'))
		return rule_error(err, r->id, "\"explain\" must be one line");
	if (skit_scan_severity_parse(&r->severity, sev))
		return rule_error(err, r->id, "unknown severity");
	if (parse_where(&r->where, skit__yaml_get(n, "where")))
		return rule_error(err, r->id,
		                  "\"where\" must list contexts "
		                  "(docs/scan.md)");
	demote = scalar(n, "demote");
	r->demote = !demote || strcmp(demote, "false");
	span = scalar(n, "span");
	r->span = span ? (unsigned int)strtoul(span, NULL, 10) : 1;
	if (r->span < 1 || r->span > SPAN_MAX)
		return rule_error(err, r->id, "\"span\" must be 1 to 5");
	r->example_file = scalar(n, "example-file");
	if (!r->example_file)
		r->example_file = "SKILL.md";

	r->signal = -1;
	view = scalar(n, "view");
	if (view && !strcmp(view, "changed"))
		r->view = SKIT__SCAN_FOLDED | SKIT__SCAN_DECODED;
	else if (view && !strcmp(view, "decoded"))
		r->view = SKIT__SCAN_DECODED;
	else if (view)
		return rule_error(err, r->id,
		                  "\"view\" must be changed or decoded");
	sig = scalar(n, "signal");
	if (sig && (r->signal = signal_bit(sc, sig, strlen(sig))) < 0)
		return rule_error(err, r->id, "over 32 signal names");

	det = scalar(n, "detector");
	pattern = scalar(n, "pattern");
	r->det = DET_REGEX;
	if (det) {
		size_t d;

		for (d = 1; d < NDET; d++)
			if (!strcmp(det, skit__scan_det_names[d]))
				break;
		if (d == NDET)
			return rule_error(err, r->id, "unknown detector");
		if (pattern)
			return rule_error(err, r->id,
			                  "a detector rule has no pattern");
		if (sc->det_rule[d] >= 0 && d != DET_COMBINE)
			return rule_error(err, r->id,
			                  "a second rule for this detector");
		r->det = (enum detector)d;
		sc->det_rule[d] = (int)index;
		if (d == DET_COMBINE) {
			rc = load_combination(sc, r, n, err);
			if (rc)
				return rc;
		}
	} else {
		if (!pattern)
			return rule_error(err, r->id,
			                  "\"pattern\" or \"detector\" is "
			                  "required");
		icase = scalar(n, "icase");
		rc = skit__rx_new(&r->rx, pattern,
		                  SKIT__RX_RAW |
		                          (icase && !strcmp(icase, "false")
		                                   ? 0
		                                   : SKIT__RX_ICASE),
		                  &rx_err);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		if (rc)
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "scan rule %.80s: pattern: %s",
			                       r->id, rx_err.message);
		if (string_list(skit__yaml_get(n, "keywords"), &items,
		                &count) ||
		    !count)
			return rule_error(err, r->id,
			                  "\"keywords\" must list at least one "
			                  "literal");
		for (size_t i = 0; i < count; i++) {
			struct example kw;

			/* a keyword is text or {hex: ...}, as an example */
			rc = load_example(sc, &kw, items[i], true);
			if (rc == SKIT_ENOMEM)
				return skit__error_oom(err);
			if (rc || !kw.len || kw.len > KEYWORD_MAX)
				return rule_error(err, r->id,
				                  "a keyword must be 1 to 64 "
				                  "bytes");
			rc = ac_add(sc, alloc, kw.text, kw.len, index, outs);
			if (rc)
				return skit__error_code(err, rc);
		}
	}

	{
		const struct skit__ynode *const *pos, *const *neg;
		size_t np, nn;

		/* a link or an oversized file is no buffer: the unit
		 * tests make those */
		bool none_ok = r->det == DET_SYMLINK ||
		               r->det == DET_TOO_LARGE ||
		               r->det == DET_SETUID || r->det == DET_BUDGET;

		if (string_list(skit__yaml_get(n, "positive"), &pos, &np) ||
		    string_list(skit__yaml_get(n, "negative"), &neg, &nn) ||
		    ((!np || !nn) && !none_ok))
			return rule_error(err, r->id,
			                  "\"positive\" and \"negative\" must "
			                  "each list an example");
		r->ex = np + nn ? skitx_pool_alloc(&sc->pool,
		                                   (np + nn) * sizeof(*r->ex))
		                : NULL;
		if (np + nn && !r->ex)
			return skit__error_oom(err);
		for (size_t i = 0; i < np + nn; i++) {
			rc = load_example(sc, &r->ex[i],
			                  i < np ? pos[i] : neg[i - np],
			                  i < np);
			if (rc == SKIT_ENOMEM)
				return skit__error_oom(err);
			if (rc)
				return rule_error(err, r->id,
				                  "an example must be a string "
				                  "or {hex: ...}");
		}
		r->nex = np + nn;
	}
	return 0;
}

static int load_rules(skit_scanner *sc, const char *text, size_t len,
                      skit_error *err)
{
	struct skit__ynode *root = NULL;
	const struct skit__ynode *rules;
	struct skitx_vec outs = SKITX_VEC_INIT;
	char msg[200];
	unsigned int line = 0, col = 0;
	size_t alloc = 0;
	int rc;

	rc = skit__yaml_parse_flags(&root, &sc->pool, text, len, SKIT_YAML_FLOW,
	                            msg, sizeof(msg), &line, &col);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc)
		return skit__error_set(err, SKIT_EINVALID, line,
		                       "scan rules, line %u: %s", line, msg);
	if (!root || root->kind != SKIT_YMAP)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "scan rules: not a mapping");
	sc->version = scalar(root, "version");
	rules = skit__yaml_get(root, "rules");
	if (!sc->version || !*sc->version || !rules ||
	    rules->kind != SKIT_YSEQ || !rules->n || rules->n > RULES_MAX)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "scan rules: \"version\" and 1 to %u "
		                       "\"rules\" are required",
		                       RULES_MAX);
	sc->rules = skitx_pool_alloc(&sc->pool, rules->n * sizeof(*sc->rules));
	sc->tried = skitx_calloc(rules->n, sizeof(*sc->tried));
	sc->hits = skitx_calloc(rules->n, sizeof(*sc->hits));
	sc->until = skitx_calloc(rules->n, sizeof(*sc->until));
	if (!sc->rules || !sc->tried || !sc->until || !sc->hits)
		return skit__error_oom(err);
	memset(sc->rules, 0, rules->n * sizeof(*sc->rules));
	sc->nrules = rules->n;
	if (ac_state(sc, &alloc) < 0) {
		rc = skit__error_oom(err);
		goto out;
	}
	for (size_t i = 0; i < rules->n; i++) {
		for (size_t j = 0; j < i; j++)
			if (sc->rules[j].id && scalar(rules->items[i], "id") &&
			    !strcmp(sc->rules[j].id,
			            scalar(rules->items[i], "id"))) {
				rc = rule_error(err, sc->rules[j].id,
				                "the id is used twice");
				goto out;
			}
		rc = load_rule(sc, &sc->rules[i], rules->items[i], (uint32_t)i,
		               &alloc, &outs, err);
		if (rc)
			goto out;
	}
	/* every signal a combination names is raised by some rule */
	for (size_t b = 0; b < sc->nsignals; b++) {
		bool raised = false;

		for (size_t i = 0; i < sc->nrules && !raised; i++)
			raised = sc->rules[i].signal == (int)b;
		if (!raised) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "scan rules: no rule raises the "
			                     "signal %.60s",
			                     sc->signal_names[b]);
			goto out;
		}
	}
	rc = ac_build(sc, &outs);
	if (rc)
		skit__error_code(err, rc);
out:
	skitx_vec_release(&outs);
	return rc;
}

int skit_scan_rules_path(char **out, skit_error *err)
{
	const char *env = getenv("SKIT_SCAN_RULES");
	char *cand;

	*out = NULL;
	if (env && *env) {
		*out = skitx_strdup(env);
		return *out ? 0 : skit__error_oom(err);
	}
	/* Found relative to the library, so a moved install still works. */
	cand = skitx_path_join(skit__data_dir(), "scan-rules.yaml");
	if (!cand)
		return skit__error_oom(err);
	if (skitx_fs_exists(cand)) {
		*out = cand;
		return 0;
	}
	skitx_free(cand);
	return skit__error_set(err, SKIT_ENOTFOUND, 0,
	                       "no scan rules found (set SKIT_SCAN_RULES or "
	                       "install share/skit/scan-rules.yaml)");
}

int skit_scanner_new(skit_scanner **out, const char *path, skit_error *err)
{
	struct skitx_buf text;
	skit_scanner *sc;
	char *found = NULL;
	int rc;

	*out = NULL;
	if (!path) {
		rc = skit_scan_rules_path(&found, err);
		if (rc)
			return rc;
		path = found;
	}
	sc = skitx_calloc(1, sizeof(*sc));
	if (!sc) {
		skitx_free(found);
		return skit__error_oom(err);
	}
	skitx_pool_init(&sc->pool, 0);
	for (size_t d = 0; d < NDET; d++)
		sc->det_rule[d] = -1;
	for (size_t c = 0; c < 256; c++)
		sc->b64[c] = b64_class((uint8_t)c);
	skitx_buf_init(&text, RULES_FILE_MAX);
	rc = skitx_fs_read_file(path, &text, RULES_FILE_MAX);
	if (rc) {
		rc = skit__error_set(
		        err,
		        rc == SKIT_EIO && errno == ENOENT ? SKIT_ENOTFOUND : rc,
		        0, "%.200s: %s", path,
		        rc == SKIT_ETOOBIG ? "over 1 MiB" : strerror(errno));
		goto out;
	}
	rc = load_rules(sc, skitx_buf_cstr(&text), skitx_buf_len(&text), err);
	if (!rc) {
		*out = sc;
		sc = NULL;
	}
out:
	skitx_buf_release(&text);
	skitx_free(found);
	skit_scanner_free(sc);
	return rc;
}

const char *skit_scanner_rules_version(const skit_scanner *sc)
{
	return sc->version;
}

size_t skit_scanner_rule_count(const skit_scanner *sc)
{
	return sc->nrules;
}

/* ---- examples --------------------------------------------------------- */

int skit_scanner_check_examples(skit_scanner *sc, char **failures,
                                skit_error *err)
{
	struct skitx_buf out;
	int bad = 0, rc = 0;

	if (failures)
		*failures = NULL;
	skitx_buf_init(&out, 1u << 20);
	for (size_t i = 0; i < sc->nrules && !rc; i++) {
		const struct rule *r = &sc->rules[i];

		for (size_t k = 0; k < r->nex && !rc; k++) {
			skit_scan_report *rep = NULL;
			bool hit = false;

			rc = skit_scan_report_new(&rep, err);
			if (!rc)
				rc = skit_scan_buffer(
				        sc, rep, "example", r->example_file,
				        r->ex[k].text, r->ex[k].len, err);
			for (size_t f = 0; !rc && f < rep->n; f++)
				hit |= rep->f[f].pub.rule == r->id;
			/* a signal rule raises its signal, not a finding */
			if (!rc && r->signal >= 0)
				hit = (sc->sig >> r->signal) & 1u;
			if (!rc && hit != r->ex[k].positive) {
				char *shown = skit__scan_sanitise(&rep->pool,
				                                  r->ex[k].text,
				                                  r->ex[k].len);

				bad++;
				if (!shown ||
				    skitx_buf_printf(
				            &out, "%s: %s example %zu %s: %s\n",
				            r->id,
				            r->ex[k].positive ? "positive"
				                              : "negative",
				            k + 1,
				            r->ex[k].positive ? "not flagged"
				                              : "flagged",
				            shown))
					rc = SKIT_ENOMEM;
			}
			skit_scan_report_free(rep);
		}
	}
	if (!rc && failures && bad)
		*failures = skitx_buf_detach(&out, NULL);
	skitx_buf_release(&out);
	if (rc)
		return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
	return bad;
}

void skit_scanner_free(skit_scanner *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->nrules; i++)
		skit__rx_free(sc->rules[i].rx);
	skitx_free(sc->next);
	skitx_free(sc->out);
	skitx_free(sc->dict);
	skitx_free(sc->emits);
	skitx_free(sc->outs);
	skitx_free(sc->tried);
	skitx_free(sc->hits);
	skitx_free(sc->until);
	skitx_pool_release(&sc->pool);
	skitx_free(sc);
}
