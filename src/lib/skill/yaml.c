/* SPDX-License-Identifier: MIT */
/*
 * yaml.c - build a strictyaml-style tree from libyaml's event stream.
 *
 * The tree is built iteratively with an explicit stack, so hostile nesting
 * cannot exhaust the C stack; the depth cap stops it long before that.
 * Messages for the refusals reuse strictyaml's wording so that users of the
 * reference recognise them.
 */
#include "common.h"

#include <yaml.h>

#include "lib/skill/yaml.h"

struct frame {
	struct skit__ynode *node;
	struct skit__ynode *pending_key; /* a mapping's key awaiting a value */
	size_t alloc;
};

struct builder {
	struct skitx_pool *pool;
	unsigned int flags;
	struct frame stack[SKIT_YAML_MAX_DEPTH + 1];
	size_t depth;
	size_t nodes;
	struct skit__ynode *root;
	char *msg;
	size_t msgsize;
	unsigned int line, col;
};

static int fail(struct builder *b, const yaml_mark_t *mark, const char *fmt,
                ...) SKIT_PRINTF(3, 4);

static int fail(struct builder *b, const yaml_mark_t *mark, const char *fmt,
                ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->msg, b->msgsize, fmt, ap);
	va_end(ap);
	if (mark) {
		b->line = (unsigned int)mark->line + 1;
		b->col = (unsigned int)mark->column + 1;
	}
	return SKIT_EINVALID;
}

static struct skit__ynode *
new_node(struct builder *b, enum skit__ynode_kind kind, const yaml_mark_t *mark)
{
	struct skit__ynode *n = skitx_pool_alloc(b->pool, sizeof(*n));

	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = (unsigned int)mark->line + 1;
	n->column = (unsigned int)mark->column + 1;
	return n;
}

/* Grow a pool-owned pointer array (the old one is abandoned in the pool). */
static int push_item(struct builder *b, struct skit__ynode ***arr,
                     size_t *alloc, size_t n, struct skit__ynode *item)
{
	if (n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 8;
		struct skit__ynode **p =
		        skitx_pool_alloc(b->pool, na * sizeof(*p));
		if (!p)
			return SKIT_ENOMEM;
		if (n)
			memcpy(p, *arr, n * sizeof(*p));
		*arr = p;
		*alloc = na;
	}
	(*arr)[n] = item;
	return 0;
}

static bool same_key(const struct skit__ynode *a, const struct skit__ynode *b)
{
	return a->len == b->len && !memcmp(a->value, b->value, a->len);
}

/* Attach a finished node to its parent (or make it the root). */
static int attach(struct builder *b, struct skit__ynode *node,
                  const yaml_mark_t *mark)
{
	struct frame *f;
	int error;

	if (!b->depth) {
		b->root = node;
		return 0;
	}
	f = &b->stack[b->depth - 1];
	if (f->node->kind == SKIT_YSEQ) {
		error = push_item(b, &f->node->items, &f->alloc, f->node->n,
		                  node);
		if (!error)
			f->node->n++;
		return error;
	}
	if (!f->pending_key) {
		if (node->kind != SKIT_YSCALAR)
			return fail(b, mark,
			            "found a mapping key that is "
			            "not a plain string");
		for (size_t i = 0; i < f->node->n; i++)
			if (same_key(f->node->keys[i], node))
				return fail(b, mark, "Duplicate key '%s' found",
				            node->value);
		f->pending_key = node;
		return 0;
	}
	/* keys and items grow together: keys[i] pairs with items[i] */
	{
		size_t alloc = f->alloc;
		error = push_item(b, &f->node->keys, &alloc, f->node->n,
		                  f->pending_key);
		if (error)
			return error;
		error = push_item(b, &f->node->items, &f->alloc, f->node->n,
		                  node);
		if (error)
			return error;
	}
	f->node->n++;
	f->pending_key = NULL;
	return 0;
}

static int check_props(struct builder *b, const yaml_char_t *anchor,
                       const yaml_char_t *tag, int implicit,
                       const yaml_mark_t *mark)
{
	if (anchor)
		return fail(b, mark,
		            "Found confusing disallowed anchor token (surround "
		            "with ' and ' to make text appear literally)");
	if (tag && !implicit)
		return fail(b, mark,
		            "Found disallowed tag tokens (do not "
		            "specify types in markup)");
	return 0;
}

