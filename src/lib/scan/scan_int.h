/* SPDX-License-Identifier: MIT */
/*
 * scan_int.h - the scan subsystem's shared state, private to
 * src/lib/scan/. The public door is skit/scan.h; nothing outside this
 * folder includes this header.
 *
 * The subsystem: scan_rules.c loads a rules file and builds the keyword
 * automaton; scan_text.c classifies a text's lines, runs the automaton
 * and the rules, and decodes blobs; scan_norm.c makes the normalised
 * view of code and Markdown (folded strings, decoded escapes and
 * character codes, resolved aliases) that the rules read a second time;
 * scan_flow.c joins a file's signals (sources, sinks, guards) and checks
 * Markdown links; scan.c reads files and folders and keeps the report.
 */
#ifndef SKIT_LIB_SCAN_INT_H
#define SKIT_LIB_SCAN_INT_H

#include <stdint.h>

#include "skit/scan.h"
#include "lib/core/rx.h"
#include "util/pool.h"

#define SIGNALS_MAX 32u  /* signal names in a rules file */
#define HITS_MAX    200u /* findings of one rule in one file */
#define GROUPS_MAX  4u   /* groups a combination requires */
/*
 * Work a file may cost, in units: a byte read by the automaton, a
 * normaliser or a decoder, and for each regex search its bytes plus an
 * upper bound of its backtracking steps (the square of its length, at
 * most the engine's match limit). docs/scan.md gives the measured time
 * of a unit; the budget stays far under a second. Past it the rest of
 * the file is reported as not scanned (file/work-budget).
 */
#define WORK_MAX (48u << 20)

/* Marks of a normalised view's bytes (scan_norm.c). */
#define SKIT__SCAN_FOLDED   1u /* built from pieces, or through a name */
#define SKIT__SCAN_DECODED  2u /* from escapes, codes or an encoding */
#define SKIT__SCAN_RESOLVED 4u /* a plain name replaced by its value */

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

extern const char *const skit__scan_ctx_names[NCTX];

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
	DET_COMBINE,
	DET_LINK,
	DET_POLYGLOT,
	DET_BUDGET,
	NDET
};

extern const char *const skit__scan_det_names[NDET];

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
	uint8_t view; /* 0, or the marks a match must touch */
	int signal;   /* >= 0: the rule records this signal, no finding */
	uint32_t all[GROUPS_MAX]; /* combination: each group, one of */
	size_t nall;
	uint32_t raise; /* combination: any of these raise it a level */
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
	unsigned int *hits;  /* per rule: findings in this file */
	const char *signal_names[SIGNALS_MAX];
	size_t nsignals;
	uint32_t sig;                       /* signals seen in this file */
	unsigned int sig_line[SIGNALS_MAX]; /* first line of each */
	size_t work;                        /* this file's cost so far */
	bool over;                          /* past WORK_MAX */
	size_t skill_work; /* the skill's cost so far (skit_scan_path) */
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
	/* A view made from another text (a normalised view or a decoded
	 * blob): findings show the parent's bytes and what they became. */
	const struct text *parent;
	const uint8_t *marks;     /* normalised view: marks per byte */
	size_t blob_at, blob_len; /* decoded blob: its bytes in the parent */
	enum ctx kind;
};

/* Value of a hex digit, or -1. */
int skit__scan_hexval(int c);

/* `s` as one printable line, shown up to 120 bytes (docs/scan.md). */
char *skit__scan_sanitise(struct skitx_pool *pool, const char *s, size_t len);

/*
 * Add a finding of rule `r` at `line` (1-based) of `t`, its severity
 * raised by `bump` levels (combinations); SKIT_ENOMEM.
 */
int skit__scan_add_finding(struct text *t, const struct rule *r, enum ctx where,
                           unsigned int line, const char *match, size_t mlen,
                           int bump);

/* Scan one text of kind `kind` (its lines get their contexts). */
int skit__scan_text(struct text *t, enum ctx kind);

/*
 * The normalised view of `len` bytes of `file` (scan_norm.c): code, or
 * Markdown when `markdown`. On success *out (NUL-terminated) and *marks
 * are owned by the caller (skitx_free), or both NULL when nothing
 * changed; the view has as many lines as the input. `work` grows by the
 * bytes read. Returns 0 or SKIT_ENOMEM.
 */
int skit__scan_normalise(const char *file, const char *data, size_t len,
                         bool markdown, char **out, uint8_t **marks,
                         size_t *out_len, size_t *work);

/* Markdown links whose text names another host than their target
 * (scan_flow.c). */
int skit__scan_links(struct text *t);

/* The combinations of the signals a file raised (scan_flow.c). */
int skit__scan_combine(struct text *t, enum ctx where);

/* The cost of the last file scanned, in work units (tests). */
size_t skit__scan_work(const skit_scanner *sc);

/* The cost of the last skill scanned by skit_scan_path() (tests). */
size_t skit__scan_skill_work(const skit_scanner *sc);

#endif
