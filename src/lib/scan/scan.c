/* SPDX-License-Identifier: MIT */
/*
 * scan.c - static analysis of a skill's files against data-driven rules.
 *
 * Rules come from a YAML file (data/scan-rules.yaml, installed as
 * share/skit/scan-rules.yaml). A regex rule names literal keywords and a
 * PCRE2 pattern; a detector rule names a check done here in C (magic
 * bytes of executables and archives, encoded blobs, symbolic links, files
 * too large to read). Nothing in a scanned skill is ever run.
 *
 * Speed: a skill store holds hundreds of megabytes, and running some forty
 * regular expressions over every byte would cost forty passes. Instead all
 * keywords go into one Aho-Corasick automaton (a transition table with one
 * column per byte class) that reads each file once, folding ASCII case;
 * only the lines where a rule's keyword occurs are handed to that rule's
 * regex. The regex decides; the keywords only choose where to look, and
 * the rule examples check that every positive example holds one of its
 * rule's keywords.
 *
 * Weight: each line of a file gets a context (frontmatter, instruction,
 * hidden comment, script, decoded blob, example code block, documentation,
 * data); a rule's severity holds in the first five and drops one level in
 * the last three, unless the rule says it must not (docs/scan.md).
 *
 * The scan subsystem (src/lib/scan/) is this file: it uses skill (the
 * frontmatter's YAML), core (bounded regexes) and util, and offers only
 * the public skit/scan.h (the pack subsystem's install step and the CLI
 * use it), so it has no internal header.
 */
#define _GNU_SOURCE /* memmem: before any header */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <unistd.h>

#include "skit/scan.h"
#include "lib/core/datadir.h"
#include "lib/core/error.h"
#include "lib/core/rx.h"
#include "lib/skill/yaml.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/pool.h"
#include "util/utf8.h"
#include "util/vec.h"

#define RULES_FILE_MAX   (1u << 20)  /* bytes of a rules file */
#define RULES_MAX        512u        /* rules in a file */
#define KEYWORD_MAX      64u         /* bytes of one keyword */
#define SPAN_MAX         5u          /* lines a windowed rule reads */
#define FILE_MAX         (16u << 20) /* bytes of a scanned file */
#define FILES_MAX        10000u      /* files in one skill */
#define DEPTH_MAX        16          /* folder nesting in one skill */
#define TEXT_SNIFF       8192u       /* bytes checked for NUL (binary) */
#define BLOB_MIN_B64     40u         /* base64 run worth decoding */
#define BLOB_MIN_HEX     40u         /* hex run worth decoding */
#define BLOB_DECODE_MAX  (64u << 10) /* bytes of one blob decoded */
#define BLOBS_PER_FILE   64u         /* blobs decoded in one file */
#define DECODE_DEPTH_MAX 2           /* blobs inside decoded blobs */
#define TEXT_SHOWN       120u        /* bytes of matched text shown */
#define SUBJECT_MAX      4096u       /* bytes of a long line one regex reads */

/* Where a line sits; decides a finding's weight. */
enum ctx {
	CTX_FRONTMATTER,
	CTX_INSTRUCTION,
	CTX_HIDDEN,
	CTX_SCRIPT,
	CTX_DECODED,
	CTX_EXAMPLE,
	CTX_DOC,
	CTX_DATA,
	CTX_FILE,
	NCTX
};

static const char *const ctx_names[NCTX] = {
	"frontmatter", "instruction", "hidden", "script", "decoded",
	"example",     "doc",         "data",   "file",
};

#define CTX_TEXT_ALL ((1u << CTX_FILE) - 1)
#define CTX_LIGHT    ((1u << CTX_EXAMPLE) | (1u << CTX_DOC) | (1u << CTX_DATA))

enum detector {
	DET_REGEX,
	DET_EXECUTABLE,
	DET_ARCHIVE,
	DET_BLOB,
	DET_SYMLINK,
	DET_TOO_LARGE,
	DET_SETUID,
	NDET
};

static const char *const det_names[NDET] = {
	"regex",   "executable", "archive", "encoded-blob",
	"symlink", "too-large",  "setuid",
};

static const char *const sev_names[] = { "info", "low", "medium", "high",
	                                 "critical" };

struct example {
	const char *text;
	size_t len;
	bool positive;
};

struct rule {
	const char *id, *family, *explain, *example_file;
	skit_scan_severity severity;
	unsigned int where; /* bit set of enum ctx */
	bool demote;
	unsigned int span;
	enum detector det;
	struct skit__rx *rx;
	struct example *ex;
	size_t nex;
};

/* One keyword end in the automaton: which rule, how long the keyword. */
struct acout {
	uint32_t rule;
	uint32_t len;
	int32_t next; /* next output of the same state, or -1 */
};

