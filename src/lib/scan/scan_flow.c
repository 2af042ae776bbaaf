/* SPDX-License-Identifier: MIT */
/*
 * scan_flow.c - findings no single line shows: the signals of one file
 * combined (a credential source and a network sink, a guard that hides
 * them), and Markdown links whose text names another place than their
 * target.
 *
 * Signals are raised by rules marked `signal:` in the rules file, on the
 * text as written, its normalised view and its decoded blobs alike; a
 * `detector: combination` rule fires when every group of its `all` list
 * has a signal in the file, one level higher when a `raise` signal is
 * there too. This is co-occurrence in one file, not data flow: it says
 * that the pieces of a theft are present, which is what a skill's
 * script has no reason to hold, and it cannot prove that one reaches the
 * other (docs/scan.md).
 */
#include "common.h"

#include <strings.h>

#include "lib/scan/scan_int.h"
#include "util/buf.h"

#define HOST_MAX 253u

/* The earliest signal of `set` present in the file. */
static int present(const skit_scanner *sc, uint32_t set)
{
	int best = -1;

	for (int b = 0; b < 32; b++)
		if (set & sc->sig & (1u << b) &&
		    (best < 0 || sc->sig_line[b] < sc->sig_line[best]))
			best = b;
	return best;
}

int skit__scan_combine(struct text *t, enum ctx where)
{
	skit_scanner *sc = t->sc;
	struct skitx_buf b;
	int rc = 0;

	if (!sc->sig)
		return 0;
	skitx_buf_init(&b, 1024);
	for (size_t i = 0; i < sc->nrules && !rc; i++) {
		const struct rule *r = &sc->rules[i];
		unsigned int line = 0;
		int g, bump;
		size_t k;

		if (r->det != DET_COMBINE)
			continue;
		for (k = 0; k < r->nall; k++)
			if (present(sc, r->all[k]) < 0)
				break;
		if (k < r->nall)
			continue;
		skitx_buf_clear(&b);
		for (k = 0; k < r->nall && !rc; k++) {
			g = present(sc, r->all[k]);
			if (sc->sig_line[g] > line)
				line = sc->sig_line[g];
			rc = skitx_buf_printf(
			        &b, "%s%s (line %u)", k ? " + " : "",
			        sc->signal_names[g], sc->sig_line[g]);
		}
		g = present(sc, r->raise);
		bump = g >= 0;
		if (!rc && bump)
			rc = skitx_buf_printf(&b, ", guarded by %s (line %u)",
			                      sc->signal_names[g],
			                      sc->sig_line[g]);
		/* the finding sits at the last piece: where it comes
		 * together */
		if (!rc)
			rc = skit__scan_add_finding(t, r, where, line,
			                            skitx_buf_cstr(&b),
			                            skitx_buf_len(&b), bump);
	}
	skitx_buf_release(&b);
	return rc;
}

/* ---- Markdown links ---------------------------------------------------- */

static bool host_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Top labels that are file extensions: "setup.py" is a file, not a host. */
static const char *const file_labels[] = {
	"md",   "py",   "js",  "ts",  "sh",  "json", "txt", "yaml",
	"yml",  "html", "htm", "zip", "png", "jpg",  "svg", "pdf",
	"toml", "lock", "rs",  "go",  "rb",  "java", "c",   "h",
	"cpp",  "css",  "xml", "csv", "mjs", "cjs",  "tsx", "jsx",
	"ps1",  "exe",  "gz",  "tgz", NULL,
};

/*
 * The host a link text names: a URL's host, or a text that opens with a
 * bare domain ("github.com/x/y", "docs.example.com"). Lower-cased into
 * `out`; false when the text names none.
 */
