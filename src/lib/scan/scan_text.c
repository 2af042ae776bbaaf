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
#define VIEW_TRIES       8           /* matches a view skips per line */
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

/* The parent's bytes a finding in a view shows: its blob, or its line. */
static void parent_bytes(const struct text *t, unsigned int line,
                         const char **p, size_t *len)
{
	const struct text *pt = t->parent;

	if (t->blob_len) {
		*p = pt->data + t->blob_at;
		*len = t->blob_len;
		return;
	}
	if (line >= 1 && line <= pt->nlines) {
		size_t b = pt->starts[line - 1], e = pt->starts[line];

		while (e > b &&
		       (pt->data[e - 1] == '\n' || pt->data[e - 1] == '\r'))
			e--;
		while (b < e && (pt->data[b] == ' ' || pt->data[b] == '\t'))
			b++;
		*p = pt->data + b;
		*len = e - b;
		return;
	}
	*p = "";
	*len = 0;
}

int skit__scan_add_finding(struct text *t, const struct rule *r, enum ctx where,
                           unsigned int line, const char *match, size_t mlen,
                           int bump)
{
	skit_scan_report *rep = t->rep;
	struct finding *f;
	int sev = (int)r->severity + bump;

	if (sev > SKIT_SCAN_CRITICAL)
		sev = SKIT_SCAN_CRITICAL;
	/*
	 * A crafted file can repeat one match on every line: past HITS_MAX
	 * findings of a rule in a file the rest add nothing a reader needs,
	 * and the report stays bounded.
	 */
	assert(r >= t->sc->rules && r < t->sc->rules + t->sc->nrules);
	if (t->sc->hits[r - t->sc->rules]++ >= HITS_MAX)
		return 0;
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
	f->pub.severity = (skit_scan_severity)sev;
	f->pub.where = skit__scan_ctx_names[where];
	f->pub.line = t->line_base ? t->line_base : line;
	f->pub.file = skitx_pool_strdup(&rep->pool, t->file);
	f->pub.skill = skitx_pool_strdup(&rep->pool, t->skill ? t->skill : "");
	if (t->parent) {
		const char *op;
		size_t ol;

		/* the finding shows what is written, and what it became */
		parent_bytes(t, line, &op, &ol);
		f->pub.text = skit__scan_sanitise(&rep->pool, op, ol);
		f->pub.decoded = skit__scan_sanitise(&rep->pool, match, mlen);
		if (!f->pub.decoded)
			return SKIT_ENOMEM;
	} else {
		f->pub.text = skit__scan_sanitise(&rep->pool, match, mlen);
	}
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

/*
 * Charge one regex search over `len` bytes to the file's work: at most
 * the square of the length in backtracking steps for the scan's rules,
 * and never more than the engine's limit, plus the bytes. True once the
 * budget is spent (the rest of the file is then reported, not read).
 */
static bool charge(skit_scanner *sc, size_t len)
{
	size_t steps = len < 1024 ? len * len : SKIT__RX_MATCH_LIMIT;

	if (steps > SKIT__RX_MATCH_LIMIT)
		steps = SKIT__RX_MATCH_LIMIT;
	sc->work += len + steps;
	if (sc->work > WORK_MAX)
		sc->over = true;
	return sc->over;
}

/* The match [from, to) of `r` touches a byte the normalising changed. */
static bool touches(const struct text *t, const struct rule *r, size_t from,
                    size_t to)
{
	uint8_t touched = 0,
	        need = r->view ? r->view
	                       : SKIT__SCAN_FOLDED | SKIT__SCAN_DECODED;

	if (to == from && to < t->len)
		to++;
	for (size_t k = from; k < to; k++)
		touched |= t->marks[k];
	return (touched & need) != 0;
}

/* Run rule `ri`'s regex on line `ln` (or its window); report a match. */
static int try_rule(struct text *t, uint32_t ri, size_t ln, size_t at)
{
	skit_scanner *sc = t->sc;
	const struct rule *r = &sc->rules[ri];
	size_t first = ln, last = ln, s, e, len, off;
	enum ctx c = (enum ctx)t->ctx[ln];
	const char *p, *base;
	int m;

	if (sc->tried[ri] == ln + 1 && at < sc->until[ri])
		return 0;
	sc->tried[ri] = (unsigned int)(ln + 1);
	sc->until[ri] = SIZE_MAX;
	if (!(r->where & (1u << c)) || sc->over)
		return 0;
	/* a rule on what decoding reveals reads only views */
	if (r->view && !t->marks &&
	    !(t->blob_len && r->view & SKIT__SCAN_DECODED))
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
	if (charge(sc, len))
		return 0;
	/*
	 * A limit reached counts as no match: the rules are skit's own. In
	 * a normalised view only what the normalising changed counts (the
	 * rest was read as written already), so a match that touches no
	 * changed byte is skipped for the next one, a few times at most.
	 */
	base = p;
	for (int tries = 0;; tries++) {
		m = skit__rx_search(r->rx, p, len, &s, &e, NULL);
		if (m == SKIT_ENOMEM)
			return m;
		if (m != 1)
			return 0;
		if (!t->marks || touches(t, r, (size_t)(p - t->data) + s,
		                         (size_t)(p - t->data) + e))
			break;
		if (tries == VIEW_TRIES || s + 1 >= len)
			return 0;
		p += s + 1;
		len -= s + 1;
		if (charge(sc, len))
			return 0;
	}
	if (first != last || p != base) {
		ln = line_of(t, (size_t)(p - t->data) + s);
		c = (enum ctx)t->ctx[ln];
		/* the window may start the match on a line the rule skips */
		if (!(r->where & (1u << c)))
			return 0;
	}
	if (r->signal >= 0) {
		unsigned int bit = (unsigned int)r->signal;
		unsigned int line =
		        t->line_base ? t->line_base : (unsigned int)ln + 1;

		if (!(sc->sig & (1u << bit)) || line < sc->sig_line[bit])
			sc->sig_line[bit] = line;
		sc->sig |= 1u << bit;
		return 0;
	}
	return skit__scan_add_finding(t, r, c, (unsigned int)ln + 1, p + s,
	                              e - s, 0);
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
	t->sc->work += len;
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
	inner.parent = t;
	inner.blob_at = b;
	inner.blob_len = e - b;
	/* the blob finding shows the blob, and what it decodes to */
	if (ri >= 0)
		rc = skit__scan_add_finding(&inner, &t->sc->rules[ri],
		                            (enum ctx)t->ctx[line_of(t, b)], 0,
		                            (const char *)buf, outlen, 0);
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
		/* a view decodes only the blobs its normalising made */
		if (t->marks && e - b >= BLOB_MIN_HEX) {
			bool made = false;

			for (size_t k = b; k < e && !made; k++)
				made = t->marks[k] != 0;
			if (!made)
				continue;
		}
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
 * Empty the lines of a view that normalising left as they were (their
 * newlines stay, so line numbers hold): only a changed line can show
 * anything new, and the rest need not be read twice. The new length.
 */
static size_t keep_changed_lines(char *data, uint8_t *marks, size_t len)
{
	size_t w = 0, b = 0;

	while (b < len) {
		const char *nl = memchr(data + b, '\n', len - b);
		size_t e = nl ? (size_t)(nl - data) : len;
		bool changed = false;

		for (size_t k = b; k < e && !changed; k++)
			changed = marks[k] != 0;
		if (changed) {
			memmove(data + w, data + b, e - b);
			memmove(marks + w, marks + b, e - b);
			w += e - b;
		}
		if (nl) {
			data[w] = '\n';
			marks[w++] = 0;
		}
		b = e + 1;
	}
	data[w] = '\0';
	return w;
}

/*
 * Read the normalised view of `t` (scan_norm.c) when normalising
 * changes something: the rules run on it again, and what they find
 * where the view differs from the text is reported at the text's line.
 */
static int scan_view(struct text *t, enum ctx kind)
{
	bool md = kind == CTX_INSTRUCTION || kind == CTX_DOC;
	struct text view;
	char *data = NULL;
	uint8_t *marks = NULL;
	size_t len = 0;
	int rc;

	if (!md && kind != CTX_SCRIPT && kind != CTX_DATA &&
	    kind != CTX_DECODED)
		return 0;
	rc = skit__scan_normalise(t->file, t->data, t->len, md, &data, &marks,
	                          &len, &t->sc->work);
	if (rc || !data)
		return rc;
	len = keep_changed_lines(data, marks, len);
	memset(&view, 0, sizeof(view));
	view.sc = t->sc;
	view.rep = t->rep;
	view.skill = t->skill;
	view.file = t->file;
	view.data = data;
	view.len = len;
	view.depth = t->depth;
	view.line_base = t->line_base;
	view.parent = t;
	view.marks = marks;
	rc = skit__scan_text(&view, kind);
	skitx_free(data);
	skitx_free(marks);
	return rc;
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

	t->kind = kind;
	rc = index_lines(t);
	if (rc)
		goto out;
	classify(t, kind);
	memset(sc->tried, 0, sc->nrules * sizeof(*sc->tried));
	sc->work += t->len;
	if (sc->work > WORK_MAX)
		sc->over = true;
	for (size_t i = 0; i < t->len && !sc->over; i++) {
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
	if (!t->marks && (kind == CTX_INSTRUCTION || kind == CTX_DOC))
		rc = skit__scan_links(t);
	if (!rc && t->depth < DECODE_DEPTH_MAX && !sc->over)
		rc = find_blobs(t);
	if (!rc && !t->marks && !sc->over)
		rc = scan_view(t, kind);
out:
	skitx_free(t->starts);
	skitx_free(t->ctx);
	t->starts = NULL;
	t->ctx = NULL;
	return rc;
}
