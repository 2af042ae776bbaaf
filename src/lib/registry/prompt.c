/* SPDX-License-Identifier: MIT */
/*
 * prompt.c - render the skills index (level 1) as system-prompt text.
 *
 * Three formats: the reference's <available_skills> XML (byte-identical to
 * skills-ref's to_prompt() when no budget applies), Markdown bullets and
 * compact JSON. Names and descriptions are untrusted (HOSTILE C15): they are
 * escaped for the format, and hidden characters (C0/C1 controls, bidi,
 * zero-width, TAG characters) are stripped from them first. The location is
 * a path the model must open, so it is kept as given. Invalid UTF-8 reads
 * as U+FFFD everywhere, so the output is always valid UTF-8.
 *
 * Under a budget (in code points) the renderer never builds a candidate
 * text to measure it: it predicts the exact size of each candidate from
 * per-skill counts, picks the best candidate, and renders once. The
 * prediction must match the writers below character for character; the
 * unit tests compare it with the real output for every format.
 *
 * This module does not read skills, rank them or decide what the model
 * sees beyond the index text: the registry gives the items in precedence
 * order and the agent labels the text as untrusted.
 */
#include "common.h"

#include <pthread.h>

#include <jansson.h>

#include "skit/prompt.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/utf8.h"

/*
 * Descriptions are never shortened below this many code points; below it a
 * description stops saying when to use the skill, so leaving skills out
 * (search_skills finds them) serves the model better.
 */
#define MIN_DESC_CHARS 60

#define ELLIPSIS    "\xE2\x80\xA6" /* U+2026, one character */
#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD, for invalid UTF-8 */

/* The fixed text of each format (ASCII: bytes are characters). */
#define NOTE_FMT       "%zu more skills not listed; call search_skills to find them"
#define XML_NOTICE_FMT "\n<!-- " NOTE_FMT " -->"
#define MD_NOTICE_FMT  "(" NOTE_FMT ")"
#define XML_OPEN       "<available_skills>"
#define XML_CLOSE      "\n</available_skills>"
#define XML_SKILL      "\n<skill>\n<name>\n"
#define XML_NAME_END   "\n</name>\n<description>\n"
#define XML_DESC_END   "\n</description>\n<location>\n"
#define XML_SKILL_END  "\n</location>\n</skill>"
#define JSON_OPEN      "{\"skills\":["
#define JSON_NAME      "{\"name\":"
#define JSON_DESC      ",\"description\":"
#define JSON_LOC       ",\"location\":"
#define JSON_SHOWN     "],\"shown\":"
#define JSON_SHORTENED ",\"shortened\":"
#define JSON_OMITTED   ",\"omitted\":"
#define JSON_NOTE      ",\"note\":"
#define LIT(s)         (sizeof(s) - 1)

/* sanitize() flags: the shared sanitiser's */
#define KEEP_LINES SKITX_SANITIZE_KEEP_LINES
#define COLLAPSE   SKITX_SANITIZE_COLLAPSE
#define KEEP_ALL   SKITX_SANITIZE_KEEP_ALL

/*
 * One skill, sanitised for the chosen format. Each string is the item's
 * own when sanitising leaves it as it is (nearly always), else a copy in
 * `struct ctx.text`. Sizes are in rendered characters: after escaping,
 * in code points.
 */
struct entry {
	const char *name, *desc, *loc;
	size_t name_len, desc_len, loc_len;
	size_t desc_cps; /* code points of the sanitised description */
	size_t fixed;    /* rendered size of the item without the description */
	size_t desc_full; /* rendered size of the whole description part */
	bool name_esc, desc_esc; /* escaping changes them (XML) */
};

struct ctx {
	skit_prompt_format format;
	struct skitx_buf text; /* the sanitised copies, back to back */
	struct entry *e;
	size_t n;
	size_t max_cps; /* longest description, in code points */
	bool verbatim;  /* SKIT_PROMPT_VERBATIM */
};

static size_t sat_add(size_t a, size_t b)
{
	return b > SIZE_MAX - a ? SIZE_MAX : a + b;
}

