/* SPDX-License-Identifier: MIT */
/*
 * scan_norm.c - the normalised view of a text, which the rules read a
 * second time: what was written to evade a scanner, spelled out.
 *
 * Code (scripts, data, decoded blobs) goes through two linear passes.
 * The first folds constant strings: 'chil' + 'd_pro' + 'cess', Python's
 * implicit 'a' 'b', the shell's "cu""rl" and c'u'rl, ['fet','ch'].join(''),
 * ''.join([...]), chr(99) + chr(117), String.fromCharCode(...), arrays of
 * character codes, and the escapes inside literals (\x63, \u0063,
 * \u{63}, \143); and it decodes the literal argument of atob(),
 * b64decode(), Buffer.from(..., 'base64'|'hex'), bytes.fromhex() and
 * unhexlify(). The second resolves what names stand for: a constant
 * string (const m = 'child_process'; require(m)), an alias of a
 * dangerous function (const a = require; const b = a; b(x)), shell
 * variables ($a$b), computed member access (process['env'] becomes
 * process.env) and getattr(x, 'name') (x.name).
 *
 * Markdown goes through one pass that drops zero-width, bidirectional
 * and soft-hyphen characters, decodes numeric HTML entities and maps
 * the Cyrillic and Greek letters that look like Latin ones, so that
 * "ig<U+200B>nore previous instructions" reads as what it says.
 *
 * Every output byte carries a mark: unchanged, folded (built from
 * pieces or resolved through a name) or decoded (from escapes, codes or
 * an encoding). The line count never changes: a literal folded across
 * lines is followed by the newlines it swallowed, and a decoded newline
 * is written back as "\n". The output is at most 1.25 times the input plus
 * 4 KiB; past that the view is given up (the original was scanned), and
 * a file over 4 MiB gets no view.
 * Nothing is evaluated: these are textual rewrites of constants.
 */
#define _GNU_SOURCE /* memmem: before any header */
#include "common.h"

#include "lib/scan/scan_int.h"
#include "util/utf8.h"

#define LIT_MAX     4096u      /* bytes of one folded literal */
#define NAMES_MAX   64u        /* constants and aliases remembered a file */
#define NAME_LEN    48u        /* bytes of a name */
#define VALUE_LEN   256u       /* bytes of a constant's value */
#define CHAIN_MAX   256u       /* pieces folded into one literal */
#define CODES_MIN   4u         /* character codes worth decoding */
#define OUT_SLACK   4096u      /* bytes the output may exceed 1.25x the input */
#define NORM_MAX    (4u << 20) /* bytes of a file given a view */
#define ALIAS_DEPTH 8          /* alias of an alias ... */

enum lang { LANG_ANY, LANG_JS, LANG_PY, LANG_SH };

struct out {
	char *s;
	uint8_t *m;
	size_t len, cap;
	bool full;
};

struct name {
	char name[NAME_LEN];
	char value[VALUE_LEN];
	bool alias;   /* value is a name, not a string */
	uint8_t mark; /* how a use is marked: folded, or plainly resolved */
};

struct norm {
	const char *in;
	const uint8_t *inm; /* marks of the input, or NULL */
	size_t len;
	enum lang lang;
	struct out o;
	struct name names[NAMES_MAX];
	size_t nnames;
	size_t *work;
};

/* Names whose aliases are worth following: what runs code, loads
 * modules, reaches the environment or the network. */
static const char *const alias_roots[] = {
	"require",    "eval",          "Function",       "exec",
	"execSync",   "execFile",      "execFileSync",   "spawn",
	"spawnSync",  "system",        "popen",          "__import__",
	"getattr",    "globalThis",    "window",         "global",
	"process",    "child_process", "subprocess",     "os",
	"pickle",     "marshal",       "fetch",          "atob",
	"importlib",  "Buffer",        "XMLHttpRequest", "socket",
	"setTimeout", "setInterval",   "builtins",       "__builtins__",
	NULL,
};

static bool out_grow(struct out *o, size_t extra)
{
	if (o->full || o->len + extra > o->cap) {
		o->full = true;
		return false;
	}
	return true;
}

static void put(struct out *o, const char *s, size_t n, uint8_t mark)
{
	if (!out_grow(o, n))
		return;
	memcpy(o->s + o->len, s, n);
	memset(o->m + o->len, mark, n);
	o->len += n;
}

static void put_in(struct norm *n, size_t from, size_t len)
{
	if (!out_grow(&n->o, len))
		return;
	memcpy(n->o.s + n->o.len, n->in + from, len);
	if (n->inm)
		memcpy(n->o.m + n->o.len, n->inm + from, len);
	else
		memset(n->o.m + n->o.len, 0, len);
	n->o.len += len;
}

static bool is_id0(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '$';
}

static bool is_id(int c)
{
	return is_id0(c) || (c >= '0' && c <= '9');
}

static bool is_quote(int c)
{
	return c == '\'' || c == '"' || c == '`';
}

/* A byte that starts no fold, decoding or name: copied as it is. */
static bool plain(int c)
{
	return !is_id(c) && !is_quote(c) && c != '[' && c != '(' && c != '$' &&
	       c != '\\';
}

static size_t skip_sp(const char *s, size_t i, size_t len, size_t *nl)
{
	for (;;) {
		/* a backslash before a newline continues the line */
		if (nl && i + 1 < len && s[i] == '\\' && s[i + 1] == '\n') {
			(*nl)++;
			i += 2;
			continue;
		}
		if (i >= len || !(s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
		                  (nl && s[i] == '\n')))
			return i;
		if (s[i] == '\n')
			(*nl)++;
		i++;
	}
}

/* A literal under construction. */
struct lit {
	char v[LIT_MAX];
	size_t len;
	bool decoded; /* an escape, code or encoding spelled a letter */
	bool full;
};

static void lit_init(struct lit *l)
{
	l->len = 0;
	l->decoded = false;
	l->full = false;
}