static bool text_host(const char *p, size_t len, char *out)
{
	size_t i = 0, b, e, last = 0, dots = 0;
	bool scheme = true;

	while (i < len && (p[i] == ' ' || p[i] == '`' || p[i] == '*'))
		i++;
	if (len - i > 8 && !strncasecmp(p + i, "https://", 8))
		i += 8;
	else if (len - i > 7 && !strncasecmp(p + i, "http://", 7))
		i += 7;
	else
		scheme = false;
	b = i;
	while (i < len && host_char(p[i])) {
		if (p[i] == '.') {
			dots++;
			last = i;
		}
		i++;
	}
	e = i;
	/* the domain must end the text or be followed by a path */
	if (e < len && p[e] != '/' && p[e] != ' ' && p[e] != '`' &&
	    p[e] != '*' && p[e] != ':')
		return false;
	if (!dots || last + 3 > e || e - b > HOST_MAX || p[b] == '.' ||
	    last + 1 == e)
		return false;
	for (size_t k = last + 1; k < e; k++)
		if (!((p[k] | 0x20) >= 'a' && (p[k] | 0x20) <= 'z'))
			return false;
	/* a bare name with capitals is a product ("ASP.NET"), not a host */
	for (size_t k = b; k < e && !scheme; k++)
		if (p[k] >= 'A' && p[k] <= 'Z')
			return false;
	for (size_t k = 0; file_labels[k]; k++)
		if (strlen(file_labels[k]) == e - last - 1 &&
		    !strncasecmp(p + last + 1, file_labels[k], e - last - 1))
			return false;
	for (size_t k = b; k < e; k++)
		out[k - b] =
		        (char)(p[k] >= 'A' && p[k] <= 'Z' ? p[k] + 32 : p[k]);
	out[e - b] = '\0';
	return true;
}

/* The host of a link target "https://host/...", or false. */
static bool target_host(const char *p, size_t len, char *out)
{
	size_t i = 0, b;

	if (len > 8 && !strncasecmp(p, "https://", 8))
		i = 8;
	else if (len > 7 && !strncasecmp(p, "http://", 7))
		i = 7;
	else
		return false;
	/* user@host: the part after the @ is where it goes */
	for (size_t k = i; k < len && p[k] != '/'; k++)
		if (p[k] == '@')
			i = k + 1;
	b = i;
	while (i < len && host_char(p[i]))
		i++;
	if (i == b || i - b > HOST_MAX)
		return false;
	for (size_t k = b; k < i; k++)
		out[k - b] =
		        (char)(p[k] >= 'A' && p[k] <= 'Z' ? p[k] + 32 : p[k]);
	out[i - b] = '\0';
	return true;
}

/* `a` is `b` or a subdomain of it ("www.x.com" and "x.com"). */
static bool same_site(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la >= lb && !strcmp(a + la - lb, b) &&
	    (la == lb || a[la - lb - 1] == '.'))
		return true;
	return lb > la && !strcmp(b + lb - la, a) && b[lb - la - 1] == '.';
}

int skit__scan_links(struct text *t)
{
	skit_scanner *sc = t->sc;
	int ri = sc->det_rule[DET_LINK];
	char th[HOST_MAX + 1], gh[HOST_MAX + 1];

	if (ri < 0)
		return 0;
	for (size_t ln = 0; ln < t->nlines; ln++) {
		size_t b = t->starts[ln], e = t->starts[ln + 1];
		const char *p = t->data + b;
		size_t len = e - b;

		if (!(sc->rules[ri].where & (1u << t->ctx[ln])))
			continue;
		for (size_t i = 0; i + 1 < len; i++) {
			const char *open, *close, *tend;
			size_t tl;
			int rc;

			if (p[i] != ']' || p[i + 1] != '(')
				continue;
			/* the text: back to its '[' on this line */
			open = NULL;
			for (size_t k = i; k-- > 0;)
				if (p[k] == '[') {
					open = p + k;
					break;
				}
			if (!open)
				continue;
			tend = memchr(p + i + 2, ')', len - i - 2);
			if (!tend)
				continue;
			close = p + i;
			tl = (size_t)(tend - (p + i + 2));
			if (!text_host(open + 1, (size_t)(close - open - 1),
			               th) ||
			    !target_host(p + i + 2, tl, gh) ||
			    same_site(th, gh))
				continue;
			rc = skit__scan_add_finding(
			        t, &sc->rules[ri], (enum ctx)t->ctx[ln],
			        (unsigned int)ln + 1, open,
			        (size_t)(tend + 1 - open), 0);
			if (rc)
				return rc;
			break;
		}
	}
	return 0;
}

size_t skit__scan_work(const skit_scanner *sc)
{
	return sc->work;
}

size_t skit__scan_skill_work(const skit_scanner *sc)
{
	return sc->skill_work;
}