static size_t digits(size_t v)
{
	size_t d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Decode sanitised (valid) UTF-8, skipping utf8proc for ASCII. */
static size_t decode(const char *s, size_t len, int32_t *cp)
{
	if ((unsigned char)s[0] < 0x80) {
		*cp = (unsigned char)s[0];
		return 1;
	}
	return skitx_utf8_decode(s, len, cp);
}

/* Rendered size of one code point: what escaping makes of it. */
static size_t cp_chars(skit_prompt_format format, int32_t cp)
{
	if (format == SKIT_PROMPT_XML) {
		/* html.escape(quote=True) */
		switch (cp) {
		case '&':
			return 5; /* &amp; */
		case '<':
		case '>':
			return 4; /* &lt; &gt; */
		case '"':
		case '\'':
			return 6; /* &quot; &#x27; */
		default:
			return 1;
		}
	}
	if (format == SKIT_PROMPT_JSON) {
		/* jansson's escapes without JSON_ENSURE_ASCII/ESCAPE_SLASH */
		switch (cp) {
		case '"':
		case '\\':
		case '\b':
		case '\f':
		case '\n':
		case '\r':
		case '\t':
			return 2;
		default:
			return cp < 0x20 ? 6 : 1;
		}
	}
	return 1;
}

/*
 * Rendered size of `len` bytes of (sanitised, valid) UTF-8. Every
 * character escaping changes is ASCII, and in valid UTF-8 each code point
 * starts with one byte that is not a continuation byte (10xxxxxx): no
 * need to decode.
 */
static size_t str_chars(skit_prompt_format format, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;

	for (size_t i = 0; i < len; i++)
		chars += p[i] < 0x80 ? cp_chars(format, p[i])
		                     : (p[i] & 0xC0) != 0x80;
	return chars;
}

/*
 * Rendered width of each printable ASCII character, by how it is
 * escaped: none (a location in XML, Markdown), XML's html.escape(), JSON's
 * jansson escapes; 0 for every other byte (a control, DEL, non-ASCII).
 */
enum { W_PLAIN, W_XML, W_JSON };
static uint8_t widths[3][256]; /* filled once: widths_fill() */
static pthread_once_t widths_once = PTHREAD_ONCE_INIT;

static void widths_fill(void)
{
	for (int c = 0x20; c < 0x7F; c++) {
		widths[W_PLAIN][c] = 1;
		widths[W_XML][c] = (uint8_t)cp_chars(SKIT_PROMPT_XML, c);
		widths[W_JSON][c] = (uint8_t)cp_chars(SKIT_PROMPT_JSON, c);
	}
}

/* One string of an item, sanitised (prepare()). */
struct span {
	const char *p; /* the item's own string; NULL: a copy at `off` */
	size_t off, len;
	size_t cps;   /* code points */
	size_t chars; /* rendered width; SIZE_MAX: not yet measured */
};

/*
 * The shared sanitiser (util/utf8.h) over a NUL-terminated string. Text
 * of printable ASCII and spaces alone (nearly every name, description and
 * path) is what the sanitiser would give back unchanged unless it
 * collapses whitespace: it is kept as it is, without a copy, and its
 * width under escaping table `w` is measured on the way. Anything else
 * is sanitised into `b`, to be measured once `b` stops moving.
 */
static int sanitize(struct skitx_buf *b, const char *s, unsigned int flags,
                    const uint8_t *w, struct span *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = 0, chars = 0;
	uint8_t x;
	int error;

	out->p = NULL;
	out->chars = SIZE_MAX;
	if (s) {
		while ((x = w[u[len]]) != 0) {
			chars += x;
			len++;
		}
		if (!s[len] && !(flags & COLLAPSE)) {
			out->p = s;
			out->len = out->cps = len;
			out->chars = chars;
			return 0;
		}
		len += strlen(s + len);
	}
	out->off = skitx_buf_len(b);
	error = skitx_utf8_sanitize(b, s, len, flags, &out->cps);
	out->len = skitx_buf_len(b) - out->off;
	return error;
}

/* The text of `sp`, once ctx.text has stopped moving (at `t`). */
static const char *span_text(const struct span *sp, const char *t)
{
	return sp->p ? sp->p : t + sp->off;
}

/*
 * Rendered size of a description part that holds `chars` characters of
 * text: Markdown adds ": " (and drops it for an empty description), JSON
 * adds the quotes.
 */
static size_t desc_part(skit_prompt_format format, size_t chars, bool empty)
{
	switch (format) {
	case SKIT_PROMPT_MARKDOWN:
		return empty ? 0 : sat_add(chars, 2);
	case SKIT_PROMPT_JSON:
		return sat_add(chars, 2);
	default:
		return chars;
	}
}

static int prepare(struct ctx *c, const skit_prompt_item *items)
{
	unsigned int name_flags, desc_flags;
	struct span *sp = NULL;
	size_t size, name_chars, loc_chars, desc_chars;
	const uint8_t *w, *wloc;
	const char *t;
	int error = SKIT_ENOMEM;

	if (!c->n)
		return 0;
	if (skitx_mul_overflow(c->n, sizeof(*c->e), &size))
		return SKIT_ENOMEM;
	c->e = skitx_malloc(size);
	/* three spans an item: name, description, location */
	if (!c->e || skitx_mul_overflow(c->n, 3 * sizeof(*sp), &size) ||
	    !(sp = skitx_malloc(size)))
		goto out;

	if (pthread_once(&widths_once, widths_fill)) {
		error = SKIT_ERROR;
		goto out;
	}
	/* how each format escapes names and descriptions, and locations */
	w = widths[c->format == SKIT_PROMPT_XML    ? W_XML
	           : c->format == SKIT_PROMPT_JSON ? W_JSON
	                                           : W_PLAIN];
	wloc = c->format == SKIT_PROMPT_JSON ? w : widths[W_PLAIN];
	name_flags = c->format == SKIT_PROMPT_MARKDOWN ? COLLAPSE : 0;
	desc_flags = c->format == SKIT_PROMPT_MARKDOWN ? COLLAPSE : KEEP_LINES;
	if (c->verbatim) {
		name_flags |= KEEP_ALL;
		desc_flags |= KEEP_ALL;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct span *s3 = &sp[3 * i];

		error = sanitize(&c->text, items[i].name, name_flags, w,
		                 &s3[0]);
		if (error < 0)
			goto out;
		error = sanitize(&c->text, items[i].description, desc_flags, w,
		                 &s3[1]);
		if (error < 0)
			goto out;
		/*
		 * The location is a path the model must be able to open, so
		 * it stays as it is (the reference leaves it alone too); only
		 * invalid UTF-8 is repaired, which JSON requires.
		 */
		if (c->format != SKIT_PROMPT_MARKDOWN) {
			error = sanitize(&c->text, items[i].location, KEEP_ALL,
			                 wloc, &s3[2]);
			if (error < 0)
				goto out;
		} else {
			s3[2] = (struct span){ "", 0, 0, 0, 0 };
		}
	}

	/* The copies have stopped moving: point at them, and measure. */
	t = skitx_buf_cstr(&c->text);
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->e[i];
		struct span *s3 = &sp[3 * i];

		e->name = span_text(&s3[0], t);
		e->name_len = s3[0].len;
		e->desc = span_text(&s3[1], t);
		e->desc_len = s3[1].len;
		e->desc_cps = s3[1].cps;
		e->loc = span_text(&s3[2], t);
		e->loc_len = s3[2].len;
		if (e->desc_cps > c->max_cps)
			c->max_cps = e->desc_cps;

		name_chars =
		        s3[0].chars != SIZE_MAX
		                ? s3[0].chars
		                : str_chars(c->format, e->name, e->name_len);
		desc_chars =
		        s3[1].chars != SIZE_MAX
		                ? s3[1].chars
		                : str_chars(c->format, e->desc, e->desc_len);
		e->name_esc = name_chars != s3[0].cps;
		e->desc_esc = desc_chars != e->desc_cps;
		e->desc_full = desc_part(c->format, desc_chars, !e->desc_len);
		switch (c->format) {
		case SKIT_PROMPT_XML:
			/* The location is not escaped, as in the reference. */
			loc_chars = s3[2].cps;
			e->fixed = LIT(XML_SKILL) + LIT(XML_NAME_END) +
			           LIT(XML_DESC_END) + LIT(XML_SKILL_END);
			break;
		case SKIT_PROMPT_MARKDOWN:
			loc_chars = 0;
			e->fixed = LIT("- ") + 1; /* 1: the line break */
			break;
		default:
			loc_chars = (s3[2].chars != SIZE_MAX
			                     ? s3[2].chars
			                     : str_chars(c->format, e->loc,
			                                 e->loc_len)) +
			            2;
			name_chars += 2; /* the quotes */
			e->fixed = LIT(JSON_NAME) + LIT(JSON_DESC) +
			           LIT(JSON_LOC) + LIT("}") + 1; /* 1: "," */
			break;
		}
		e->fixed = sat_add(e->fixed, sat_add(name_chars, loc_chars));
	}
	error = 0;
out:
	skitx_free(sp);
	return error;
}