struct skit_scanner {
	struct skitx_pool pool; /* rule strings and arrays */
	const char *version;
	struct rule *rules;
	size_t nrules;
	int det_rule[NDET]; /* the rule of each detector, or -1 */
	/* Aho-Corasick automaton over ASCII-folded bytes. */
	int32_t *next;  /* nstates * 256 */
	int32_t *out;   /* first output of a state, or -1 */
	int32_t *dict;  /* nearest suffix state with outputs, or -1 */
	uint8_t *emits; /* out or dict set */
	size_t nstates;
	struct acout *outs;
	size_t nouts;
	uint8_t b64[256]; /* b64_class() of each byte */
	uint8_t cls[256]; /* the automaton's column of each byte */
	size_t ncls;
	/* Per-file scratch, reused. */
	unsigned int *tried; /* per rule: 1 + last line tried */
	size_t *until;       /* per rule: a long line's next window */
};

struct finding {
	skit_scan_finding pub;
	size_t seq;
};

struct skit_scan_report {
	struct skitx_pool pool; /* finding strings */
	struct finding *f;
	size_t n, alloc;
	bool sorted;
	size_t files, bytes;
};

/* A text being scanned: the file, or a decoded blob inside it. */
struct text {
	skit_scanner *sc;
	skit_scan_report *rep;
	const char *skill, *file;
	const char *data;
	size_t len;
	size_t *starts; /* line start offsets; nlines + 1 entries */
	size_t nlines;
	uint8_t *ctx; /* per line */
	int depth;
	unsigned int line_base; /* decoded blob: its line in the file, else 0 */
	size_t blobs;
};

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

static int hexval(int c)
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
		int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);

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
			if (!strcmp(items[i]->value, ctx_names[c]))
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

static int load_rule(skit_scanner *sc, struct rule *r,
                     const struct skit__ynode *n, uint32_t index, size_t *alloc,
                     struct skitx_vec *outs, skit_error *err)
{
	const char *sev, *pattern, *det, *icase, *demote, *span;
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

