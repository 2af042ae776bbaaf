/* SPDX-License-Identifier: MIT */
/*
 * sse.c - incremental Server-Sent Events parsing. See sse.h.
 *
 * Speed matters here: a model streams many small events, and the parser
 * sees every byte. So lines are found with memchr (the search for CR is
 * done once per chunk in the common case of a stream without CRs), a line
 * that ends inside its chunk is parsed in place, and the data of an event
 * is only copied when the event spans chunks or has several data lines.
 */
#include "common.h"

#include "lib/model/sse.h"

#define LINE_SLACK 4096u /* field name and "data: " on top of the data cap */

static const char bom_bytes[3] = { '\xEF', '\xBB', '\xBF' };

void skit__sse_init(struct skit__sse *p, skit__sse_cb cb, void *payload,
                    size_t max_data)
{
	memset(p, 0, sizeof(*p));
	p->cb = cb;
	p->payload = payload;
	p->max_data = max_data ? max_data : SKIT__SSE_MAX_DATA;
	skitx_buf_init(&p->line, p->max_data + LINE_SLACK);
	skitx_buf_init(&p->data, p->max_data);
	skitx_buf_init(&p->event, LINE_SLACK);
	skitx_buf_init(&p->id, LINE_SLACK);
	p->retry_ms = -1;
}

/* Copy data still referenced in a caller's chunk into our buffer. */
static int own_data(struct skit__sse *p)
{
	int rc;

	if (!p->data_ref)
		return 0;
	skitx_buf_clear(&p->data);
	rc = skitx_buf_add(&p->data, p->data_ref, p->data_ref_len);
	p->data_ref = NULL;
	p->data_ref_len = 0;
	return rc;
}

static int dispatch(struct skit__sse *p)
{
	struct skit__sse_event ev;
	int rc;

	if (!p->has_data) {
		skitx_buf_clear(&p->event);
		return 0;
	}
	ev.event = skitx_buf_cstr(&p->event);
	ev.event_len = skitx_buf_len(&p->event);
	if (p->data_ref) {
		ev.data = p->data_ref;
		ev.data_len = p->data_ref_len;
	} else {
		ev.data = skitx_buf_cstr(&p->data);
		ev.data_len = skitx_buf_len(&p->data);
	}
	ev.id = skitx_buf_cstr(&p->id);
	ev.id_len = skitx_buf_len(&p->id);
	rc = p->cb(&ev, p->payload);
	p->has_data = false;
	p->data_ref = NULL;
	p->data_ref_len = 0;
	skitx_buf_clear(&p->data);
	skitx_buf_clear(&p->event);
	return rc;
}

/*
 * One "data" line. `stable` says the value stays valid until the end of
 * this feed call (it lies in the caller's chunk), so it can be referenced
 * rather than copied.
 */
static int add_data(struct skit__sse *p, const char *v, size_t n, bool stable)
{
	int rc;

	if (!p->has_data) {
		if (n > p->max_data)
			return SKIT_ETOOBIG;
		p->has_data = true;
		if (stable) {
			p->data_ref = v;
			p->data_ref_len = n;
			return 0;
		}
		skitx_buf_clear(&p->data);
		return skitx_buf_add(&p->data, v, n);
	}
	rc = own_data(p);
	if (!rc)
		rc = skitx_buf_putc(&p->data, '\n');
	if (!rc)
		rc = skitx_buf_add(&p->data, v, n);
	return rc;
}

static int set_buf(struct skitx_buf *b, const char *v, size_t n)
{
	skitx_buf_clear(b);
	return skitx_buf_add(b, v, n);
}