/*
 * Where to cut a description that is longer than `limit` code points:
 * at the last whitespace inside the final fifth of the first `limit`
 * characters, else hard at `limit`; trailing whitespace is dropped either
 * way. Returns the bytes kept; `*chars` gets their rendered size (the
 * ellipsis not included).
 *
 * The kept length never shrinks as `limit` grows, which the binary search
 * in skit_prompt_render() relies on.
 */
static size_t cut(const struct ctx *c, const struct entry *e, size_t limit,
                  size_t *chars)
{
	const char *d = e->desc;
	size_t from = limit - limit / 5, i = 0, k = 0, sum = 0;
	size_t keep = 0, keep_chars = 0, best = SIZE_MAX, best_chars = 0, n;
	int32_t cp;

	while (i < e->desc_len) {
		n = decode(d + i, e->desc_len - i, &cp);
		if (k >= from && skitx_utf8_isspace(cp)) {
			best = keep;
			best_chars = keep_chars;
		}
		if (k == limit)
			break;
		sum += cp_chars(c->format, cp);
		i += n;
		k++;
		if (!skitx_utf8_isspace(cp)) {
			keep = i;
			keep_chars = sum;
		}
	}
	if (best == SIZE_MAX) {
		best = keep;
		best_chars = keep_chars;
	}
	*chars = best_chars;
	return best;
}

