/* SPDX-License-Identifier: MIT */
/*
 * scan_text.c - scan one text: give each line its context, run the
 * keyword automaton, try each rule whose keyword occurs on a line, and
 * decode long base64 and hex blobs to scan them again.
 *
 * Weight: each line of a file gets a context (frontmatter, instruction,
 * hidden comment, script, decoded blob, example code block, documentation,
 * data); a rule's severity holds in the first five and drops one level in
 * the last three, unless the rule says it must not (docs/scan.md).
 */
#define _GNU_SOURCE /* memmem: before any header */
#include "common.h"

#include <openssl/evp.h>

#include "lib/scan/scan_int.h"
#include "util/buf.h"
#include "util/utf8.h"

#define BLOB_MIN_B64     40u         /* base64 run worth decoding */
#define BLOB_MIN_HEX     40u         /* hex run worth decoding */
#define BLOB_DECODE_MAX  (64u << 10) /* bytes of one blob decoded */
#define BLOBS_PER_FILE   64u         /* blobs decoded in one file */
#define DECODE_DEPTH_MAX 2           /* blobs inside decoded blobs */
#define TEXT_SHOWN       120u        /* bytes of matched text shown */
#define SUBJECT_MAX      4096u       /* bytes of a long line one regex reads */

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
char *skit__scan_sanitise(struct skitx_pool *pool, const char *s, size_t len)
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

int skit__scan_add_finding(struct text *t, const struct rule *r, enum ctx where,
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
	f->pub.where = skit__scan_ctx_names[where];
	f->pub.line = t->line_base ? t->line_base : line;
	f->pub.file = skitx_pool_strdup(&rep->pool, t->file);
	f->pub.skill = skitx_pool_strdup(&rep->pool, t->skill ? t->skill : "");
	f->pub.text = skit__scan_sanitise(&rep->pool, match, mlen);
	if (!f->pub.file || !f->pub.skill || !f->pub.text)
		return SKIT_ENOMEM;
	rep->n++;
	rep->sorted = false;
	return 0;
}

/* ---- text files ------------------------------------------------------- */

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
	return skit__scan_add_finding(t, r, c, (unsigned int)ln + 1, p + s,
	                              e - s);
}

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
			buf[i / 2] = (uint8_t)(skit__scan_hexval(t->data[b + i])
			                               << 4 |
			                       skit__scan_hexval(
			                               t->data[b + i + 1]));
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
		rc = skit__scan_add_finding(t, &t->sc->rules[ri],
		                            (enum ctx)t->ctx[line_of(t, b)],
		                            (unsigned int)line_of(t, b) + 1,
		                            (const char *)buf, outlen);
	}
	/* Blobs are decoded after the outer text's keyword pass, so the
	 * inner scan may reuse the per-rule marks. */
	if (!rc)
		rc = skit__scan_text(&inner, CTX_DECODED);
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
int skit__scan_text(struct text *t, enum ctx kind)
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