static void lit_putc(struct lit *l, uint32_t cp)
{
	char tmp[4];
	size_t n;

	if (cp < 0x80) {
		tmp[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		tmp[0] = (char)(0xC0 | cp >> 6);
		tmp[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		tmp[0] = (char)(0xE0 | cp >> 12);
		tmp[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		tmp[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else if (cp < 0x110000) {
		tmp[0] = (char)(0xF0 | cp >> 18);
		tmp[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		tmp[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		tmp[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	} else {
		return;
	}
	if (l->len + n > LIT_MAX) {
		l->full = true;
		return;
	}
	memcpy(l->v + l->len, tmp, n);
	l->len += n;
}

/* Hex digits at s[i..i+n), or -1. */
static long hex_at(const char *s, size_t i, size_t len, size_t n)
{
	long v = 0;

	if (i + n > len)
		return -1;
	for (size_t k = 0; k < n; k++) {
		int d = skit__scan_hexval((unsigned char)s[i + k]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/*
 * Read the quoted literal at s[i] (a quote; Python's b, r, u, f prefixes
 * are read as plain text before it) on one line, decoding escapes into
 * `l`. Returns the index after the closing quote, or 0 when there is no
 * constant literal here (no closing quote on the line, or a template's
 * ${...}).
 */
static size_t read_lit(const char *s, size_t i, size_t len, struct lit *l)
{
	char q = s[i++];

	while (i < len && s[i] != q) {
		unsigned char c = (unsigned char)s[i];
		long v;

		if (c == '\n')
			return 0;
		if (q == '`' && c == '$' && i + 1 < len && s[i + 1] == '{')
			return 0;
		if (c != '\\' || i + 1 >= len) {
			lit_putc(l, c);
			i++;
			continue;
		}
		c = (unsigned char)s[i + 1];
		/* a backslash-newline would carry the literal over a line,
		 * and the view keeps the line count */
		if (c == '\n' || c == '\r')
			return 0;
		if (c == 'x' && (v = hex_at(s, i + 2, len, 2)) >= 0) {
			l->decoded |= is_id((int)v) || v == '/' || v == '.';
			lit_putc(l, (uint32_t)v);
			i += 4;
		} else if (c == 'u' && i + 2 < len && s[i + 2] == '{') {
			size_t k = i + 3;

			v = 0;
			while (k < len && k < i + 10 &&
			       skit__scan_hexval((unsigned char)s[k]) >= 0)
				v = v * 16 +
				    skit__scan_hexval((unsigned char)s[k++]);
			if (k >= len || s[k] != '}')
				return 0;
			l->decoded |= v < 0x80 && (is_id((int)v) || v == '/');
			lit_putc(l, (uint32_t)v);
			i = k + 1;
		} else if (c == 'u' && (v = hex_at(s, i + 2, len, 4)) >= 0) {
			l->decoded |= v < 0x80 && (is_id((int)v) || v == '/');
			lit_putc(l, (uint32_t)v);
			i += 6;
		} else if (c >= '0' && c <= '7' && i + 3 < len &&
		           s[i + 2] >= '0' && s[i + 2] <= '7' &&
		           s[i + 3] >= '0' && s[i + 3] <= '7') {
			v = (c - '0') * 64 + (s[i + 2] - '0') * 8 +
			    (s[i + 3] - '0');
			l->decoded |= v < 0x80 && is_id((int)v);
			lit_putc(l, (uint32_t)v & 0xFF);
			i += 4;
		} else {
			/* \n, \t, \\, \', \/ ... : ordinary text */
			lit_putc(l, c == 'n' ? '\n' : c == 't' ? '\t' : c);
			i += 2;
		}
	}
	return i < len ? i + 1 : 0;
}

/* An integer (decimal, or 0x hex) at s[i]; the index after it, or 0. */
static size_t read_int(const char *s, size_t i, size_t len, long *v)
{
	size_t b = i;

	*v = 0;
	if (i + 1 < len && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		while (i < len && skit__scan_hexval((unsigned char)s[i]) >= 0 &&
		       *v < 0x110000)
			*v = *v * 16 + skit__scan_hexval((unsigned char)s[i++]);
		return i > b + 2 && (i >= len || !is_id(s[i])) ? i : 0;
	}
	while (i < len && s[i] >= '0' && s[i] <= '9' && *v < 0x110000)
		*v = *v * 10 + (s[i++] - '0');
	return i > b && (i >= len || !is_id(s[i])) ? i : 0;
}

/*
 * A list of character codes "n, n, n" up to `close`; appends them to
 * `l` and returns the index of `close`, or 0.
 */
static size_t read_codes(const char *s, size_t i, size_t len, char close,
                         struct lit *l, size_t *count)
{
	*count = 0;
	for (;;) {
		long v;
		size_t e;

		i = skip_sp(s, i, len, NULL);
		if (i < len && s[i] == close)
			return i;
		e = read_int(s, i, len, &v);
		if (!e || v < 9 || v > 0x10FFFF)
			return 0;
		lit_putc(l, (uint32_t)v);
		(*count)++;
		i = skip_sp(s, e, len, NULL);
		if (i < len && s[i] == ',')
			i++;
		else if (i >= len || s[i] != close)
			return 0;
	}
}

/* `ch` within `max` bytes of s[i] and on the same line, or NULL: the
 * view never drops a newline. */
static const char *find_on_line(const char *s, size_t i, size_t len, char ch,
                                size_t max)
{
	for (size_t k = i; k < len && k < i + max && s[k] != '\n'; k++)
		if (s[k] == ch)
			return s + k;
	return NULL;
}

static bool word_at(const char *s, size_t i, size_t len, const char *w)
{
	size_t n = strlen(w);

	return i + n <= len && !memcmp(s + i, w, n) &&
	       (i + n == len || !is_id(s[i + n]));
}

/* Decode base64 text into `l`; false when it is not base64. */
static bool b64_into(const char *v, size_t n, struct lit *l)
{
	uint32_t acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)v[i], d;

		if (c >= 'A' && c <= 'Z')
			d = c - 'A';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			d = c - '0' + 52;
		else if (c == '+' || c == '-')
			d = 62;
		else if (c == '/' || c == '_')
			d = 63;
		else if (c == '=')
			break;
		else
			return false;
		acc = acc << 6 | (uint32_t)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			lit_putc(l, (acc >> bits) & 0xFF);
		}
	}
	return true;
}

static bool hex_into(const char *v, size_t n, struct lit *l)
{
	if (n % 2)
		return false;
	for (size_t i = 0; i < n; i += 2) {
		long b = hex_at(v, i, n, 2);

		if (b < 0)
			return false;
		lit_putc(l, (uint32_t)b);
	}
	return true;
}

/* Mostly printable text: a decoding worth showing the rules. */
static bool printable(const char *v, size_t n)
{
	size_t bad = 0;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		bad += (c < 0x20 && c != '\n' && c != '\t' && c != '\r') ||
		       c == 0x7F;
	}
	return bad * 20 <= n;
}

/* Write a literal, its newlines escaped so the line count holds. */
static void put_lit(struct norm *n, const struct lit *l, char q, uint8_t mark)
{
	put(&n->o, &q, 1, mark);
	for (size_t i = 0; i < l->len; i++) {
		char c = l->v[i];

		if (c == '\n')
			put(&n->o, "\\n", 2, mark);
		else if (c == '\r')
			put(&n->o, "\\r", 2, mark);
		else
			put(&n->o, &c, 1, mark);
	}
	put(&n->o, &q, 1, mark);
}

/* A value as text, its newlines escaped so the line count holds. */
static void put_text(struct norm *n, const char *v, uint8_t mark)
{
	for (; *v; v++) {
		if (*v == '\n')
			put(&n->o, "\\n", 2, mark);
		else if (*v == '\r')
			put(&n->o, "\\r", 2, mark);
		else
			put(&n->o, v, 1, mark);
	}
}

static void put_nl(struct norm *n, size_t nl)
{
	while (nl--)
		put(&n->o, "\n", 1, 0);
}

/*
 * One piece of a constant string at s[i]: a literal, chr(n), or
 * String.fromCharCode(n, ...). Appends to `l`; the index after it, or 0.
 */
static size_t read_piece(const char *s, size_t i, size_t len, struct lit *l)
{
	size_t e, cnt;
	long v;

	if (i < len && is_quote(s[i]))
		return read_lit(s, i, len, l);
	if (word_at(s, i, len, "chr") || word_at(s, i, len, "unichr")) {
		e = skip_sp(s, i + (s[i] == 'c' ? 3 : 6), len, NULL);
		if (e >= len || s[e] != '(')
			return 0;
		e = read_int(s, skip_sp(s, e + 1, len, NULL), len, &v);
		if (!e || v < 9 || v > 0x10FFFF)
			return 0;
		e = skip_sp(s, e, len, NULL);
		if (e >= len || s[e] != ')')
			return 0;
		l->decoded |= v < 0x80 && is_id((int)v);
		lit_putc(l, (uint32_t)v);
		return e + 1;
	}
	if (word_at(s, i, len, "String.fromCharCode")) {
		e = skip_sp(s, i + 19, len, NULL);
		if (e >= len || s[e] != '(')
			return 0;
		e = skip_sp(s, e + 1, len, NULL);
		if (e + 4 < len && !memcmp(s + e, "...[", 4)) {
			e = read_codes(s, e + 4, len, ']', l, &cnt);
			if (!e)
				return 0;
			e = skip_sp(s, e + 1, len, NULL);
		} else {
			e = read_codes(s, e, len, ')', l, &cnt);
		}
		if (!e || e >= len || s[e] != ')' || !cnt)
			return 0;
		l->decoded = true;
		return e + 1;
	}
	return 0;
}

/*
 * A list of literals or of character codes, s[i] == '[' (or '('):
 * joined into `l`. The index after the closing bracket, or 0.
 */
static size_t read_list(const char *s, size_t i, size_t len, const char *sep,
                        size_t seplen, struct lit *l, bool *codes)
{
	char close = s[i] == '[' ? ']' : ')';
	size_t n = 0, e;
	struct lit piece;

	e = skip_sp(s, i + 1, len, NULL);
	if (e < len && ((s[e] >= '0' && s[e] <= '9'))) {
		e = read_codes(s, e, len, close, l, &n);
		*codes = true;
		return e && n >= CODES_MIN ? e + 1 : 0;
	}
	*codes = false;
	for (i = e;;) {
		i = skip_sp(s, i, len, NULL);
		if (i < len && s[i] == close && n)
			return i + 1;
		if (i >= len || !is_quote(s[i]) || n >= CHAIN_MAX)
			return 0;
		lit_init(&piece);
		e = read_lit(s, i, len, &piece);
		if (!e || piece.full)
			return 0;
		if (n)
			for (size_t k = 0; k < seplen; k++)
				lit_putc(l, (unsigned char)sep[k]);
		for (size_t k = 0; k < piece.len; k++)
			lit_putc(l, (unsigned char)piece.v[k]);
		l->decoded |= piece.decoded;
		n++;
		i = skip_sp(s, e, len, NULL);
		if (i < len && s[i] == ',')
			i++;
	}
}

/* `.join(<lit>)` at s[i]: the separator; the index after, or 0. */
static size_t read_join(const char *s, size_t i, size_t len, struct lit *sep)
{
	size_t e;

	if (i + 6 > len || memcmp(s + i, ".join(", 6))
		return 0;
	e = skip_sp(s, i + 6, len, NULL);
	if (e >= len || !is_quote(s[e]))
		return 0;
	e = read_lit(s, e, len, sep);
	if (!e)
		return 0;
	e = skip_sp(s, e, len, NULL);
	return e < len && s[e] == ')' ? e + 1 : 0;
}

/*
 * The constant string starting at s[i], with every piece joined by +,
 * by adjacency (Python, shell) or by ''.join(...). The index after it
 * and the newlines it swallowed, or 0 when s[i] starts none.
 */
static size_t fold_string(struct norm *n, size_t i, struct lit *l, size_t *nl,
                          size_t *pieces)
{
	const char *s = n->in;
	size_t len = n->len, e, p, lines, keep_len;
	bool keep_dec;

	e = read_piece(s, i, len, l);
	if (!e)
		return 0;
	*pieces = 1;
	*nl = 0;
	/* Python: sep.join([...]), sep.join(chr(c) for c in [...]),
	 * sep.join(map(chr, [...])) */
	if (s[i] == '\'' || s[i] == '"') {
		if (e + 6 <= len && !memcmp(s + e, ".join(", 6)) {
			size_t a = skip_sp(s, e + 6, len, NULL), z;
			bool codes;
			struct lit joined;

			lit_init(&joined);
			if (a + 8 < len && !memcmp(s + a, "map(chr,", 8))
				a = skip_sp(s, a + 8, len, NULL);
			else if (a + 4 < len && !memcmp(s + a, "chr(", 4)) {
				const char *in =
				        find_on_line(s, a, len, '[', 64);

				a = in ? (size_t)(in - s) : len;
			}
			if (a < len && (s[a] == '[' || s[a] == '(')) {
				z = read_list(s, a, len, l->v, l->len, &joined,
				              &codes);
				if (z && !joined.full) {
					size_t c = 0;

					/* close what map( or the generator
					 * left open, up to the join's ')' */
					while (z < len && c < 3 &&
					       s[z] != '\n' &&
					       (s[z] == ')' || s[z] == ' ')) {
						z++;
						c++;
					}
					*l = joined;
					l->decoded |= codes;
					*pieces = 2;
					return z;
				}
			}
		}
	}
	for (;;) {
		lines = 0;
		p = skip_sp(s, e, len, &lines);
		if (p < len && s[p] == '+' && p + 1 < len && s[p + 1] != '+' &&
		    s[p + 1] != '=') {
			p = skip_sp(s, p + 1, len, &lines);
		} else if (p < len && is_quote(s[p]) &&
		           ((n->lang == LANG_PY && !lines) ||
		            (p == e && n->lang != LANG_JS))) {
			/* implicit concatenation */
		} else {
			break;
		}
		if (*pieces >= CHAIN_MAX)
			break;
		keep_len = l->len;
		keep_dec = l->decoded;
		p = read_piece(s, p, len, l);
		if (!p || l->full) {
			/* a piece that does not end (no closing quote on
			 * the line) is not part of the constant */
			l->len = keep_len;
			l->decoded = keep_dec;
			l->full = false;
			break;
		}
		e = p;
		*nl += lines;
		(*pieces)++;
	}
	return e;
}

/* Look a name up among the remembered constants and aliases. */
static const struct name *lookup(const struct norm *n, const char *s,
                                 size_t len)
{
	for (size_t i = n->nnames; i-- > 0;)
		if (strlen(n->names[i].name) == len &&
		    !memcmp(n->names[i].name, s, len))
			return &n->names[i];
	return NULL;
}

static void remember(struct norm *n, const char *name, size_t nlen,
                     const char *value, size_t vlen, bool alias, uint8_t mark)
{
	struct name *nm;

	if (!nlen || nlen >= NAME_LEN || vlen >= VALUE_LEN)
		return;
	if (n->nnames == NAMES_MAX)
		return;
	nm = &n->names[n->nnames++];
	memcpy(nm->name, name, nlen);
	nm->name[nlen] = '\0';
	memcpy(nm->value, value, vlen);
	nm->value[vlen] = '\0';
	nm->alias = alias;
	nm->mark = mark;
}

/*
 * Another name for a function that runs code or loads modules, taken
 * bare (const a = require, e = eval, g = globalThis): what hiding looks
 * like. A method taken by its path (run = subprocess.run) or a name for
 * fetch is an ordinary shortcut: resolved, not a sign.
 */
static bool hiding_alias(const char *v, size_t len)
{
	static const char *const hiding[] = {
		"require",    "eval",        "Function",     "exec",
		"execSync",   "spawn",       "system",       "popen",
		"__import__", "getattr",     "globalThis",   "window",
		"global",     "builtins",    "__builtins__", "import_module",
		"setTimeout", "setInterval", NULL,
	};

	for (size_t i = 0; hiding[i]; i++)
		if (strlen(hiding[i]) == len && !memcmp(v, hiding[i], len))
			return true;
	return false;
}

static bool is_root(const char *v, size_t len)
{
	for (size_t i = 0; alias_roots[i]; i++) {
		size_t rl = strlen(alias_roots[i]);

		if (len >= rl && !memcmp(v, alias_roots[i], rl) &&
		    (len == rl || v[rl] == '.'))
			return true;
	}
	return false;
}

/* ---- pass 1: fold and decode ------------------------------------------ */

/* A call that decodes its literal argument: atob('...') and friends. */
static const struct decoder {
	const char *name;
	bool hex;
} decoders[] = {
	{ "atob", false },
	{ "base64.b64decode", false },
	{ "base64.standard_b64decode", false },
	{ "base64.urlsafe_b64decode", false },
	{ "base64.decodebytes", false },
	{ "b64decode", false },
	{ "Buffer.from", false },
	{ "bytes.fromhex", true },
	{ "bytearray.fromhex", true },
	{ "binascii.unhexlify", true },
	{ "unhexlify", true },
	{ "binascii.a2b_base64", false },
};

static size_t try_decoder(struct norm *n, size_t i, size_t *idlen)
{
	const char *s = n->in;
	size_t len = n->len, e, z;
	struct lit arg, out;
	bool hex;

	for (size_t k = 0; k < sizeof(decoders) / sizeof(*decoders); k++) {
		if (!word_at(s, i, len, decoders[k].name))
			continue;
		*idlen = strlen(decoders[k].name);
		e = skip_sp(s, i + *idlen, len, NULL);
		if (e >= len || s[e] != '(')
			return 0;
		e = skip_sp(s, e + 1, len, NULL);
		if (e >= len || !is_quote(s[e]))
			return 0;
		lit_init(&arg);
		e = read_lit(s, e, len, &arg);
		if (!e || arg.full)
			return 0;
		hex = decoders[k].hex;
		z = skip_sp(s, e, len, NULL);
		if (z < len && s[z] == ',') {
			/* Buffer.from(x, 'hex'|'base64'), codecs */
			struct lit enc;

			lit_init(&enc);
			z = skip_sp(s, z + 1, len, NULL);
			if (z >= len || !is_quote(s[z]))
				return 0;
			z = read_lit(s, z, len, &enc);
			if (!z)
				return 0;
			if (enc.len == 3 && !memcmp(enc.v, "hex", 3))
				hex = true;
			else if (enc.len != 6 || memcmp(enc.v, "base64", 6))
				return 0;
			z = skip_sp(s, z, len, NULL);
		} else if (!strcmp(decoders[k].name, "Buffer.from")) {
			return 0; /* a plain string: nothing decoded */
		}
		if (z >= len || s[z] != ')')
			return 0;
		lit_init(&out);
		out.decoded = true;
		if (!(hex ? hex_into(arg.v, arg.len, &out)
		          : b64_into(arg.v, arg.len, &out)) ||
		    out.full || !printable(out.v, out.len))
			return 0;
		z++;
		/* .toString(), .decode(), .decode('utf-8') */
		if (z + 11 <= len && !memcmp(s + z, ".toString()", 11))
			z += 11;
		else if (z + 9 <= len && !memcmp(s + z, ".decode()", 9))
			z += 9;
		else if (z + 8 <= len && !memcmp(s + z, ".decode(", 8)) {
			const char *c = find_on_line(s, z, len, ')', 24);

			if (c)
				z = (size_t)(c - s) + 1;
		}
		put_lit(n, &out, '\'', SKIT__SCAN_DECODED);
		return z;
	}
	return 0;
}

/* The shell's quotes inside a word: c'u'rl, "cu""rl". */
static size_t sh_word(struct norm *n, size_t i)
{
	const char *s = n->in;
	size_t len = n->len, k = i, pieces = 0;
	bool quoted = false;
	struct lit l;

	lit_init(&l);
	while (k < len && !l.full) {
		if (is_id(s[k]) || s[k] == '-' || s[k] == '.' || s[k] == '/') {
			lit_putc(&l, (unsigned char)s[k++]);
			continue;
		}
		if (s[k] == '\'' || s[k] == '"') {
			size_t e, b = l.len;

			e = read_lit(s, k, len, &l);
			if (!e)
				break;
			/* a quoted space ends the word: a plain string */
			if (memchr(l.v + b, ' ', l.len - b) ||
			    memchr(l.v + b, '$', l.len - b))
				return 0;
			quoted = true;
			pieces++;
			k = e;
			continue;
		}
		break;
	}
	/* one quoted word alone is a plain string */
	if (!quoted || l.full ||
	    (pieces < 2 && is_quote(s[i]) && k - i == l.len + 2))
		return 0;
	/* the word as one, its newlines escaped (the line count holds) */
	for (size_t c = 0; c < l.len; c++) {
		if (l.v[c] == '\n' || l.v[c] == '\r')
			put(&n->o, l.v[c] == '\n' ? "\\n" : "\\r", 2,
			    SKIT__SCAN_FOLDED);
		else
			put(&n->o, l.v + c, 1, SKIT__SCAN_FOLDED);
	}
	return k;
}

static void pass_fold(struct norm *n)
{
	const char *s = n->in;
	size_t len = n->len, i = 0;
	struct lit l;

	while (i < len && !n->o.full) {
		char c = s[i];
		size_t e, nl, pieces, idl;
		bool codes;

		if (n->lang == LANG_SH && (is_id(c) || is_quote(c)) &&
		    (i == 0 || !is_id(s[i - 1])) && c != '`' &&
		    (e = sh_word(n, i))) {
			i = e;
			continue;
		}
		if (n->lang == LANG_SH && c == '$' && i + 2 < len &&
		    s[i + 1] == '\'') {
			/* $'\x63\x75...': ANSI-C quoting */
			lit_init(&l);
			e = read_lit(s, i + 1, len, &l);
			if (e && l.decoded) {
				put_lit(n, &l, '\'', SKIT__SCAN_DECODED);
				i = e;
				continue;
			}
		}
		if (is_quote(c) || ((c == 'c' || c == 'u' || c == 'S') &&
		                    (i == 0 || !is_id(s[i - 1])))) {
			lit_init(&l);
			e = fold_string(n, i, &l, &nl, &pieces);
			if (e && !l.full && (pieces > 1 || l.decoded)) {
				put_lit(n, &l, is_quote(c) ? c : '\'',
				        l.decoded ? SKIT__SCAN_DECODED
				                  : SKIT__SCAN_FOLDED);
				put_nl(n, nl);
				i = e;
				continue;
			}
			if (e && is_quote(c)) {
				/* a plain literal: copied as written */
				put_in(n, i, e - i);
				i = e;
				continue;
			}
		}
		if (c == '[' || (c == '(' && i > 0 && !is_id(s[i - 1]))) {
			lit_init(&l);
			e = read_list(s, i, len, "", 0, &l, &codes);
			if (e && codes && !l.full && printable(l.v, l.len)) {
				l.decoded = true;
				put_lit(n, &l, '\'', SKIT__SCAN_DECODED);
				i = e;
				continue;
			}
			if (e && !codes && !l.full) {
				struct lit sep;
				size_t z;

				lit_init(&sep);
				z = read_join(s, e, len, &sep);
				if (z) {
					struct lit j;
					bool cd;

					lit_init(&j);
					read_list(s, i, len, sep.v, sep.len, &j,
					          &cd);
					put_lit(n, &j, '\'',
					        j.decoded ? SKIT__SCAN_DECODED
					                  : SKIT__SCAN_FOLDED);
					i = z;
					continue;
				}
			}
		}
		if (is_id0(c) &&
		    (i == 0 || (!is_id(s[i - 1]) && s[i - 1] != '.')) &&
		    (e = try_decoder(n, i, &idl))) {
			i = e;
			continue;
		}
		if (is_id0(c) && (i == 0 || !is_id(s[i - 1]))) {
			/* copy a whole name, so no piece of it starts a
			 * fold */
			e = i;
			while (e < len && (is_id(s[e]) || s[e] == '.'))
				e++;
			put_in(n, i, e - i);
			i = e;
			continue;
		}
		/* a run of bytes that start nothing is copied at once */
		e = i + 1;
		while (e < len && plain(s[e]) && !is_id(s[e - 1]))
			e++;
		put_in(n, i, e - i);
		i = e;
	}
}

/* ---- pass 2: names ---------------------------------------------------- */

/* Remember `NAME = 'value'` and `NAME = other.name` declarations. */
static void collect_names(struct norm *n)
{
	const char *s = n->in;
	size_t len = n->len;

	for (size_t i = 0; i < len; i++) {
		size_t b, e, v, ve;

		if (!is_id0(s[i]) ||
		    (i && (is_id(s[i - 1]) || s[i - 1] == '.')))
			continue;
		b = i;
		e = i;
		while (e < len && is_id(s[e]))
			e++;
		i = e - 1;
		/* Python: import x as y, from x import z as y */
		if (e - b == 6 && !memcmp(s + b, "import", 6)) {
			size_t m = skip_sp(s, e, len, NULL), me, a;

			me = m;
			while (me < len && (is_id(s[me]) || s[me] == '.'))
				me++;
			a = skip_sp(s, me, len, NULL);
			if (me > m && a + 3 < len && !memcmp(s + a, "as ", 3)) {
				size_t y = skip_sp(s, a + 3, len, NULL), ye = y;

				while (ye < len && is_id(s[ye]))
					ye++;
				/* "import subprocess as sp" is an idiom:
				 * resolved, but no sign of hiding */
				if (is_root(s + m, me - m))
					remember(n, s + y, ye - y, s + m,
					         me - m, true,
					         SKIT__SCAN_RESOLVED);
			}
			continue;
		}
		v = n->lang == LANG_SH ? e : skip_sp(s, e, len, NULL);
		if (v >= len || s[v] != '=' ||
		    (v + 1 < len && (s[v + 1] == '=' || s[v + 1] == '>')))
			continue;
		v = n->lang == LANG_SH ? v + 1 : skip_sp(s, v + 1, len, NULL);
		if (v < len && is_quote(s[v])) {
			struct lit l;

			lit_init(&l);
			ve = read_lit(s, v, len, &l);
			if (ve && !l.full) {
				uint8_t mk = 0;

				/* a constant that was itself built from
				 * pieces carries that on */
				for (size_t k = v; n->inm && k < ve; k++)
					mk |= n->inm[k];
				remember(n, s + b, e - b, l.v, l.len, false,
				         mk ? SKIT__SCAN_FOLDED
				            : SKIT__SCAN_RESOLVED);
			}
		} else if (n->lang == LANG_SH) {
			ve = v;
			while (ve < len && (is_id(s[ve]) || s[ve] == '-' ||
			                    s[ve] == '.' || s[ve] == '/'))
				ve++;
			if (ve > v && (ve == len || s[ve] == ';' ||
			               s[ve] == ' ' || s[ve] == '\n'))
				remember(n, s + b, e - b, s + v, ve - v, false,
				         SKIT__SCAN_RESOLVED);
		} else if (v < len && is_id0(s[v])) {
			const struct name *t;

			ve = v;
			while (ve < len && (is_id(s[ve]) || s[ve] == '.'))
				ve++;
			if (skip_sp(s, ve, len, NULL) < len &&
			    strchr(";\n,)", s[skip_sp(s, ve, len, NULL)]) ==
			            NULL)
				continue;
			t = lookup(n, s + v, ve - v);
			if (t && t->alias)
				remember(n, s + b, e - b, t->value,
				         strlen(t->value), true,
				         SKIT__SCAN_FOLDED);
			else if (is_root(s + v, ve - v))
				remember(n, s + b, e - b, s + v, ve - v, true,
				         hiding_alias(s + v, ve - v)
				                 ? SKIT__SCAN_FOLDED
				                 : SKIT__SCAN_RESOLVED);
		}
	}
}

static bool ident_lit(const char *v, size_t len)
{
	if (!len || !is_id0(v[0]))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!is_id(v[i]))
			return false;
	return true;
}

static void pass_names(struct norm *n)
{
	const char *s = n->in;
	size_t len = n->len, i = 0;

	while (i < len && !n->o.full) {
		char c = s[i];
		size_t e, p;
		const struct name *nm;

		/* $NAME and ${NAME} of a shell constant */
		if (n->lang == LANG_SH && c == '$' && i + 1 < len &&
		    (is_id0(s[i + 1]) || s[i + 1] == '{')) {
			size_t b = i + 1 + (s[i + 1] == '{');

			e = b;
			/* a shell name has no '$' in it */
			while (e < len && is_id(s[e]) && s[e] != '$')
				e++;
			nm = lookup(n, s + b, e - b);
			if (nm && !nm->alias &&
			    (s[i + 1] != '{' || (e < len && s[e] == '}'))) {
				size_t z = e + (s[i + 1] == '{');
				/* $a$b, ${a}rl: a word built from pieces */
				bool built = (i > 0 && (is_id(s[i - 1]) ||
				                        s[i - 1] == '}')) ||
				             (z < len &&
				              (is_id(s[z]) || s[z] == '$'));

				put_text(n, nm->value,
				         built ? SKIT__SCAN_FOLDED : nm->mark);
				i = z;
				continue;
			}
		}
		/* obj['name'] -> obj.name */
		if (c == '[' && i > 0 &&
		    (is_id(s[i - 1]) || s[i - 1] == ')' || s[i - 1] == ']')) {
			p = skip_sp(s, i + 1, len, NULL);
			if (p < len && is_quote(s[p])) {
				struct lit l;

				lit_init(&l);
				e = read_lit(s, p, len, &l);
				if (e)
					e = skip_sp(s, e, len, NULL);
				if (e && e < len && s[e] == ']' &&
				    ident_lit(l.v, l.len)) {
					put(&n->o, ".", 1, SKIT__SCAN_FOLDED);
					put(&n->o, l.v, l.len,
					    n->inm ? n->inm[p] |
					                     SKIT__SCAN_FOLDED
					           : SKIT__SCAN_FOLDED);
					i = e + 1;
					continue;
				}
			} else if (p < len && is_id0(s[p])) {
				/* obj[NAME] with NAME a constant */
				e = p;
				while (e < len && is_id(s[e]))
					e++;
				nm = lookup(n, s + p, e - p);
				if (nm && !nm->alias &&
				    ident_lit(nm->value, strlen(nm->value)) &&
				    skip_sp(s, e, len, NULL) < len &&
				    s[skip_sp(s, e, len, NULL)] == ']') {
					put(&n->o, ".", 1, SKIT__SCAN_FOLDED);
					put(&n->o, nm->value, strlen(nm->value),
					    nm->mark);
					i = skip_sp(s, e, len, NULL) + 1;
					continue;
				}
			}
		}
		/* getattr(x, 'name') -> x.name, x one simple name */
		if (c == 'g' && word_at(s, i, len, "getattr") &&
		    (i == 0 || !is_id(s[i - 1]))) {
			size_t a = skip_sp(s, i + 7, len, NULL), xb, xe, q;

			if (a < len && s[a] == '(') {
				xb = skip_sp(s, a + 1, len, NULL);
				xe = xb;
				while (xe < len &&
				       (is_id(s[xe]) || s[xe] == '.'))
					xe++;
				/* __import__('os') as the object */
				if (xe + 1 < len && s[xe] == '(') {
					const char *cl = find_on_line(
					        s, xe, len, ')', 64);

					xe = cl ? (size_t)(cl - s) + 1 : xb;
				}
				q = skip_sp(s, xe, len, NULL);
				if (xe > xb && q < len && s[q] == ',') {
					struct lit l;

					q = skip_sp(s, q + 1, len, NULL);
					lit_init(&l);
					e = q < len && is_quote(s[q])
					            ? read_lit(s, q, len, &l)
					            : 0;
					if (e)
						e = skip_sp(s, e, len, NULL);
					if (e && e < len && s[e] == ')' &&
					    ident_lit(l.v, l.len)) {
						put_in(n, xb, xe - xb);
						put(&n->o, ".", 1,
						    SKIT__SCAN_FOLDED);
						put(&n->o, l.v, l.len,
						    SKIT__SCAN_FOLDED);
						i = e + 1;
						continue;
					}
				}
			}
		}
		if (is_id0(c) &&
		    (i == 0 || (!is_id(s[i - 1]) && s[i - 1] != '.'))) {
			e = i;
			while (e < len && is_id(s[e]))
				e++;
			nm = lookup(n, s + i, e - i);
			p = skip_sp(s, e, len, NULL);
			/* not where the name is declared or assigned */
			if (nm && !(p < len && s[p] == '=')) {
				size_t b = i ? i - 1 : 0;

				while (b > 0 && (s[b] == ' ' || s[b] == '\t'))
					b--;
				if (nm->alias && p < len &&
				    (s[p] == '(' || s[p] == '.' ||
				     s[p] == '[')) {
					const struct name *t = nm;
					int depth = 0;

					while (t && t->alias &&
					       depth++ < ALIAS_DEPTH) {
						const struct name *u = lookup(
						        n, t->value,
						        strlen(t->value));

						if (!u || u == t || !u->alias)
							break;
						t = u;
					}
					put(&n->o, t->value, strlen(t->value),
					    nm->mark);
					i = e;
					continue;
				}
				if (!nm->alias && i > 0 &&
				    (s[b] == '(' || s[b] == '[' ||
				     s[b] == ',') &&
				    p < len &&
				    (s[p] == ')' || s[p] == ']' ||
				     s[p] == ',')) {
					struct lit l;

					l.len = strlen(nm->value);
					memcpy(l.v, nm->value, l.len);
					put_lit(n, &l, '\'', nm->mark);
					i = e;
					continue;
				}
			}
			put_in(n, i, e - i);
			i = e;
			continue;
		}
		/* a run of bytes that start nothing is copied at once */
		e = i + 1;
		while (e < len && plain(s[e]) && !is_id(s[e - 1]))
			e++;
		put_in(n, i, e - i);
		i = e;
	}
}

/* ---- Markdown --------------------------------------------------------- */

/* Letters of other scripts drawn like Latin ones. */
static const struct {
	int32_t cp;
	char ascii;
} homoglyphs[] = {
	{ 0x0430, 'a' }, { 0x0435, 'e' }, { 0x043E, 'o' }, { 0x0440, 'p' },
	{ 0x0441, 'c' }, { 0x0445, 'x' }, { 0x0443, 'y' }, { 0x0456, 'i' },
	{ 0x0455, 's' }, { 0x0458, 'j' }, { 0x0501, 'd' }, { 0x04BB, 'h' },
	{ 0x0410, 'A' }, { 0x0415, 'E' }, { 0x041E, 'O' }, { 0x0420, 'P' },
	{ 0x0421, 'C' }, { 0x0425, 'X' }, { 0x0406, 'I' }, { 0x03BF, 'o' },
	{ 0x03B1, 'a' }, { 0x03B5, 'e' }, { 0x03B9, 'i' }, { 0x03BD, 'v' },
	{ 0x0391, 'A' }, { 0x0395, 'E' }, { 0x039F, 'O' }, { 0x0399, 'I' },
};

static bool invisible(int32_t cp)
{
	return (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF || cp == 0x00AD ||
	       cp == 0x180E || (cp >= 0xE0000 && cp <= 0xE007F);
}

static void pass_markdown(struct norm *n)
{
	const char *s = n->in;
	size_t len = n->len, i = 0;
	bool mark_next = false;

	while (i < len && !n->o.full) {
		int32_t cp;
		size_t k;
		uint8_t mk = mark_next ? SKIT__SCAN_DECODED : 0;

		/* ASCII but '&' is copied as a run */
		if ((unsigned char)s[i] < 0x80 && s[i] != '&') {
			size_t e = i + 1;

			while (e < len && (unsigned char)s[e] < 0x80 &&
			       s[e] != '&')
				e++;
			put(&n->o, s + i, 1, mk);
			put(&n->o, s + i + 1, e - i - 1, 0);
			mark_next = false;
			i = e;
			continue;
		}
		k = skitx_utf8_decode(s + i, len - i, &cp);

		if (!k) {
			put(&n->o, s + i, 1, mk);
			i++;
			mark_next = false;
			continue;
		}
		if (invisible(cp)) {
			/* the bytes around a dropped character are marked,
			 * so a match across it counts */
			if (n->o.len)
				n->o.m[n->o.len - 1] |= SKIT__SCAN_DECODED;
			mark_next = true;
			i += k;
			continue;
		}
		if (cp == '&' && i + 3 < len && s[i + 1] == '#') {
			long v = 0;
			size_t e = i + 2;
			bool hx = s[e] == 'x' || s[e] == 'X';

			if (hx)
				e++;
			while (e < len && e < i + 10 &&
			       (hx ? skit__scan_hexval((unsigned char)s[e]) >= 0
			           : (s[e] >= '0' && s[e] <= '9')))
				v = v * (hx ? 16 : 10) +
				    (hx ? skit__scan_hexval((unsigned char)s[e])
				        : s[e] - '0'),
				e++;
			if (e < len && s[e] == ';' && v >= 0x20 && v < 0x7F) {
				char ch = (char)v;

				put(&n->o, &ch, 1, SKIT__SCAN_DECODED);
				i = e + 1;
				mark_next = false;
				continue;
			}
		}
		if (cp >= 0x370) {
			size_t h;

			for (h = 0;
			     h < sizeof(homoglyphs) / sizeof(*homoglyphs); h++)
				if (homoglyphs[h].cp == cp)
					break;
			if (h < sizeof(homoglyphs) / sizeof(*homoglyphs)) {
				put(&n->o, &homoglyphs[h].ascii, 1,
				    SKIT__SCAN_DECODED);
				i += k;
				mark_next = false;
				continue;
			}
		}
		put(&n->o, s + i, k, mk);
		i += k;
		mark_next = false;
	}
}

/* ---- the view --------------------------------------------------------- */

static enum lang lang_of(const char *file, const char *data, size_t len)
{
	const char *dot = strrchr(file, '.');

	if (len > 2 && data[0] == '#' && data[1] == '!') {
		const char *nl = memchr(data, '\n', len);
		size_t l = nl ? (size_t)(nl - data) : len;

		if (memmem(data, l, "python", 6))
			return LANG_PY;
		if (memmem(data, l, "node", 4) || memmem(data, l, "deno", 4) ||
		    memmem(data, l, "bun", 3))
			return LANG_JS;
		if (memmem(data, l, "sh", 2))
			return LANG_SH;
	}
	if (!dot || strchr(dot, '/'))
		return LANG_ANY;
	dot++;
	if (!strcmp(dot, "py"))
		return LANG_PY;
	if (!strcmp(dot, "js") || !strcmp(dot, "mjs") || !strcmp(dot, "cjs") ||
	    !strcmp(dot, "ts") || !strcmp(dot, "json"))
		return LANG_JS;
	if (!strcmp(dot, "sh") || !strcmp(dot, "bash") || !strcmp(dot, "zsh") ||
	    !strcmp(dot, "ksh"))
		return LANG_SH;
	return LANG_ANY;
}

static bool any_mark(const uint8_t *m, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (m[i])
			return true;
	return false;
}

/* Whether pass 2 has anything to resolve: a declaration, an import
 * alias, a computed member or getattr. */
static bool has_names(const char *s, size_t len)
{
	return memmem(s, len, "getattr", 7) || memmem(s, len, "['", 2) ||
	       memmem(s, len, "[\"", 2);
}

static int out_init(struct out *o, size_t len)
{
	o->cap = len + len / 4 + OUT_SLACK;
	o->len = 0;
	o->full = false;
	o->s = skitx_malloc(o->cap + 1);
	o->m = skitx_malloc(o->cap + 1);
	if (!o->s || !o->m) {
		skitx_free(o->s);
		skitx_free(o->m);
		o->s = NULL;
		o->m = NULL;
		return SKIT_ENOMEM;
	}
	return 0;
}

int skit__scan_normalise(const char *file, const char *data, size_t len,
                         bool markdown, char **out, uint8_t **marks,
                         size_t *out_len, size_t *work)
{
	struct norm *n = NULL;
	struct out first = { 0 };
	int rc = 0;

	*out = NULL;
	*marks = NULL;
	*out_len = 0;
	if (!len || len > NORM_MAX)
		return 0;
	n = skitx_calloc(1, sizeof(*n));
	if (!n)
		return SKIT_ENOMEM;
	n->in = data;
	n->len = len;
	n->work = work;
	if (work)
		*work += len;
	if (markdown) {
		bool any = false;

		/* plain ASCII without entities: nothing to normalise */
		for (size_t i = 0; i < len && !any; i++)
			any = (unsigned char)data[i] >= 0x80 ||
			      (data[i] == '&' && i + 1 < len &&
			       data[i + 1] == '#');
		if (!any)
			goto out;
		rc = out_init(&n->o, len);
		if (rc)
			goto out;
		pass_markdown(n);
		first = n->o;
		n->o.s = NULL;
		n->o.m = NULL;
		goto done;
	}
	n->lang = lang_of(file, data, len);
	rc = out_init(&n->o, len);
	if (rc)
		goto out;
	pass_fold(n);
	if (n->o.full)
		goto out;
	first = n->o;
	n->o.s = NULL;
	n->o.m = NULL;
	n->in = first.s;
	n->inm = first.m;
	n->len = first.len;
	collect_names(n);
	/* no names, nothing folded, no obj['x'] or getattr: pass 2 would
	 * change nothing */
	if (!n->nnames && !any_mark(first.m, first.len) &&
	    !has_names(first.s, first.len))
		goto done;
	rc = out_init(&n->o, first.len);
	if (rc)
		goto out;
	n->in = first.s;
	n->inm = first.m;
	n->len = first.len;
	if (work)
		*work += first.len;
	pass_names(n);
	skitx_free(first.s);
	skitx_free(first.m);
	first = n->o;
	n->o.s = NULL;
	n->o.m = NULL;
done:
	if (first.full || !any_mark(first.m, first.len))
		goto out;
	first.s[first.len] = '\0';
	*out = first.s;
	*marks = first.m;
	*out_len = first.len;
	first.s = NULL;
	first.m = NULL;
out:
	skitx_free(first.s);
	skitx_free(first.m);
	if (n) {
		skitx_free(n->o.s);
		skitx_free(n->o.m);
	}
	skitx_free(n);
	return rc;
}