/* Rendered size of entry `e` with its description cut to `limit`. */
static size_t item_chars(const struct ctx *c, const struct entry *e,
                         size_t limit)
{
	size_t chars;

	if (e->desc_cps <= limit)
		return sat_add(e->fixed, e->desc_full);
	cut(c, e, limit, &chars);
	return sat_add(e->fixed,
	               desc_part(c->format, sat_add(chars, 1), false));
}

/* The cut-notice for `omitted` skills, as the format writes it. */
static size_t notice(char *buf, size_t size, skit_prompt_format format,
                     size_t omitted)
{
	int len;

	if (format == SKIT_PROMPT_XML)
		len = snprintf(buf, size, XML_NOTICE_FMT, omitted);
	else if (format == SKIT_PROMPT_MARKDOWN)
		len = snprintf(buf, size, MD_NOTICE_FMT, omitted);
	else
		len = snprintf(buf, size, NOTE_FMT, omitted);
	return len < 0 ? 0 : (size_t)len;
}

/*
 * Size of the whole text given `k` shown items whose rendered sizes add up
 * to `sum` (each counted with its separator), `shortened` of them cut.
 */
static size_t total_chars(const struct ctx *c, size_t k, size_t sum,
                          size_t shortened)
{
	size_t omitted = c->n - k, lines, len = 0;
	char buf[128];

	if (omitted)
		len = notice(buf, sizeof(buf), c->format, omitted);
	switch (c->format) {
	case SKIT_PROMPT_XML:
		return sat_add(sum, LIT(XML_OPEN) + LIT(XML_CLOSE) + len);
	case SKIT_PROMPT_MARKDOWN:
		/* One line per item and the notice, joined by "\n". */
		lines = k + (omitted ? 1 : 0);
		sum = sat_add(sum, omitted ? len + 1 : 0);
		return lines ? sum - 1 : 0;
	default:
		len = omitted ? LIT(JSON_NOTE) + 2 + len : 0;
		len += LIT(JSON_OPEN) + LIT(JSON_SHOWN) + digits(k) +
		       LIT(JSON_SHORTENED) + digits(shortened) +
		       LIT(JSON_OMITTED) + digits(omitted) + LIT("}");
		/* Items carry a "," each; the last one does not. */
		return sat_add(k ? sum - 1 : sum, len);
	}
}

/* Does the text with the first `k` items, cut to `limit`, fit `budget`? */
static bool fits(const struct ctx *c, size_t k, size_t limit, size_t budget)
{
	size_t sum = 0, shortened = 0;

	for (size_t i = 0; i < k; i++) {
		sum = sat_add(sum, item_chars(c, &c->e[i], limit));
		shortened += c->e[i].desc_cps > limit;
		/*
		 * Every later part only adds, and the total is at least
		 * sum - 1 (Markdown's last line has no line break): stop early.
		 */
		if (sum > sat_add(budget, 1))
			return false;
	}
	return total_chars(c, k, sum, shortened) <= budget;
}

