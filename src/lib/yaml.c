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

#include "lib/yaml.h"

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
static void mark_flow(struct builder *b)
{
	if (!b->depth)
		return; /* the root: marked when it is attached */
	if (b->stack[0].pending_key)
		b->stack[0].pending_key->flow = true;
	else
		b->stack[0].node->flow = true;
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
		/* strictyaml says "mapping" for [...] too; keep its words */
		if (flow && (b->flags & SKIT_YAML_FLOW))
			mark_flow(b);
		else if (flow)
			return fail(
			        b, mark,
			        "Found ugly disallowed JSONesque flow mapping "
			        "(surround with ' and ' to make text appear "
			        "literally)");
		if (b->depth >= SKIT_YAML_MAX_DEPTH)
			return fail(b, mark, "nesting deeper than %d levels",
			            SKIT_YAML_MAX_DEPTH);
		error = count_node(b, mark);
		if (error)
			return error;
		n = new_node(b, map ? SKIT_YMAP : SKIT_YSEQ, mark);
		if (!n)
			return SKIT_ENOMEM;
		n->flow = flow && !b->depth;
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

int skit__yaml_parse_flags(struct skit__ynode **out, struct skitx_pool *pool,
                           const char *text, size_t len, unsigned int flags,
                           char *msg, size_t msgsize, unsigned int *line,
                           unsigned int *col)
{
	struct builder b;
	yaml_parser_t parser;
	yaml_event_t ev;
	int error = 0, documents = 0, done = 0;

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
