/* SPDX-License-Identifier: MIT */
/*
 * props.c - the reference's read-properties: its checks, its dictionary
 * and its JSON spelling (json.dumps(indent=2), ASCII escapes).
 *
 * Nested metadata values are rendered as Python's str() would render them
 * ("{'k': 'v'}", "['a', 'b']"), because that is what the reference emits.
 */
#include "common.h"

#include <jansson.h>
#include <utf8proc.h>

#include "skit/skill.h"
#include "lib/core/error.h"
#include "lib/skill/skill_int.h"
#include "util/buf.h"
#include "util/utf8.h"

int skit_skill_check_properties(const skit_skill *s, skit_error *err)
{
	const struct skit__ynode *name, *desc;
	size_t start;

	if (s->fatal) {
		const char *code = s->diags[0].code;
		if (s->no_file || !strcmp(code, "not-a-directory"))
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "SKILL.md not found in %s",
			                       s->dir);
		return skit__error_set(err, SKIT_EINVALID, s->diags[0].line,
		                       "%s", s->fatal);
	}
	name = skit__yaml_get(s->root, "name");
	desc = skit__yaml_get(s->root, "description");
	if (!name)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "Missing required field in frontmatter: "
		                       "name");
	if (!desc)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "Missing required field in frontmatter: "
		                       "description");
	if (name->kind != SKIT_YSCALAR ||
	    !skitx_utf8_pystrip(name->value, name->len, &start))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "Field 'name' must be a non-empty "
		                       "string");
	if (desc->kind != SKIT_YSCALAR ||
	    !skitx_utf8_pystrip(desc->value, desc->len, &start))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "Field 'description' must be a "
		                       "non-empty string");
	return 0;
}

/* Python's str.isprintable() for one code point. */
static bool py_printable(int32_t cp)
{
	if (cp == ' ')
		return true;
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_CC:
	case UTF8PROC_CATEGORY_CF:
	case UTF8PROC_CATEGORY_CS:
	case UTF8PROC_CATEGORY_CO:
	case UTF8PROC_CATEGORY_CN:
	case UTF8PROC_CATEGORY_ZL:
	case UTF8PROC_CATEGORY_ZP:
	case UTF8PROC_CATEGORY_ZS:
		return false;
	default:
		return true;
	}
}

/* repr() of a str, as CPython writes it. */
static int py_repr_str(struct skitx_buf *b, const char *v, size_t len)
{
	char quote = '\'';
	size_t i = 0;
	int32_t cp;
	int error;

	if (memchr(v, '\'', len) && !memchr(v, '"', len))
		quote = '"';
	error = skitx_buf_putc(b, quote);
	while (!error && i < len) {
		size_t n = skitx_utf8_decode(v + i, len - i, &cp);

		if (cp == quote || cp == '\\')
			error = skitx_buf_printf(b, "\\%c", (char)cp);
		else if (cp == '\t')
			error = skitx_buf_puts(b, "\\t");
		else if (cp == '\n')
			error = skitx_buf_puts(b, "\\n");
		else if (cp == '\r')
			error = skitx_buf_puts(b, "\\r");
		else if (cp < ' ' || cp == 0x7F)
			error = skitx_buf_printf(b, "\\x%02x", (unsigned)cp);
		else if (cp < 0x7F || py_printable(cp))
			error = skitx_buf_add(b, v + i, n);
		else if (cp <= 0xFF)
			error = skitx_buf_printf(b, "\\x%02x", (unsigned)cp);
		else if (cp <= 0xFFFF)
			error = skitx_buf_printf(b, "\\u%04x", (unsigned)cp);
		else
			error = skitx_buf_printf(b, "\\U%08x", (unsigned)cp);
		i += n;
	}
	if (!error)
		error = skitx_buf_putc(b, quote);
	return error;
}

/* repr() of a node: str, dict or list. */
static int py_repr(struct skitx_buf *b, const struct skit__ynode *n)
{
	int error = 0;

	if (n->kind == SKIT_YSCALAR)
		return py_repr_str(b, n->value, n->len);
	error = skitx_buf_putc(b, n->kind == SKIT_YMAP ? '{' : '[');
	for (size_t i = 0; !error && i < n->n; i++) {
		if (i)
			error = skitx_buf_puts(b, ", ");
		if (!error && n->kind == SKIT_YMAP) {
			error = py_repr(b, n->keys[i]);
			if (!error)
				error = skitx_buf_puts(b, ": ");
		}
		if (!error)
			error = py_repr(b, n->items[i]);
	}
	if (!error)
		error = skitx_buf_putc(b, n->kind == SKIT_YMAP ? '}' : ']');
	return error;
}