/*
 * Drop phase: descriptions at the floor, and as many items as fit. Returns
 * the number shown, or SIZE_MAX when not even the notice fits.
 */
static size_t fit_count(const struct ctx *c, size_t limit, size_t budget)
{
	size_t sum = 0, shortened = 0, best = SIZE_MAX;

	/* k == n is known not to fit; try every smaller count, in order. */
	for (size_t k = 0; k < c->n; k++) {
		if (total_chars(c, k, sum, shortened) <= budget)
			best = k;
		if (sum > sat_add(budget, 1))
			break;
		sum = sat_add(sum, item_chars(c, &c->e[k], limit));
		shortened += c->e[k].desc_cps > limit;
	}
	return best;
}

/*
 * The largest common description length at which the first `k` items fit,
 * SIZE_MAX when they fit whole. The caller knows they fit at the floor.
 */
static size_t best_limit(const struct ctx *c, size_t k, size_t budget)
{
	size_t lo = MIN_DESC_CHARS, hi = 0, mid;

	if (fits(c, k, SIZE_MAX, budget))
		return SIZE_MAX;
	/* Above the longest description nothing changes: it did not fit. */
	for (size_t i = 0; i < k; i++)
		if (c->e[i].desc_cps > hi)
			hi = c->e[i].desc_cps;
	if (hi <= lo)
		return lo;
	hi--;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (fits(c, k, mid, budget))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The description of `e` as shown: whole, or cut plus an ellipsis. */
static int desc_text(struct skitx_buf *tmp, const struct ctx *c,
                     const struct entry *e, size_t limit, const char **s,
                     size_t *len)
{
	size_t chars, keep;
	int error;

	*s = e->desc;
	*len = e->desc_len;
	if (e->desc_cps <= limit)
		return 0;
	keep = cut(c, e, limit, &chars);
	skitx_buf_clear(tmp);
	error = skitx_buf_add(tmp, *s, keep);
	if (error < 0)
		return error;
	error = skitx_buf_add(tmp, ELLIPSIS, LIT(ELLIPSIS));
	if (error < 0)
		return error;
	*s = skitx_buf_cstr(tmp);
	*len = skitx_buf_len(tmp);
	return 0;
}

/* html.escape(s, quote=True); the specials are ASCII, so go bytewise. */
static int put_xml_escaped(struct skitx_buf *b, const char *s, size_t len)
{
	size_t start = 0;
	const char *rep;
	int error;

	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&#x27;";
			break;
		default:
			continue;
		}
		error = skitx_buf_add(b, s + start, i - start);
		if (error < 0)
			return error;
		error = skitx_buf_puts(b, rep);
		if (error < 0)
			return error;
		start = i + 1;
	}
	return skitx_buf_add(b, s + start, len - start);
}

static int render_xml(struct skitx_buf *out, const struct ctx *c, size_t k,
                      size_t limit)
{
	struct skitx_buf tmp = SKITX_BUF_INIT;
	const char *d;
	char buf[128];
	size_t dlen;
	int error;

	error = skitx_buf_puts(out, XML_OPEN);
	for (size_t i = 0; i < k && error >= 0; i++) {
		const struct entry *e = &c->e[i];

		error = desc_text(&tmp, c, e, limit, &d, &dlen);
		if (error >= 0)
			error = skitx_buf_puts(out, XML_SKILL);
		if (error >= 0)
			error = e->name_esc ? put_xml_escaped(out, e->name,
			                                      e->name_len)
			                    : skitx_buf_add(out, e->name,
			                                    e->name_len);
		if (error >= 0)
			error = skitx_buf_puts(out, XML_NAME_END);
		/* escaped only if it has a special character (so has a
		 * shortened one: a prefix and an ellipsis) */
		if (error >= 0)
			error = e->desc_esc ? put_xml_escaped(out, d, dlen)
			                    : skitx_buf_add(out, d, dlen);
		if (error >= 0)
			error = skitx_buf_puts(out, XML_DESC_END);
		if (error >= 0)
			error = skitx_buf_add(out, e->loc, e->loc_len);
		if (error >= 0)
			error = skitx_buf_puts(out, XML_SKILL_END);
	}
	if (error >= 0 && k < c->n) {
		notice(buf, sizeof(buf), c->format, c->n - k);
		error = skitx_buf_puts(out, buf);
	}
	if (error >= 0)
		error = skitx_buf_puts(out, XML_CLOSE);
	skitx_buf_release(&tmp);
	return error;
}