	det = scalar(n, "detector");
	pattern = scalar(n, "pattern");
	r->det = DET_REGEX;
	if (det) {
		size_t d;

		for (d = 1; d < NDET; d++)
			if (!strcmp(det, det_names[d]))
				break;
		if (d == NDET)
			return rule_error(err, r->id, "unknown detector");
		if (pattern)
			return rule_error(err, r->id,
			                  "a detector rule has no pattern");
		if (sc->det_rule[d] >= 0)
			return rule_error(err, r->id,
			                  "a second rule for this detector");
		r->det = (enum detector)d;
		sc->det_rule[d] = (int)index;
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
		               r->det == DET_TOO_LARGE || r->det == DET_SETUID;

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
	sc->until = skitx_calloc(rules->n, sizeof(*sc->until));
	if (!sc->rules || !sc->tried || !sc->until)
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

/* ---- findings --------------------------------------------------------- */

/* Append `cp` as <U+XXXX>. */
static int put_cp(struct skitx_buf *b, int32_t cp)
{
	return skitx_buf_printf(b, "<U+%04X>", (unsigned int)cp);
}

/*
 * The matched bytes as one printable line: controls, invisible and bidi
 * characters become <U+XXXX>, bytes that are not UTF-8 become \xNN, and
 * the text stops after TEXT_SHOWN bytes of input with "...".
 */
static char *sanitise(struct skitx_pool *pool, const char *s, size_t len)
{
	struct skitx_buf b;
	size_t shown = len > TEXT_SHOWN ? TEXT_SHOWN : len;
	char *r = NULL;
	bool tag = false;
	int rc = 0;

	skitx_buf_init(&b, TEXT_SHOWN * 10 + 16);
	for (size_t i = 0; i < shown && !rc;) {
		int32_t cp;
		size_t n = skitx_utf8_decode(s + i, len - i, &cp);

		/* TAG characters spell ASCII: show what they say */
		if (n && cp >= 0xE0000 && cp <= 0xE007F) {
			if (!tag)
				rc = skitx_buf_puts(&b, "<TAG:");
			tag = true;
			cp -= 0xE0000;
			if (!rc)
				rc = skitx_buf_putc(&b, cp >= 0x20 && cp < 0x7F
				                                ? (char)cp
				                                : '?');
			i += n;
			continue;
		}
		if (tag && !rc)
			rc = skitx_buf_putc(&b, '>');
		tag = false;
		if (!n || cp < 0) {
			rc = skitx_buf_printf(&b, "\\x%02X",
			                      (unsigned int)(uint8_t)s[i]);
			i++;
			continue;
		}
		if (cp == '\t' || cp == '\n' || cp == '\r')
			rc = skitx_buf_putc(&b, ' ');
		else if (skitx_utf8_is_hidden(cp))
			rc = put_cp(&b, cp);
		else
			rc = skitx_buf_add(&b, s + i, n);
		i += n;
	}
	if (!rc && tag)
		rc = skitx_buf_putc(&b, '>');
	if (!rc && shown < len)
		rc = skitx_buf_puts(&b, "...");
	if (!rc)
		r = skitx_pool_strndup(pool, skitx_buf_cstr(&b),
		                       skitx_buf_len(&b));
	skitx_buf_release(&b);
	return r;
}

static int add_finding(struct text *t, const struct rule *r, enum ctx where,
                       unsigned int line, const char *match, size_t mlen)
{
	skit_scan_report *rep = t->rep;
	struct finding *f;
	skit_scan_severity sev = r->severity;

	if (r->demote && (CTX_LIGHT & (1u << where)) && sev > SKIT_SCAN_INFO)
		sev--;
	if (rep->n == rep->alloc) {
		size_t na = rep->alloc ? rep->alloc * 2 : 16;
		struct finding *nf = skitx_realloc(rep->f, na * sizeof(*nf));

		if (!nf)
			return SKIT_ENOMEM;
		rep->f = nf;
		rep->alloc = na;
	}
	f = &rep->f[rep->n];
	memset(f, 0, sizeof(*f));
	f->seq = rep->n;
	f->pub.rule = r->id;
	f->pub.family = r->family;
	f->pub.explain = r->explain;
	f->pub.severity = sev;
	f->pub.where = ctx_names[where];
	f->pub.line = t->line_base ? t->line_base : line;
	f->pub.file = skitx_pool_strdup(&rep->pool, t->file);
	f->pub.skill = skitx_pool_strdup(&rep->pool, t->skill ? t->skill : "");
	f->pub.text = sanitise(&rep->pool, match, mlen);
	if (!f->pub.file || !f->pub.skill || !f->pub.text)
		return SKIT_ENOMEM;
	rep->n++;
	rep->sorted = false;
	return 0;
}

/* ---- text files ------------------------------------------------------- */

static bool has_ext(const char *file, const char *const *exts)
{
	const char *dot = strrchr(file, '.');

	if (!dot || strchr(dot, '/'))
		return false;
	for (; *exts; exts++)
		if (!strcasecmp(dot + 1, *exts))
			return true;
	return false;
}

static const char *const markdown_exts[] = { "md", "markdown", "mdx", NULL };
static const char *const doc_exts[] = { "txt", "rst", "adoc", NULL };
static const char *const script_exts[] = {
	"sh",  "bash", "zsh", "fish", "ksh",         "py",   "js",   "mjs",
	"cjs", "ts",   "rb",  "pl",   "php",         "ps1",  "psm1", "bat",
	"cmd", "vbs",  "lua", "tcl",  "applescript", "scpt", NULL,
};

static bool is_skill_md(const char *file)
{
	return !strcmp(file, "SKILL.md");
}

static bool line_is(const char *p, size_t len, const char *what)
{
	size_t wl = strlen(what);

	while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
		len--;
	return len == wl && !memcmp(p, what, wl);
}

/*
 * A fence line: indentation, then three or more ` or ~. CommonMark allows
 * three spaces, but fences inside list items sit deeper, and reading a
 * code block as prose would give it an instruction's weight.
 */
static size_t fence_len(const char *p, size_t len, char *ch)
{
	size_t i = 0, n = 0;

	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i >= len || (p[i] != '`' && p[i] != '~'))
		return 0;
	*ch = p[i];
	while (i + n < len && p[i + n] == *ch)
		n++;
	return n >= 3 ? n : 0;
}

/* Line starts, then a sentinel at the end: nlines + 1 entries. */
static int index_lines(struct text *t)
{
	size_t n = 1, alloc = 64;
	const char *p = t->data, *end = t->data + t->len;

	t->starts = skitx_malloc(alloc * sizeof(*t->starts));
	if (!t->starts)
		return SKIT_ENOMEM;
	t->starts[0] = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl || nl + 1 == end)
			break;
		p = nl + 1;
		if (n + 1 >= alloc) {
			size_t *ns = skitx_realloc(t->starts,
			                           alloc * 2 * sizeof(*ns));

			if (!ns)
				return SKIT_ENOMEM;
			t->starts = ns;
			alloc *= 2;
		}
		t->starts[n++] = (size_t)(p - t->data);
	}
	t->starts[n] = t->len;
	t->nlines = n;
	t->ctx = skitx_malloc(n);
	return t->ctx ? 0 : SKIT_ENOMEM;
}