/* The node as JSON: str -> string, mapping -> object, list -> array. */
static json_t *to_json(const struct skit__ynode *n)
{
	json_t *j;

	if (n->kind == SKIT_YSCALAR)
		return json_stringn(n->value, n->len);
	j = n->kind == SKIT_YMAP ? json_object() : json_array();
	for (size_t i = 0; j && i < n->n; i++) {
		json_t *v = to_json(n->items[i]);
		int rc = !v ? -1
		         : n->kind == SKIT_YMAP
		                 ? json_object_set_new(j, n->keys[i]->value, v)
		                 : json_array_append_new(j, v);
		if (rc) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

/* str(v) of a metadata value: the text itself for a str, else repr. */
static json_t *py_str(const struct skit__ynode *n)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	json_t *j;

	if (n->kind == SKIT_YSCALAR)
		return json_stringn(n->value, n->len);
	if (py_repr(&b, n) < 0) {
		skitx_buf_release(&b);
		return NULL;
	}
	j = json_stringn(b.ptr, b.len);
	skitx_buf_release(&b);
	return j;
}

static bool truthy(const struct skit__ynode *n)
{
	return n->kind == SKIT_YSCALAR ? n->len > 0 : n->n > 0;
}

static int set(json_t *obj, const char *key, json_t *v)
{
	return !v || json_object_set_new(obj, key, v) ? SKIT_ENOMEM : 0;
}

/*
 * Python's json.dumps(ensure_ascii=True) writes \u escapes in lowercase
 * hex and escapes DEL; jansson writes uppercase and leaves DEL raw.
 */
static int pythonize(struct skitx_buf *out, const char *s)
{
	int error = 0;

	for (; *s && !error; s++) {
		if (*s == 0x7F) {
			error = skitx_buf_puts(out, "\\u007f");
		} else if (*s == '\\' && s[1] == 'u') {
			char esc[6] = { '\\', 'u' };
			for (int k = 0; k < 4 && s[2 + k]; k++) {
				char c = s[2 + k];
				esc[2 + k] = (c >= 'A' && c <= 'F')
				                     ? (char)(c - 'A' + 'a')
				                     : c;
			}
			error = skitx_buf_add(out, esc, 6);
			s += 5;
		} else if (*s == '\\') {
			error = skitx_buf_add(out, s, 2);
			s++;
		} else {
			error = skitx_buf_putc(out, *s);
		}
	}
	return error;
}

int skit_skill_properties_json(char **out, const skit_skill *s, skit_error *err)
{
	static const char *const passthrough[] = { "license", "compatibility",
		                                   "allowed-tools" };
	struct skitx_buf buf = SKITX_BUF_INIT;
	const struct skit__ynode *n;
	json_t *obj = NULL;
	char *dump = NULL;
	size_t start, len;
	int error;

	assert(out && s);
	*out = NULL;
	error = skit_skill_check_properties(s, err);
	if (error < 0)
		return error;

	obj = json_object();
	if (!obj)
		return skit__error_oom(err);
	n = skit__yaml_get(s->root, "name");
	len = skitx_utf8_pystrip(n->value, n->len, &start);
	error = set(obj, "name", json_stringn(n->value + start, len));
	n = skit__yaml_get(s->root, "description");
	len = skitx_utf8_pystrip(n->value, n->len, &start);
	if (!error)
		error = set(obj, "description",
		            json_stringn(n->value + start, len));
	for (size_t i = 0; !error && i < SKIT_ARRAY_SIZE(passthrough); i++) {
		n = skit__yaml_get(s->root, passthrough[i]);
		if (n)
			error = set(obj, passthrough[i], to_json(n));
	}
	n = skit__yaml_get(s->root, "metadata");
	if (!error && n && truthy(n)) {
		json_t *meta;

		if (n->kind == SKIT_YMAP) {
			meta = json_object();
			for (size_t i = 0; meta && i < n->n; i++)
				if (json_object_set_new(meta, n->keys[i]->value,
				                        py_str(n->items[i]))) {
					json_decref(meta);
					meta = NULL;
				}
		} else {
			meta = to_json(n);
		}
		error = set(obj, "metadata", meta);
	}
	if (!error) {
		dump = json_dumps(obj, JSON_INDENT(2) | JSON_ENSURE_ASCII |
		                               JSON_PRESERVE_ORDER);
		if (!dump)
			error = SKIT_ENOMEM;
	}
	if (!error)
		error = pythonize(&buf, dump);
	if (!error)
		error = skitx_buf_putc(&buf, '\n');
	if (!error) {
		*out = skitx_buf_detach(&buf, NULL);
		if (!*out)
			error = SKIT_ENOMEM;
	}
	free(dump);
	json_decref(obj);
	skitx_buf_release(&buf);
	if (error < 0)
		return skit__error_oom(err);
	return 0;
}