/*
 * A flow collection starts: mark the top-level key it sits under (or the
 * root itself), so that the loader warns once per field.
 */
static void mark_flow(struct builder *b, bool map)
{
	struct skit__ynode *n;

	if (!b->depth)
		return; /* the root: marked when it is attached */
	n = b->stack[0].pending_key ? b->stack[0].pending_key
	                            : b->stack[0].node;
	if (!n->flow)
		n->flow = map ? SKIT_YFLOW_MAP : SKIT_YFLOW_SEQ;
}

static int count_node(struct builder *b, const yaml_mark_t *mark)
{
	if (++b->nodes > SKIT_YAML_MAX_NODES)
		return fail(b, mark, "more than %d YAML nodes",
		            SKIT_YAML_MAX_NODES);
	return 0;
}

static int on_event(struct builder *b, yaml_event_t *ev, int *documents)
{
	const yaml_mark_t *mark = &ev->start_mark;
	struct skit__ynode *n;
	int error;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*documents > 1)
			return fail(b, mark, "expected a single document");
		if (ev->data.document_start.version_directive ||
		    ev->data.document_start.tag_directives.start !=
		            ev->data.document_start.tag_directives.end)
			return fail(b, mark,
			            "Found disallowed %%YAML or %%TAG "
			            "directive");
		return 0;
	case YAML_ALIAS_EVENT:
		return fail(b, mark, "found undefined alias");
	case YAML_SCALAR_EVENT:
		error = check_props(b, ev->data.scalar.anchor,
		                    ev->data.scalar.tag,
		                    ev->data.scalar.plain_implicit ||
		                            ev->data.scalar.quoted_implicit,
		                    mark);
		if (!error)
			error = count_node(b, mark);
		if (error)
			return error;
		if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
			return fail(b, mark, "a value holds a NUL character");
		n = new_node(b, SKIT_YSCALAR, mark);
		if (!n)
			return SKIT_ENOMEM;
		n->len = ev->data.scalar.length;
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->value = skitx_pool_strndup(
		        b->pool, (const char *)ev->data.scalar.value, n->len);
		if (!n->value)
			return SKIT_ENOMEM;
		return attach(b, n, mark);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		bool map = ev->type == YAML_MAPPING_START_EVENT;
		bool flow = map ? ev->data.mapping_start.style ==
		                            YAML_FLOW_MAPPING_STYLE
		                : ev->data.sequence_start.style ==
		                            YAML_FLOW_SEQUENCE_STYLE;

		error = check_props(b,
		                    map ? ev->data.mapping_start.anchor
		                        : ev->data.sequence_start.anchor,
		                    map ? ev->data.mapping_start.tag
		                        : ev->data.sequence_start.tag,
		                    map ? ev->data.mapping_start.implicit
		                        : ev->data.sequence_start.implicit,
		                    mark);
		if (error)
			return error;
		/* strictyaml says "mapping" for [...] too: ours names it */
		if (flow && (b->flags & SKIT_YAML_FLOW))
			mark_flow(b, map);
		else if (flow)
			return fail(b, mark, "%s", SKIT_YFLOW_MESSAGE(map));
		if (b->depth >= SKIT_YAML_MAX_DEPTH)
			return fail(b, mark, "nesting deeper than %d levels",
			            SKIT_YAML_MAX_DEPTH);
		error = count_node(b, mark);
		if (error)
			return error;
		n = new_node(b, map ? SKIT_YMAP : SKIT_YSEQ, mark);
		if (!n)
			return SKIT_ENOMEM;
		n->flow = flow && !b->depth
		                  ? (map ? SKIT_YFLOW_MAP : SKIT_YFLOW_SEQ)
		                  : 0;
		b->stack[b->depth].node = n;
		b->stack[b->depth].pending_key = NULL;
		b->stack[b->depth].alloc = 0;
		b->depth++;
		return 0;
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		assert(b->depth);
		n = b->stack[--b->depth].node;
		return attach(b, n, mark);
	default:
		return 0;
	}
}

/* ---- the fast path ------------------------------------------------------ */