/* Line `i`'s bytes without its newline. */
static const char *line_at(const struct text *t, size_t i, size_t *len)
{
	size_t b = t->starts[i], e = t->starts[i + 1];

	if (e > b && t->data[e - 1] == '\n')
		e--;
	*len = e - b;
	return t->data + b;
}

/* Give each line its context, from the file's kind and Markdown shape. */
static void classify(struct text *t, enum ctx kind)
{
	bool md = kind == CTX_INSTRUCTION || kind == CTX_DOC;
	bool front = false, comment = false;
	size_t fence = 0;
	char fch = 0;

	for (size_t i = 0; i < t->nlines; i++) {
		size_t len;
		const char *p = line_at(t, i, &len);
		enum ctx c = kind;

		if (!md) {
			t->ctx[i] = (uint8_t)kind;
			continue;
		}
		if (kind == CTX_INSTRUCTION && i == 0 && line_is(p, len, "---"))
			front = true;
		if (front) {
			t->ctx[i] = CTX_FRONTMATTER;
			if (i > 0 && line_is(p, len, "---"))
				front = false;
			continue;
		}
		if (fence) {
			char ch;
			size_t fl = fence_len(p, len, &ch);

			t->ctx[i] = CTX_EXAMPLE;
			if (fl >= fence && ch == fch)
				fence = 0;
			continue;
		}
		if (!comment && (fence = fence_len(p, len, &fch))) {
			t->ctx[i] = CTX_EXAMPLE;
			continue;
		}
		/* An HTML comment, on this line or open from above. */
		if (comment || memmem(p, len, "<!--", 4)) {
			const char *open =
			        comment ? p : memmem(p, len, "<!--", 4);
			const char *close = memmem(
			        open, len - (size_t)(open - p), "-->", 3);

			c = CTX_HIDDEN;
			comment = !close;
		}
		t->ctx[i] = (uint8_t)c;
	}
}

static size_t line_of(const struct text *t, size_t pos)
{
	size_t lo = 0, hi = t->nlines;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->starts[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Run rule `ri`'s regex on line `ln` (or its window); report a match. */
static int try_rule(struct text *t, uint32_t ri, size_t ln, size_t at)
{
	skit_scanner *sc = t->sc;
	const struct rule *r = &sc->rules[ri];
	size_t first = ln, last = ln, s, e, len, off;
	enum ctx c = (enum ctx)t->ctx[ln];
	const char *p;
	int m;

	if (sc->tried[ri] == ln + 1 && at < sc->until[ri])
		return 0;
	sc->tried[ri] = (unsigned int)(ln + 1);
	sc->until[ri] = SIZE_MAX;
	if (!(r->where & (1u << c)))
		return 0;
	if (r->span > 1) {
		first = ln >= r->span - 1 ? ln - (r->span - 1) : 0;
		last = ln + r->span - 1 < t->nlines ? ln + r->span - 1
		                                    : t->nlines - 1;
	}
	p = t->data + t->starts[first];
	if (first == last)
		line_at(t, first, &len);
	else
		len = t->starts[last + 1] - t->starts[first];
	/*
	 * A long line is read around the keyword, SUBJECT_MAX bytes at a
	 * time: padding a line cannot push a match past the regex limits,
	 * and the cost stays linear. A keyword further on than a quarter of
	 * the window opens the next one.
	 */
	if (len > SUBJECT_MAX) {
		off = at - (size_t)(p - t->data);
		s = off > SUBJECT_MAX / 2 ? off - SUBJECT_MAX / 2 : 0;
		e = off + SUBJECT_MAX / 2 < len ? off + SUBJECT_MAX / 2 : len;
		p += s;
		len = e - s;
		sc->until[ri] = at + SUBJECT_MAX / 4;
		first = 0;
		last = 1; /* find the line from the match */
	}
	/* A limit reached counts as no match: the rules are skit's own. */
	m = skit__rx_search(r->rx, p, len, &s, &e, NULL);
	if (m == SKIT_ENOMEM)
		return m;
	if (m != 1)
		return 0;
	if (first != last) {
		ln = line_of(t, (size_t)(p - t->data) + s);
		c = (enum ctx)t->ctx[ln];
		/* the window may start the match on a line the rule skips */
		if (!(r->where & (1u << c)))
			return 0;
	}
	return add_finding(t, r, c, (unsigned int)ln + 1, p + s, e - s);
}

static int scan_text(struct text *t, enum ctx kind);

static bool text_like(const uint8_t *p, size_t len)
{
	size_t bad = 0;

	if (len < 8)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' &&
		     p[i] != '\t') ||
		    p[i] == 0x7F || p[i] >= 0x80)
			bad++;
	return bad * 20 <= len;
}