static int render_markdown(struct skitx_buf *out, const struct ctx *c, size_t k,
                           size_t limit)
{
	struct skitx_buf tmp = SKITX_BUF_INIT;
	const char *d;
	char buf[128];
	size_t dlen;
	int error = 0;

	for (size_t i = 0; i < k && error >= 0; i++) {
		const struct entry *e = &c->e[i];

		error = desc_text(&tmp, c, e, limit, &d, &dlen);
		if (error >= 0 && i)
			error = skitx_buf_putc(out, '\n');
		if (error >= 0)
			error = skitx_buf_puts(out, "- ");
		if (error >= 0)
			error = skitx_buf_add(out, e->name, e->name_len);
		if (error >= 0 && dlen)
			error = skitx_buf_puts(out, ": ");
		if (error >= 0)
			error = skitx_buf_add(out, d, dlen);
	}
	if (error >= 0 && k < c->n) {
		notice(buf, sizeof(buf), c->format, c->n - k);
		if (k)
			error = skitx_buf_putc(out, '\n');
		if (error >= 0)
			error = skitx_buf_puts(out, buf);
	}
	skitx_buf_release(&tmp);
	return error;
}

static int json_sink(const char *buffer, size_t size, void *data)
{
	return skitx_buf_add(data, buffer, size) < 0 ? -1 : 0;
}

/* Set `key` of `obj` to a new value; false when jansson ran out of memory. */
static bool set_new(json_t *obj, const char *key, json_t *value)
{
	return value && !json_object_set_new(obj, key, value);
}

static int render_json(struct skitx_buf *out, const struct ctx *c, size_t k,
                       size_t limit, size_t shortened)
{
	struct skitx_buf tmp = SKITX_BUF_INIT;
	const char *d;
	json_t *root = json_object(), *list = json_array(), *obj;
	char buf[128];
	size_t dlen, len;
	int error = SKIT_ENOMEM;

	if (!root || !list)
		goto out;
	for (size_t i = 0; i < k; i++) {
		const struct entry *e = &c->e[i];

		error = desc_text(&tmp, c, e, limit, &d, &dlen);
		if (error < 0)
			goto out;
		error = SKIT_ENOMEM;
		obj = json_object();
		if (!obj || json_array_append_new(list, obj))
			goto out;
		if (!set_new(obj, "name", json_stringn(e->name, e->name_len)) ||
		    !set_new(obj, "description", json_stringn(d, dlen)) ||
		    !set_new(obj, "location", json_stringn(e->loc, e->loc_len)))
			goto out;
	}
	/* From here on `root` owns `list`. */
	error = json_object_set_new(root, "skills", list);
	list = NULL;
	if (error)
		goto oom;
	if (!set_new(root, "shown", json_integer((json_int_t)k)) ||
	    !set_new(root, "shortened", json_integer((json_int_t)shortened)) ||
	    !set_new(root, "omitted", json_integer((json_int_t)(c->n - k))))
		goto oom;
	if (k < c->n) {
		len = notice(buf, sizeof(buf), c->format, c->n - k);
		if (!set_new(root, "note", json_stringn(buf, len)))
			goto oom;
	}
	error = json_dump_callback(root, json_sink, out, JSON_COMPACT)
	                ? SKIT_ENOMEM
	                : 0;
	goto out;
oom:
	error = SKIT_ENOMEM;
out:
	json_decref(list);
	json_decref(root);
	skitx_buf_release(&tmp);
	return error;
}

static int too_small(skit_error *err, size_t budget, size_t n)
{
	if (!n)
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "budget of %zu characters cannot hold "
		                       "even an empty index",
		                       budget);
	return skit__error_set(err, SKIT_ETOOBIG, 0,
	                       "budget of %zu characters cannot hold even "
	                       "the notice for %zu skills",
	                       budget, n);
}