/*
 * Most frontmatter is a handful of `key: value` lines and perhaps one
 * block mapping of the same under a key (`metadata:`). For exactly that
 * shape the tree is built here from the lines, without libyaml's scanner
 * and its allocations (which cost about as much as reading the file).
 * libyaml stays the parser of record: anything but that shape (a comment,
 * a tab, an escape, a continuation line, a flow collection, a duplicate
 * key, an empty value, a character YAML treats specially) is handed to it
 * untouched, and the tree built here is the one libyaml's events give
 * (tests/unit/test_yaml.c compares the two over every fixture).
 */

#define FAST_MAX_ENTRIES 96
#define FAST_MAX_KEY     128

struct fast_entry {
	const char *key, *val;
	size_t klen, vlen;
	unsigned int line;       /* 0-based */
	unsigned int kcol, vcol; /* 0-based, in characters (all ASCII before) */
	unsigned char style;  /* 0 plain, 1 single, 2 double, 3 a block map */
	unsigned char nested; /* an entry of the nested mapping */
};

static bool fast_key_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/*
 * Whether the non-ASCII character at `p` is well-formed UTF-8 (checked
 * here: the fast path may be given any bytes), printable for libyaml and
 * nothing it reads as a line break or a byte order mark. Returns its
 * length, 0 if not.
 */
static size_t fast_wide(const char *p, size_t left)
{
	const unsigned char *s = (const unsigned char *)p;
	uint32_t cp;
	size_t n;

	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2;
		cp = s[0] & 0x1Fu;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3;
		cp = s[0] & 0x0Fu;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4;
		cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3Fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10FFFF || cp < 0xA0 || (cp >= 0xD800 && cp < 0xE000) ||
	    cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF || cp == 0xFFFE ||
	    cp == 0xFFFF)
		return 0;
	return n;
}

/*
 * Characters a one-line scalar holds as they are, by style: printable
 * ASCII and the space, well-formed printable non-ASCII, but for what ends
 * or escapes that style (':' and '#' end a plain scalar only in context,
 * which the caller looks at).
 */
enum fast_style { FAST_PLAIN, FAST_SINGLE, FAST_DOUBLE };

static bool fast_stop(unsigned char c, enum fast_style st)
{
	switch (st) {
	case FAST_PLAIN:
		return c == ':' || c == '#';
	case FAST_SINGLE:
		return c == '\'';
	default:
		return c == '"' || c == '\\';
	}
}

/*
 * Past the run of characters at `p` that style `st` takes as they are;
 * stops at `end` or at the first byte to look at.
 */
static const char *fast_run(const char *p, const char *end, enum fast_style st)
{
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		size_t n;

		if (c >= 0x20 && c < 0x7F) {
			if (fast_stop(c, st))
				return p;
			p++;
			continue;
		}
		if (c < 0x80 || !(n = fast_wide(p, (size_t)(end - p))))
			return p;
		p += n;
	}
	return p;
}

/*
 * The value part of a line, `v` to `end` (after ": "): a quoted string
 * closed on this line (nothing but spaces after it) or a plain scalar that
 * holds no ": ", " #" nor trailing ':' and starts with no indicator. False
 * for anything else.
 */
static bool fast_value(struct fast_entry *e, const char *v, const char *end)
{
	const char *p;

	if (v == end)
		return false;
	if (*v == '"' || *v == '\'') {
		char q = *v;

		p = fast_run(v + 1, end, q == '"' ? FAST_DOUBLE : FAST_SINGLE);
		if (p == end || *p != q)
			return false; /* not closed on this line, or an escape
			               */
		e->val = v + 1;
		e->vlen = (size_t)(p - v - 1);
		e->style = q == '"' ? 2 : 1;
		for (p++; p < end; p++)
			if (*p != ' ')
				return false; /* a comment, or more text */
		return true;
	}
	if (strchr("-?:,[]{}#&*!|>%@`", *v))
		return false;
	for (p = v;;) {
		p = fast_run(p, end, FAST_PLAIN);
		if (p == end)
			break;
		/* ':' not before a space or the end; '#' not after a space */
		if ((*p == ':' && p + 1 < end && p[1] != ' ') ||
		    (*p == '#' && p > v && p[-1] != ' ')) {
			p++;
			continue;
		}
		return false; /* ": ", a final ':', " #", a control */
	}
	while (end > v && end[-1] == ' ')
		end--;
	e->val = v;
	e->vlen = (size_t)(end - v);
	e->style = 0;
	return true;
}

