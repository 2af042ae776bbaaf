/* SPDX-License-Identifier: MIT */
/*
 * yaml.h - frontmatter YAML to a small tree, in strictyaml's dialect.
 *
 * libyaml does the parsing; this module only builds a tree of the events
 * and refuses what the reference refuses: anchors, aliases, tags, flow
 * collections, directives, duplicate keys, several documents. Every scalar
 * stays a string ("true", "1.0" and "null" are text). The event stream is
 * bounded before any tree is built: nesting depth and node count are capped,
 * which disarms deep-nesting and alias bombs.
 */
#ifndef SKIT_LIB_YAML_H
#define SKIT_LIB_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include "util/pool.h"

enum skit__ynode_kind { SKIT_YSCALAR, SKIT_YMAP, SKIT_YSEQ };

/* The kinds of flow collection, as skit__ynode.flow records them. */
enum { SKIT_YFLOW_SEQ = 1, SKIT_YFLOW_MAP = 2 };

/*
 * The one wording of a flow collection, for validate's error (strict)
 * and the loader's warning (lenient): strictyaml's own message, in the
 * words it uses without its epithets and naming the kind it found, then
 * our hint after "; hint: ". The CLI's reference-compatible outputs print
 * strictyaml's exact text instead (docs/format.md).
 */
#define SKIT_YFLOW_MESSAGE(map)                                    \
 ((map) ? "Found disallowed flow mapping {...} (surround with ' "  \
	  "and ' to make text appear literally); hint: write one " \
	  "'key: value' a line, indented under the key"            \
	: "Found disallowed flow sequence [...] (surround with ' " \
	  "and ' to make text appear literally); hint: write one " \
	  "'- item' a line (allowed-tools: one space-separated "   \
	  "string)")

struct skit__ynode {
	enum skit__ynode_kind kind;
	unsigned int line, column; /* 1-based, in the YAML text */
	/*
	 * With SKIT_YAML_FLOW: set on a top-level key whose value holds a
	 * flow collection ({...} or [...]), and on a root written in flow
	 * style, so that the loader can warn once per field: the kind of
	 * the first one (SKIT_YFLOW_SEQ or SKIT_YFLOW_MAP), 0 for none.
	 */
	unsigned char flow;
	/* SKIT_YSCALAR: written plain (not quoted, not a block scalar), so
	 * that a reader with a YAML core schema would type it. */
	bool plain;
	/* SKIT_YSCALAR: the value (NUL-terminated; NUL-free, checked). */
	const char *value;
	size_t len;
	/*
	 * SKIT_YMAP: `n` pairs; keys[i] is a scalar. SKIT_YSEQ: `n` items in
	 * `items`. Arrays live in the pool.
	 */
	struct skit__ynode **keys, **items;
	size_t n;
};

#define SKIT_YAML_MAX_DEPTH 32
#define SKIT_YAML_MAX_NODES 10000

/* Flags for skit__yaml_parse(). */
enum {
	/*
	 * Accept flow collections ({...} and [...]) as the loader does:
	 * they become the same nodes as block style, and the keys holding
	 * them are marked `flow`. Anchors, aliases, tags, directives,
	 * duplicate keys and the caps are refused all the same.
	 */
	SKIT_YAML_FLOW = 1u << 0,
	/*
	 * libyaml for every input, never the fast path (the tests compare
	 * the two).
	 */
	SKIT_YAML_SLOW = 1u << 1,
};

/*
 * Parse `len` bytes of UTF-8 YAML. On success `*out` is the root (NULL for
 * an empty document) allocated in `pool`. On failure returns SKIT_EINVALID
 * (or SKIT_ENOMEM) and writes a one-line message to `msg` and the 1-based
 * position to `*line`/`*col` (0 when unknown).
 */
int skit__yaml_parse(struct skit__ynode **out, struct skitx_pool *pool,
                     const char *text, size_t len, char *msg, size_t msgsize,
                     unsigned int *line, unsigned int *col);

/* skit__yaml_parse() with SKIT_YAML_FLOW and friends in `flags`. */
int skit__yaml_parse_flags(struct skit__ynode **out, struct skitx_pool *pool,
                           const char *text, size_t len, unsigned int flags,
                           char *msg, size_t msgsize, unsigned int *line,
                           unsigned int *col);

/*
 * The fast path skit__yaml_parse() takes first: the tree of a frontmatter
 * of the simplest shape (top-level `key: value` lines, quoted or plain
 * one-line scalars, at most one level of block mapping under a key),
 * exactly as libyaml's events build it. Returns 1 with `*out` set, 0 when
 * the text is of any other shape (nothing was allocated: parse it with
 * libyaml), or SKIT_ENOMEM.
 */
int skit__yaml_parse_fast(struct skit__ynode **out, struct skitx_pool *pool,
                          const char *text, size_t len);

/*
 * Whether two trees are the same: kinds, positions, flow marks, scalars
 * (bytes and style) and children, in order. The fast path's tests and
 * fuzz harness compare it with libyaml through this.
 */
bool skit__yaml_same_tree(const struct skit__ynode *a,
                          const struct skit__ynode *b);

/* The value for `key` in a mapping, or NULL. */
const struct skit__ynode *skit__yaml_get(const struct skit__ynode *map,
                                         const char *key);

#endif