static int process_line(struct skit__sse *p, const char *line, size_t n,
                        bool stable)
{
	const char *colon, *v, *end = line + n;
	size_t name_len, vlen;
	long retry = 0;

	if (!n)
		return dispatch(p);
	if (line[0] == ':')
		return 0; /* a comment: keep-alives use these */
	colon = memchr(line, ':', n);
	if (colon) {
		name_len = (size_t)(colon - line);
		v = colon + 1;
		if (v < end && *v == ' ')
			v++;
	} else {
		name_len = n;
		v = end;
	}
	vlen = (size_t)(end - v);
	if (name_len == 4 && !memcmp(line, "data", 4))
		return add_data(p, v, vlen, stable);
	if (name_len == 5 && !memcmp(line, "event", 5))
		return set_buf(&p->event, v, vlen);
	if (name_len == 2 && !memcmp(line, "id", 2)) {
		/* The spec ignores an id holding NUL. */
		if (memchr(v, '\0', vlen))
			return 0;
		return set_buf(&p->id, v, vlen);
	}
	if (name_len == 5 && !memcmp(line, "retry", 5)) {
		if (!vlen)
			return 0;
		for (size_t i = 0; i < vlen; i++) {
			if (v[i] < '0' || v[i] > '9')
				return 0;
			if (retry < LONG_MAX / 10)
				retry = retry * 10 + (v[i] - '0');
		}
		p->retry_ms = retry;
	}
	return 0; /* unknown fields are ignored */
}

/* Split `len` bytes into lines; carry an unfinished last line over. */
static int feed_lines(struct skit__sse *p, const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len, *lf, *eol, *cr = NULL;
	bool cr_searched = false;
	int rc = 0;

	if (p->skip_lf && s < end) {
		p->skip_lf = false;
		if (*s == '\n')
			s++;
	}
	while (s < end) {
		/* Find the next CR once, and again only when we pass it. */
		if (!cr_searched || (cr && cr < s)) {
			cr = memchr(s, '\r', (size_t)(end - s));
			cr_searched = true;
		}
		lf = memchr(s, '\n', (size_t)(end - s));
		eol = lf ? lf : end;
		if (cr && cr < eol)
			eol = cr;
		if (eol == end) {
			rc = skitx_buf_add(&p->line, s, (size_t)(end - s));
			break;
		}
		if (skitx_buf_len(&p->line)) {
			rc = skitx_buf_add(&p->line, s, (size_t)(eol - s));
			if (!rc)
				rc = process_line(p, skitx_buf_cstr(&p->line),
				                  skitx_buf_len(&p->line),
				                  false);
			skitx_buf_clear(&p->line);
		} else {
			rc = process_line(p, s, (size_t)(eol - s), true);
		}
		if (rc)
			break;
		s = eol + 1;
		if (*eol == '\r') {
			if (s == end)
				p->skip_lf = true;
			else if (*s == '\n')
				s++;
		}
	}
	/* The chunk goes away after this call: keep what we point into. */
	if (!rc)
		rc = own_data(p);
	return rc;
}

int skit__sse_feed(struct skit__sse *p, const char *buf, size_t len)
{
	unsigned int k;
	int rc;

	if (!p->started) {
		while (len && p->bom < 3 && *buf == bom_bytes[p->bom]) {
			p->bom++;
			buf++;
			len--;
		}
		if (p->bom < 3 && !len)
			return 0; /* maybe a BOM split across chunks */
		p->started = true;
		if (p->bom < 3 && p->bom) {
			/* Not a BOM after all: those bytes are text. */
			k = p->bom;
			rc = feed_lines(p, bom_bytes, k);
			if (rc)
				return rc;
		}
	}
	return len ? feed_lines(p, buf, len) : 0;
}

int skit__sse_finish(struct skit__sse *p)
{
	int rc = 0;

	if (!p->started && p->bom && p->bom < 3) {
		p->started = true;
		rc = feed_lines(p, bom_bytes, p->bom);
	}
	if (!rc && skitx_buf_len(&p->line)) {
		rc = process_line(p, skitx_buf_cstr(&p->line),
		                  skitx_buf_len(&p->line), false);
		skitx_buf_clear(&p->line);
	}
	return rc;
}

void skit__sse_release(struct skit__sse *p)
{
	skitx_buf_release(&p->line);
	skitx_buf_release(&p->data);
	skitx_buf_release(&p->event);
	skitx_buf_release(&p->id);
	p->data_ref = NULL;
}