/* A scalar node of the tree, as on_event() makes one. */
static struct skit__ynode *fast_scalar(struct skitx_pool *pool, const char *v,
                                       size_t len, bool plain,
                                       unsigned int line, unsigned int col)
{
	struct skit__ynode *n = skitx_pool_alloc(pool, sizeof(*n));

	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->kind = SKIT_YSCALAR;
	n->line = line + 1;
	n->column = col + 1;
	n->len = len;
	n->plain = plain;
	n->value = skitx_pool_strndup(pool, v, len);
	return n->value ? n : NULL;
}

static struct skit__ynode *fast_map(struct skitx_pool *pool,
                                    const struct fast_entry *first, size_t n)
{
	struct skit__ynode *m = skitx_pool_alloc(pool, sizeof(*m));

	if (!m)
		return NULL;
	memset(m, 0, sizeof(*m));
	m->kind = SKIT_YMAP;
	m->line = first->line + 1;
	m->column = first->kcol + 1;
	m->keys = skitx_pool_alloc(pool, n * sizeof(*m->keys));
	m->items = skitx_pool_alloc(pool, n * sizeof(*m->items));
	return m->keys && m->items ? m : NULL;
}

static bool fast_dup(const struct fast_entry *e, size_t from, size_t to,
                     bool nested)
{
	for (size_t i = from; i < to; i++)
		if (e[i].nested == nested && e[i].klen == e[to].klen &&
		    !memcmp(e[i].key, e[to].key, e[to].klen))
			return true;
	return false;
}

int skit__yaml_parse_fast(struct skit__ynode **out, struct skitx_pool *pool,
                          const char *text, size_t len)
{
	struct fast_entry e[FAST_MAX_ENTRIES];
	const char *p = text, *end = text + len;
	size_t n = 0, block = 0, indent = 0;
	unsigned int line = 0;
	bool open = false; /* after `key:`: a nested mapping must follow */
	struct skit__ynode *root, *sub = NULL;

	*out = NULL;
	if (!len)
		return 0;
	for (; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *start = p, *k = p, *v;
		size_t in;
		struct fast_entry *x;

		p = nl ? nl + 1 : end;
		if (k == eol)
			continue; /* an empty line */
		while (k < eol && *k == ' ')
			k++;
		in = (size_t)(k - start);
		if (n == FAST_MAX_ENTRIES || k == eol)
			return 0;
		if (in) {
			/* an entry of the nested mapping, at its indentation */
			if (!(open || block) || (block && in != indent))
				return 0;
			if (open) {
				indent = in;
				block = n;
				open = false;
			}
		} else {
			if (open)
				return 0; /* `key:` with nothing under it */
			block = 0;
		}
		x = &e[n];
		x->nested = in != 0;
		x->line = line;
		x->kcol = (unsigned int)in;
		if (*k == '-' || !fast_key_char((unsigned char)*k))
			return 0;
		for (x->key = k; k < eol && fast_key_char((unsigned char)*k);)
			k++;
		x->klen = (size_t)(k - x->key);
		/* libyaml drops a simple key over 1,024 characters */
		if (k == eol || *k != ':' || x->klen > FAST_MAX_KEY)
			return 0;
		if (fast_dup(e, x->nested ? block : 0, n, x->nested))
			return 0;
		if (k + 1 == eol) {
			if (x->nested)
				return 0; /* no deeper level, no empty value */
			x->style = 3;
			x->val = NULL;
			x->vlen = 0;
			open = true;
			n++;
			continue;
		}
		if (k[1] != ' ')
			return 0;
		for (v = k + 1; v < eol && *v == ' ';)
			v++;
		x->vcol = (unsigned int)(v - start);
		if (!fast_value(x, v, eol))
			return 0;
		n++;
	}
	if (open || !n)
		return 0;

	/* The shape holds: build the tree. */
	{
		size_t top = 0;

		for (size_t i = 0; i < n; i++)
			top += !e[i].nested;
		root = fast_map(pool, &e[0], top);
		if (!root)
			return SKIT_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct skit__ynode *key, *val, *m = e[i].nested ? sub : root;

		key = fast_scalar(pool, e[i].key, e[i].klen, true, e[i].line,
		                  e[i].kcol);
		if (!key)
			return SKIT_ENOMEM;
		if (e[i].style == 3) {
			size_t j = i + 1;

			while (j < n && e[j].nested)
				j++;
			val = sub = fast_map(pool, &e[i + 1], j - i - 1);
		} else {
			val = fast_scalar(pool, e[i].val, e[i].vlen,
			                  e[i].style == 0, e[i].line,
			                  e[i].vcol);
		}
		if (!val)
			return SKIT_ENOMEM;
		m->keys[m->n] = key;
		m->items[m->n++] = val;
	}
	*out = root;
	return 1;
}