/*
 * Decode the blob at [b, e) (base64 when `hex` is false), scan the result
 * again when it reads as text, and report the blob itself.
 */
static int decode_blob(struct text *t, size_t b, size_t e, bool hex)
{
	size_t len = e - b, outlen;
	uint8_t *buf;
	struct text inner;
	int rc = 0;
	int ri = t->sc->det_rule[DET_BLOB];

	if (len > BLOB_DECODE_MAX)
		len = BLOB_DECODE_MAX;
	if (hex) {
		len &= ~(size_t)1;
		outlen = len / 2;
		buf = skitx_malloc(outlen + 1);
		if (!buf)
			return SKIT_ENOMEM;
		for (size_t i = 0; i < len; i += 2)
			buf[i / 2] = (uint8_t)(hexval(t->data[b + i]) << 4 |
			                       hexval(t->data[b + i + 1]));
	} else {
		size_t pad;
		char *tmp;
		int n;

		/* EVP_DecodeBlock wants whole quads: pad the tail again */
		while (len && t->data[b + len - 1] == '=')
			len--;
		if (len % 4 == 1)
			len--;
		pad = (4 - len % 4) % 4;
		if (!len)
			return 0;
		tmp = skitx_malloc(len + pad + 1);
		buf = skitx_malloc((len + pad) / 4 * 3 + 1);
		if (!tmp || !buf) {
			skitx_free(tmp);
			skitx_free(buf);
			return SKIT_ENOMEM;
		}
		memcpy(tmp, t->data + b, len);
		memset(tmp + len, '=', pad);
		n = EVP_DecodeBlock(buf, (const unsigned char *)tmp,
		                    (int)(len + pad));
		skitx_free(tmp);
		if (n < 0 || (size_t)n < pad) {
			skitx_free(buf);
			return 0;
		}
		n -= (int)pad;
		outlen = (size_t)n;
	}
	if (!text_like(buf, outlen)) {
		skitx_free(buf);
		return 0;
	}
	memset(&inner, 0, sizeof(inner));
	inner.sc = t->sc;
	inner.rep = t->rep;
	inner.skill = t->skill;
	inner.file = t->file;
	inner.data = (const char *)buf;
	inner.len = outlen;
	inner.depth = t->depth + 1;
	inner.line_base =
	        t->line_base ? t->line_base : (unsigned int)line_of(t, b) + 1;
	if (ri >= 0) {
		rc = add_finding(t, &t->sc->rules[ri],
		                 (enum ctx)t->ctx[line_of(t, b)],
		                 (unsigned int)line_of(t, b) + 1,
		                 (const char *)buf, outlen);
	}
	/* Blobs are decoded after the outer text's keyword pass, so the
	 * inner scan may reuse the per-rule marks. */
	if (!rc)
		rc = scan_text(&inner, CTX_DECODED);
	skitx_free(buf);
	return rc;
}

/* Runs of the base64 or hex alphabet long enough to hide a command. */
static int find_blobs(struct text *t)
{
	const uint8_t *cls = t->sc->b64;
	const uint8_t *p = (const uint8_t *)t->data;
	size_t i = 0, n = t->len;

	while (i < n && t->blobs < BLOBS_PER_FILE) {
		size_t b, e;
		bool allhex = true;

		if (!cls[p[i]]) {
			i++;
			continue;
		}
		b = i;
		while (i < n && cls[p[i]]) {
			allhex &= (cls[p[i]] & 2) != 0;
			i++;
		}
		e = i;
		while (i < n && p[i] == '=' && i - e < 2)
			i++;
		if (allhex && e - b >= BLOB_MIN_HEX) {
			t->blobs++;
			if (decode_blob(t, b, e, true))
				return SKIT_ENOMEM;
		} else if (!allhex && e - b >= BLOB_MIN_B64) {
			t->blobs++;
			if (decode_blob(t, b, i, false))
				return SKIT_ENOMEM;
		}
	}
	return 0;
}

/*
 * Scan one text: index and classify its lines, run the automaton over it,
 * try each rule whose keyword occurs on a line, then decode blobs.
 */
