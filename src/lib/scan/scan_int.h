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

/* Value of a hex digit, or -1. */
int skit__scan_hexval(int c);

/* `s` as one printable line, shown up to 120 bytes (docs/scan.md). */
char *skit__scan_sanitise(struct skitx_pool *pool, const char *s, size_t len);

/* Add a finding of rule `r` at `line` of `t`; SKIT_ENOMEM. */
int skit__scan_add_finding(struct text *t, const struct rule *r, enum ctx where,
                           unsigned int line, const char *match, size_t mlen);

/* Scan one text of kind `kind` (its lines get their contexts). */
int skit__scan_text(struct text *t, enum ctx kind);

#endif