int skit__yaml_parse_flags(struct skit__ynode **out, struct skitx_pool *pool,
                           const char *text, size_t len, unsigned int flags,
                           char *msg, size_t msgsize, unsigned int *line,
                           unsigned int *col)
{
	struct builder b;
	yaml_parser_t parser;
	yaml_event_t ev;
	int error = 0, documents = 0, done = 0;

	*out = NULL;
	*line = *col = 0;
	msg[0] = '\0';
	if (!(flags & SKIT_YAML_SLOW)) {
		error = skit__yaml_parse_fast(out, pool, text, len);
		if (error == 1)
			return 0;
		if (error < 0) {
			snprintf(msg, msgsize, "out of memory");
			return error;
		}
	}
	memset(&b, 0, sizeof(b));
	b.pool = pool;
	b.flags = flags;
	b.msg = msg;
	b.msgsize = msgsize;
	*out = NULL;
	*line = *col = 0;
	msg[0] = '\0';

	if (!yaml_parser_initialize(&parser))
		return SKIT_ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);

	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			if (parser.error == YAML_MEMORY_ERROR) {
				error = SKIT_ENOMEM;
				break;
			}
			snprintf(msg, msgsize, "%s%s%s",
			         parser.problem ? parser.problem
			                        : "malformed YAML",
			         parser.context ? " " : "",
			         parser.context ? parser.context : "");
			b.line = (unsigned int)parser.problem_mark.line + 1;
			b.col = (unsigned int)parser.problem_mark.column + 1;
			error = SKIT_EINVALID;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		error = on_event(&b, &ev, &documents);
		yaml_event_delete(&ev);
		if (error)
			break;
	}
	yaml_parser_delete(&parser);
	*line = b.line;
	*col = b.col;
	if (error == SKIT_ENOMEM)
		snprintf(msg, msgsize, "out of memory");
	if (!error)
		*out = b.root;
	return error;
}

int skit__yaml_parse(struct skit__ynode **out, struct skitx_pool *pool,
                     const char *text, size_t len, char *msg, size_t msgsize,
                     unsigned int *line, unsigned int *col)
{
	return skit__yaml_parse_flags(out, pool, text, len, 0, msg, msgsize,
	                              line, col);
}

const struct skit__ynode *skit__yaml_get(const struct skit__ynode *map,
                                         const char *key)
{
	size_t klen = strlen(key);

	if (!map || map->kind != SKIT_YMAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (map->keys[i]->len == klen &&
		    !memcmp(map->keys[i]->value, key, klen))
			return map->items[i];
	return NULL;
}

bool skit__yaml_same_tree(const struct skit__ynode *a,
                          const struct skit__ynode *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->line != b->line ||
	    a->column != b->column || a->flow != b->flow || a->n != b->n)
		return false;
	if (a->kind == SKIT_YSCALAR)
		return a->plain == b->plain && a->len == b->len &&
		       !memcmp(a->value, b->value, a->len) && !a->value[a->len];
	for (size_t i = 0; i < a->n; i++) {
		if (a->kind == SKIT_YMAP &&
		    !skit__yaml_same_tree(a->keys[i], b->keys[i]))
			return false;
		if (!skit__yaml_same_tree(a->items[i], b->items[i]))
			return false;
	}
	return true;
}