static int scan_text(struct text *t, enum ctx kind)
{
	skit_scanner *sc = t->sc;
	const uint8_t *p = (const uint8_t *)t->data;
	const int32_t *next = sc->next;
	const uint8_t *cls = sc->cls;
	size_t ncls = sc->ncls;
	int32_t off = 0;
	int rc;

	rc = index_lines(t);
	if (rc)
		goto out;
	classify(t, kind);
	memset(sc->tried, 0, sc->nrules * sizeof(*sc->tried));
	for (size_t i = 0; i < t->len; i++) {
		int32_t o, v = next[off + cls[p[i]]];

		if (v >= 0) {
			off = v;
			continue;
		}
		off = ~v;
		for (int32_t st = off / (int32_t)ncls; st >= 0 && !rc;
		     st = sc->dict[st])
			for (o = sc->out[st]; o >= 0 && !rc;
			     o = sc->outs[o].next) {
				size_t at = i + 1 - sc->outs[o].len;

				rc = try_rule(t, sc->outs[o].rule,
				              line_of(t, at), at);
			}
		if (rc)
			goto out;
	}
	if (t->depth < DECODE_DEPTH_MAX)
		rc = find_blobs(t);
out:
	skitx_free(t->starts);
	skitx_free(t->ctx);
	t->starts = NULL;
	t->ctx = NULL;
	return rc;
}

/* ---- whole files ------------------------------------------------------ */

struct magic {
	const char *bytes;
	size_t len, at;
	enum detector det;
	const char *what;
};

static const struct magic magics[] = {
	{ "\x7f"
	  "ELF",
	  4, 0, DET_EXECUTABLE, "ELF executable" },
	{ "MZ", 2, 0, DET_EXECUTABLE, "Windows executable" },
	{ "\xfe\xed\xfa\xce", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xfe\xed\xfa\xcf", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xce\xfa\xed\xfe", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xcf\xfa\xed\xfe", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xca\xfe\xba\xbe", 4, 0, DET_EXECUTABLE, "Mach-O or Java class" },
	{ "\0asm", 4, 0, DET_EXECUTABLE, "WebAssembly module" },
	{ "PK\x03\x04", 4, 0, DET_ARCHIVE, "zip archive" },
	{ "\x1f\x8b", 2, 0, DET_ARCHIVE, "gzip archive" },
	{ "7z\xbc\xaf\x27\x1c", 6, 0, DET_ARCHIVE, "7-Zip archive" },
	{ "Rar!\x1a\x07", 6, 0, DET_ARCHIVE, "RAR archive" },
	{ "\xfd"
	  "7zXZ\0",
	  6, 0, DET_ARCHIVE, "xz archive" },
	{ "BZh", 3, 0, DET_ARCHIVE, "bzip2 archive" },
	{ "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 8, 0, DET_ARCHIVE,
	  "OLE container (MSI, old Office)" },
	{ "ustar", 5, 257, DET_ARCHIVE, "tar archive" },
};

/* Zip-based documents, not archives a user would unpack and run. */
static const char *const document_exts[] = {
	"docx", "xlsx", "pptx", "odt", "ods",   "odp",     "epub",
	"xlsm", "dotx", "potx", "key", "pages", "numbers", NULL,
};
static const char *const exe_exts[] = {
	"exe", "dll", "so",  "dylib", "scr", "msi", "com",
	"elf", "bin", "app", "jar",   "apk", "ipa", NULL,
};
static const char *const archive_exts[] = {
	"zip", "tar", "gz",  "tgz", "bz2", "xz",  "7z",  "rar", "cab",
	"dmg", "pkg", "deb", "rpm", "iso", "whl", "zst", "lz",  NULL,
};

static int whole_file(struct text *t, enum detector det, const char *what)
{
	int ri = t->sc->det_rule[det];

	if (ri < 0)
		return 0;
	return add_finding(t, &t->sc->rules[ri], CTX_FILE, 0, what,
	                   strlen(what));
}

static int check_magic(struct text *t, bool binary)
{
	const char *base = strrchr(t->file, '/');

	base = base ? base + 1 : t->file;
	for (size_t i = 0; i < sizeof(magics) / sizeof(*magics); i++) {
		const struct magic *m = &magics[i];

		if (t->len < m->at + m->len ||
		    memcmp(t->data + m->at, m->bytes, m->len))
			continue;
		/* "MZ" and "BZh" also start ordinary words */
		if ((m->len <= 3 && !binary) ||
		    (m->det == DET_ARCHIVE && has_ext(base, document_exts)))
			continue;
		return whole_file(t, m->det, m->what);
	}
	if (has_ext(base, exe_exts))
		return whole_file(t, DET_EXECUTABLE, "executable by its name");
	if (has_ext(base, archive_exts))
		return whole_file(t, DET_ARCHIVE, "archive by its name");
	return 0;
}

static enum ctx file_kind(const char *file, const char *data, size_t len)
{
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (is_skill_md(file))
		return CTX_INSTRUCTION;
	if (!strncmp(file, "scripts/", 8) || has_ext(base, script_exts) ||
	    (len > 2 && data[0] == '#' && data[1] == '!'))
		return CTX_SCRIPT;
	if (has_ext(base, markdown_exts) || has_ext(base, doc_exts))
		return CTX_DOC;
	return CTX_DATA;
}

