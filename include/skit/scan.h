/* SPDX-License-Identifier: MIT */
#ifndef SKIT_SCAN_H
#define SKIT_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "skit/common.h"

/**
 * @file skit/scan.h
 * @brief Static analysis of a skill's files against data-driven rules.
 *
 * A scanner holds the rules of one rules file (YAML, shipped as
 * share/skit/scan-rules.yaml): each rule has an id, a family, a severity,
 * literal keywords, a regular expression (PCRE2 with bounded cost) or a
 * built-in detector, and examples. Scanning reads every file of a skill
 * (SKILL.md, scripts, references, assets) and never runs anything. Where
 * a match sits decides its weight: an instruction to the model or a script
 * keeps the rule's severity; a fenced code block, a documentation file or
 * a data file lowers it one level (docs/scan.md). Code and Markdown are
 * also read normalised (string pieces folded, escapes and character
 * codes decoded, aliases resolved, invisible characters dropped), long
 * base64 and hex blobs are decoded (bounded), and the rules run again on
 * what that reveals. Signals of one file (a credential source, a network
 * or exec sink, a time or environment guard) combine into findings.
 *
 * A scanner is used by one thread at a time; make one per thread.
 */

SKIT_BEGIN_DECL

/** Severities, lowest first. */
typedef enum {
	SKIT_SCAN_INFO = 0,
	SKIT_SCAN_LOW,
	SKIT_SCAN_MEDIUM,
	SKIT_SCAN_HIGH,
	SKIT_SCAN_CRITICAL,
} skit_scan_severity;

/** Compiled rules. Opaque; free with skit_scanner_free(). */
typedef struct skit_scanner skit_scanner;

/** Findings of one or more scans. Opaque; free with skit_scan_report_free(). */
typedef struct skit_scan_report skit_scan_report;

/** One finding. Every string is owned by the report (or its scanner). */
typedef struct {
	const char *rule;   /**< rule id, e.g. "download-exec/pipe-to-shell" */
	const char *family; /**< rule family, e.g. "download-and-execute" */
	skit_scan_severity severity; /**< after the weight of `where` */
	const char *file;    /**< path inside the skill ("scripts/x.sh") */
	const char *skill;   /**< the skill folder as passed to the scan */
	unsigned int line;   /**< 1-based; 0 for a whole-file finding */
	const char *where;   /**< "instruction", "script", "example"... */
	const char *text;    /**< the matched text, sanitised, one line */
	const char *explain; /**< one line: why it matters */
	/**
	 * What `text` became once normalised or decoded (string pieces
	 * folded, escapes, character codes or base64 decoded, aliases
	 * resolved), sanitised like `text`, when the rule matched that
	 * and not the bytes as written; NULL otherwise. Appended in the
	 * scan v2 rules (docs/scan.md).
	 */
	const char *decoded;
} skit_scan_finding;

/** Name of a severity ("info" ... "critical"). */
SKIT_EXTERN const char *skit_scan_severity_name(skit_scan_severity s);

/**
 * Parse a severity name into *out.
 * @return 0, or SKIT_EINVALID for an unknown name.
 */
SKIT_EXTERN int skit_scan_severity_parse(skit_scan_severity *out,
                                         const char *name);

/**
 * The rules file skit ships: $SKIT_SCAN_RULES when set, else
 * share/skit/scan-rules.yaml next to the running binary (build tree),
 * else ../share/skit/scan-rules.yaml from it (installed tree), else the
 * configured data folder. `*out` is owned by the caller (skit_free).
 * @return 0, SKIT_ENOTFOUND when none exists, SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_scan_rules_path(char **out, skit_error *err);

/**
 * Load and compile the rules file at `path` (NULL: skit_scan_rules_path()).
 *
 * @param[out] out the scanner, owned by the caller
 * @return 0; SKIT_ENOTFOUND, SKIT_EIO; SKIT_EINVALID for a malformed rule
 *         (the message names the rule and the field); SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_scanner_new(skit_scanner **out, const char *path,
                                 skit_error *err);

/** The rules' version string, as the rules file states it. Borrowed. */
SKIT_EXTERN const char *skit_scanner_rules_version(const skit_scanner *sc);

/** Number of rules loaded. */
SKIT_EXTERN size_t skit_scanner_rule_count(const skit_scanner *sc);

/**
 * Run every rule's own examples through the scanner: each positive
 * example must raise that rule, each negative one must not.
 *
 * @param[out] failures when not NULL, a text naming each failing example
 *             (one a line), owned by the caller (skit_free); NULL if none
 * @return the number of failing examples (>= 0), or SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_scanner_check_examples(skit_scanner *sc, char **failures,
                                            skit_error *err);

/** Create an empty report. */
SKIT_EXTERN int skit_scan_report_new(skit_scan_report **out, skit_error *err);

/**
 * Scan the skill folder `dir` (or one file) and add its findings to
 * `rep`. Symbolic links are reported, never followed; `.git` is skipped.
 * Files over 16 MiB are reported, not read; at most 10,000 files.
 * @return 0; SKIT_ENOTFOUND when `dir` does not exist; SKIT_EIO;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_scan_path(skit_scanner *sc, skit_scan_report *rep,
                               const char *dir, skit_error *err);

/**
 * Scan `len` bytes as the file `file` (a path inside a skill, which
 * decides its kind: "SKILL.md", "scripts/x.sh", "references/y.md"...).
 * `skill` labels the findings (may be NULL).
 */
SKIT_EXTERN int skit_scan_buffer(skit_scanner *sc, skit_scan_report *rep,
                                 const char *skill, const char *file,
                                 const char *data, size_t len, skit_error *err);

/** Number of findings, sorted by skill, file, line and rule. */
SKIT_EXTERN size_t skit_scan_report_count(const skit_scan_report *rep);

/** Finding `i` (borrowed, valid until the report is freed). */
SKIT_EXTERN const skit_scan_finding *
skit_scan_report_get(const skit_scan_report *rep, size_t i);

/** Files and bytes scanned so far. */
SKIT_EXTERN size_t skit_scan_report_files(const skit_scan_report *rep);
SKIT_EXTERN size_t skit_scan_report_bytes(const skit_scan_report *rep);

/** True when some finding has a severity of at least `s`. */
SKIT_EXTERN bool skit_scan_report_reaches(const skit_scan_report *rep,
                                          skit_scan_severity s);

/** Free `rep` and its findings. NULL is a no-op. */
SKIT_EXTERN void skit_scan_report_free(skit_scan_report *rep);

/** Free `sc`. NULL is a no-op. */
SKIT_EXTERN void skit_scanner_free(skit_scanner *sc);

SKIT_END_DECL

#endif /* SKIT_SCAN_H */