int skit_prompt_render(char **out, const skit_prompt_item *items, size_t n,
                       const skit_prompt_options *opts,
                       skit_prompt_stats *stats, skit_error *err)
{
	static const skit_prompt_options defaults = SKIT_PROMPT_OPTIONS_INIT;
	struct skitx_buf text = SKITX_BUF_INIT;
	struct ctx c = { SKIT_PROMPT_XML, SKITX_BUF_INIT, NULL, 0, 0, false };
	size_t k, limit = SIZE_MAX, shortened = 0, chars;
	bool reported = false;
	char *result;
	int error;

	assert(out && (items || !n));
	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (opts->version != SKIT_PROMPT_OPTIONS_VERSION)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "unknown options version %u",
		                       opts->version);
	if (opts->format != SKIT_PROMPT_XML &&
	    opts->format != SKIT_PROMPT_MARKDOWN &&
	    opts->format != SKIT_PROMPT_JSON)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "unknown prompt format %d",
		                       (int)opts->format);
	c.format = opts->format;
	c.verbatim = opts->flags & SKIT_PROMPT_VERBATIM;
	c.n = n;
	k = n;

	error = prepare(&c, items);
	if (error < 0)
		goto out;

	if (opts->budget && !fits(&c, n, SIZE_MAX, opts->budget)) {
		/*
		 * When not even the shortest descriptions let every skill
		 * fit, the last skills go; the ones left then share what
		 * the budget still has, at the longest common length.
		 */
		if (!fits(&c, n, MIN_DESC_CHARS, opts->budget)) {
			k = fit_count(&c, MIN_DESC_CHARS, opts->budget);
			if (k == SIZE_MAX) {
				error = too_small(err, opts->budget, n);
				reported = true;
				goto out;
			}
		}
		limit = best_limit(&c, k, opts->budget);
	}
	for (size_t i = 0; i < k; i++)
		shortened += c.e[i].desc_cps > limit;

	/*
	 * The output's size is known to within its non-ASCII bytes: one
	 * allocation instead of a doubling buffer copied a dozen times.
	 */
	{
		size_t hint = 64;

		for (size_t i = 0; i < k; i++)
			hint = sat_add(hint,
			               sat_add(c.e[i].fixed, c.e[i].desc_full));
		if (hint < SIZE_MAX / 2 && skitx_buf_grow(&text, hint) < 0) {
			error = SKIT_ENOMEM;
			goto out;
		}
	}
	switch (c.format) {
	case SKIT_PROMPT_XML:
		error = render_xml(&text, &c, k, limit);
		break;
	case SKIT_PROMPT_MARKDOWN:
		error = render_markdown(&text, &c, k, limit);
		break;
	default:
		error = render_json(&text, &c, k, limit, shortened);
		break;
	}
	if (error < 0)
		goto out;

	/* counted only for whom it is for: a budget, or the caller's stats */
	chars = opts->budget || stats ? skitx_utf8_count(skitx_buf_cstr(&text),
	                                                 skitx_buf_len(&text))
	                              : 0;
	if (opts->budget && chars > opts->budget) {
		/* The size prediction disagrees with a writer: a bug. */
		error = skit__error_set(
		        err, SKIT_ERROR, 0,
		        "index is %zu characters, over the budget of %zu",
		        chars, opts->budget);
		reported = true;
		goto out;
	}
	result = skitx_buf_detach(&text, NULL);
	if (!result) {
		error = SKIT_ENOMEM;
		goto out;
	}
	*out = result;
	if (stats) {
		stats->shown = k;
		stats->shortened = shortened;
		stats->omitted = n - k;
		stats->chars = chars;
	}
out:
	if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	else if (error < 0 && !reported)
		skit__error_code(err, error);
	skitx_buf_release(&text);
	skitx_buf_release(&c.text);
	skitx_free(c.e);
	return error;
}

int skit_prompt_parse_budget(size_t *out_chars, const char *text,
                             skit_error *err)
{
	const char *p = text;
	size_t value = 0, unit = 1;

	assert(out_chars && text);
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (skitx_mul_overflow(value, 10, &value) ||
		    skitx_add_overflow(value, (size_t)(*p - '0'), &value))
			goto bad;
	}
	if (!strcmp(p, "tok") || !strcmp(p, "t"))
		unit = 4;
	else if (*p)
		goto bad;
	if (skitx_mul_overflow(value, unit, &value))
		goto bad;
	*out_chars = value;
	return 0;
bad:
	return skit__error_set(
	        err, SKIT_EUSAGE, 0,
	        "invalid budget \"%.32s\": give characters (8000) or tokens (2000tok)",
	        text);
}

size_t skit_prompt_estimate_tokens(size_t chars)
{
	return chars / 4 + (chars % 4 != 0);
}