int skit_scan_buffer(skit_scanner *sc, skit_scan_report *rep, const char *skill,
                     const char *file, const char *data, size_t len,
                     skit_error *err)
{
	struct text t;
	enum ctx kind;
	bool binary;
	int rc;

	memset(&t, 0, sizeof(t));
	t.sc = sc;
	t.rep = rep;
	t.skill = skill;
	t.file = file;
	t.data = data;
	t.len = len;
	rep->files++;
	rep->bytes += len;
	binary =
	        memchr(data, '\0', len < TEXT_SNIFF ? len : TEXT_SNIFF) != NULL;
	rc = check_magic(&t, binary);
	if (!rc && !binary) {
		kind = file_kind(file, data, len);
		rc = scan_text(&t, kind);
	}
	return rc ? skit__error_code(err, rc) : 0;
}

struct walk {
	skit_scanner *sc;
	skit_scan_report *rep;
	const char *skill;
	size_t files;
	struct skitx_buf rel;
	struct skitx_buf data;
};

static int walk_dir(struct walk *w, int dfd, int depth, skit_error *err);

static int walk_entry(struct walk *w, int dfd, const char *name, int depth,
                      skit_error *err)
{
	size_t keep = skitx_buf_len(&w->rel);
	struct stat st;
	struct text t;
	int rc = 0, fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* gone since readdir */
	if (keep && skitx_buf_putc(&w->rel, '/'))
		return skit__error_oom(err);
	if (skitx_buf_puts(&w->rel, name))
		return skit__error_oom(err);
	memset(&t, 0, sizeof(t));
	t.sc = w->sc;
	t.rep = w->rep;
	t.skill = w->skill;
	t.file = skitx_buf_cstr(&w->rel);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

		target[n > 0 ? n : 0] = '\0';
		rc = whole_file(&t, DET_SYMLINK, target);
	} else if (S_ISDIR(st.st_mode)) {
		if (strcmp(name, ".git") && depth >= DEPTH_MAX) {
			/* what is not read is said, never skipped quietly */
			rc = whole_file(&t, DET_TOO_LARGE,
			                "a folder 16 levels deep: not scanned");
		} else if (strcmp(name, ".git")) {
			fd = openat(dfd, name,
			            O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                    O_CLOEXEC);
			if (fd >= 0)
				rc = walk_dir(w, fd, depth + 1, err);
		}
	} else if (S_ISREG(st.st_mode)) {
		if (st.st_mode & (S_ISUID | S_ISGID))
			rc = whole_file(&t, DET_SETUID,
			                st.st_mode & S_ISUID ? "setuid"
			                                     : "setgid");
		if (rc) {
			/* out of memory: reported below */
		} else if (++w->files > FILES_MAX) {
			if (w->files == FILES_MAX + 1)
				rc = whole_file(&t, DET_TOO_LARGE,
				                "over 10,000 files: this one "
				                "and the rest not scanned");
		} else if (st.st_size > (off_t)FILE_MAX) {
			rc = whole_file(&t, DET_TOO_LARGE, "over 16 MiB");
		} else {
			enum skitx_fs_why why;

			fd = skitx_fs_open_regular(dfd, name, &st, &why);
			if (fd >= 0) {
				skitx_buf_clear(&w->data);
				rc = skitx_fs_read_fd(fd, &w->data, FILE_MAX);
				close(fd);
				if (rc == SKIT_ETOOBIG)
					rc = whole_file(&t, DET_TOO_LARGE,
					                "over 16 MiB");
				else if (!rc)
					rc = skit_scan_buffer(
					        w->sc, w->rep, w->skill,
					        skitx_buf_cstr(&w->rel),
					        skitx_buf_cstr(&w->data),
					        skitx_buf_len(&w->data), err);
				else
					rc = 0; /* unreadable: nothing to see */
			}
		}
	}
	skitx_buf_truncate(&w->rel, keep);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries in name order, so findings do not depend on the file system. */
static int walk_dir(struct walk *w, int dfd, int depth, skit_error *err)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	struct skitx_vec names = SKITX_VEC_INIT;
	size_t i;
	char *nm;
	int rc = 0;

	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		nm = skitx_strdup(de->d_name);
		if (!nm || skitx_vec_push(&names, nm)) {
			skitx_free(nm);
			rc = skit__error_oom(err);
			break;
		}
	}
	if (!rc && names.len > 1)
		qsort(names.items, names.len, sizeof(*names.items), name_cmp);
	skitx_vec_foreach (&names, i, nm) {
		if (!rc)
			rc = walk_entry(w, dirfd(d), nm, depth, err);
		skitx_free(nm);
	}
	skitx_vec_release(&names);
	closedir(d);
	return rc;
}

int skit_scan_path(skit_scanner *sc, skit_scan_report *rep, const char *dir,
                   skit_error *err)
{
	struct walk w;
	struct stat st;
	int fd, rc;

	if (lstat(dir, &st) < 0)
		return skit__error_set(
		        err, errno == ENOENT ? SKIT_ENOTFOUND : SKIT_EIO, 0,
		        "%.200s: %s", dir, strerror(errno));
	memset(&w, 0, sizeof(w));
	w.sc = sc;
	w.rep = rep;
	w.skill = dir;
	skitx_buf_init(&w.rel, PATH_MAX);
	skitx_buf_init(&w.data, FILE_MAX);
	if (S_ISDIR(st.st_mode)) {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return skit__error_set(err, SKIT_EIO, 0, "%.200s: %s",
			                       dir, strerror(errno));
		rc = walk_dir(&w, fd, 0, err);
	} else {
		char *parent = skitx_path_dirname(dir);
		const char *base = skitx_path_name(dir, NULL);

		if (!parent)
			return skit__error_oom(err);
		w.skill = parent;
		fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = fd < 0 ? skit__error_set(err, SKIT_EIO, 0, "%.200s: %s",
		                              parent, strerror(errno))
		            : walk_entry(&w, fd, base, 0, err);
		if (fd >= 0)
			close(fd);
		/* findings copied the label: the parent can go */
		skitx_free(parent);
	}
	skitx_buf_release(&w.rel);
	skitx_buf_release(&w.data);
	return rc;
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
			if (!rc && hit != r->ex[k].positive) {
				char *shown =
				        sanitise(&rep->pool, r->ex[k].text,
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

/* ---- reports ---------------------------------------------------------- */

int skit_scan_report_new(skit_scan_report **out, skit_error *err)
{
	skit_scan_report *rep = skitx_calloc(1, sizeof(*rep));

	*out = NULL;
	if (!rep)
		return skit__error_oom(err);
	skitx_pool_init(&rep->pool, 0);
	*out = rep;
	return 0;
}

static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c = strcmp(x->pub.skill, y->pub.skill);

	if (!c)
		c = strcmp(x->pub.file, y->pub.file);
	if (!c && x->pub.line != y->pub.line)
		c = x->pub.line < y->pub.line ? -1 : 1;
	if (!c)
		c = strcmp(x->pub.rule, y->pub.rule);
	if (!c && x->seq != y->seq)
		c = x->seq < y->seq ? -1 : 1;
	return c;
}

/* Sort, and keep one finding per rule, file and line (the first). */
static void report_sort(skit_scan_report *rep)
{
	size_t w = 0;

	if (rep->sorted)
		return;
	if (rep->n > 1)
		qsort(rep->f, rep->n, sizeof(*rep->f), finding_cmp);
	for (size_t i = 0; i < rep->n; i++) {
		if (w &&
		    !strcmp(rep->f[w - 1].pub.skill, rep->f[i].pub.skill) &&
		    !strcmp(rep->f[w - 1].pub.file, rep->f[i].pub.file) &&
		    rep->f[w - 1].pub.line == rep->f[i].pub.line &&
		    rep->f[w - 1].pub.rule == rep->f[i].pub.rule)
			continue;
		rep->f[w++] = rep->f[i];
	}
	rep->n = w;
	rep->sorted = true;
}

size_t skit_scan_report_count(const skit_scan_report *rep)
{
	report_sort((skit_scan_report *)rep);
	return rep->n;
}

const skit_scan_finding *skit_scan_report_get(const skit_scan_report *rep,
                                              size_t i)
{
	report_sort((skit_scan_report *)rep);
	return i < rep->n ? &rep->f[i].pub : NULL;
}

size_t skit_scan_report_files(const skit_scan_report *rep)
{
	return rep->files;
}

size_t skit_scan_report_bytes(const skit_scan_report *rep)
{
	return rep->bytes;
}

bool skit_scan_report_reaches(const skit_scan_report *rep, skit_scan_severity s)
{
	for (size_t i = 0; i < rep->n; i++)
		if (rep->f[i].pub.severity >= s)
			return true;
	return false;
}

void skit_scan_report_free(skit_scan_report *rep)
{
	if (!rep)
		return;
	skitx_free(rep->f);
	skitx_pool_release(&rep->pool);
	skitx_free(rep);
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
	skitx_free(sc->until);
	skitx_pool_release(&sc->pool);
	skitx_free(sc);
}
