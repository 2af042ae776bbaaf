/* SPDX-License-Identifier: MIT */
/*
 * roots.c - the roots options, cli_open_registry(), and safe output of
 * skill text for the registry commands. See roots.h and docs/registry.md.
 */
#include "common.h"

#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

#define MAX_LABEL 32

int cli_roots_option(struct cli_roots *r, int c, const char *arg,
                     const char *verb)
{
	switch (c) {
	case CLI_OPT_ROOT:
		if (r->nroots >= (int)SKIT_ARRAY_SIZE(r->roots))
			return cli_usage_error(verb,
			                       "too many --root options (at "
			                       "most %zu)",
			                       SKIT_ARRAY_SIZE(r->roots));
		if (!*arg)
			return cli_usage_error(verb, "--root needs a folder");
		r->roots[r->nroots++] = arg;
		return 1;
	case CLI_OPT_CONFIG:
		r->config = arg;
		return 1;
	case CLI_OPT_NO_CONFIG:
		r->no_config = true;
		return 1;
	default:
		return 0;
	}
}

/* The length of a "LABEL=" prefix of `arg`, or 0 when there is none. */
static size_t label_len(const char *arg)
{
	size_t n = 0;

	if (!(arg[0] >= 'a' && arg[0] <= 'z'))
		return 0;
	while ((arg[n] >= 'a' && arg[n] <= 'z') ||
	       (arg[n] >= '0' && arg[n] <= '9') || arg[n] == '-' ||
	       arg[n] == '_')
		n++;
	if (arg[n] != '=' || n > MAX_LABEL || !arg[n + 1])
		return 0;
	return n;
}

static int add_cli_roots(skit_registry *reg, const struct cli_roots *r,
                         const char *verb, bool missing_ok)
{
	char label[MAX_LABEL + 16];
	skit_error err = { 0 };
	int unlabelled = 0, k = 0;

	for (int i = 0; i < r->nroots; i++)
		if (!label_len(r->roots[i]))
			unlabelled++;
	for (int i = 0; i < r->nroots; i++) {
		const char *arg = r->roots[i];
		size_t n = label_len(arg);
		struct stat st;
		char *abs;
		int error;

		if (n) {
			snprintf(label, sizeof(label), "%.*s", (int)n, arg);
			arg += n + 1;
		} else if (unlabelled == 1) {
			snprintf(label, sizeof(label), "root");
		} else {
			snprintf(label, sizeof(label), "root%d", ++k);
		}
		/* A root the user names must exist: a typo would otherwise
		 * list nothing and succeed (the default roots may be
		 * missing; they are silently empty). */
		if (!missing_ok &&
		    (stat(arg, &st) < 0 || !S_ISDIR(st.st_mode))) {
			cli_error(verb, "--root %s: %s", arg,
			          stat(arg, &st) < 0 ? strerror(errno)
			                             : "not a folder");
			return CLI_USAGE;
		}
		/* absolute, so listings and prompts name real places */
		abs = skitx_path_absolute(arg);
		if (!abs) {
			cli_error(verb, "out of memory");
			return CLI_FAIL;
		}
		error = skit_registry_add_root(reg, label, abs, &err);
		skitx_free(abs);
		if (error < 0) {
			cli_error(verb, "%s", err.message);
			return error == SKIT_EINVALID ? CLI_USAGE : CLI_FAIL;
		}
	}
	return CLI_OK;
}

/* At most this many unsafe places are named at load; doctor names all. */
#define MAX_UNSAFE_SHOWN 3

/*
 * Say at load, as ssh does for its config files, when skills come from a
 * root or folder that someone else can write or owns: whoever can write
 * there can change what the agent reads and runs. One line each (the
 * first few), then where to see the rest.
 */
static void warn_unsafe(const skit_registry *reg, const char *verb)
{
	size_t n, shown = 0, more = 0;
	const skit_diag *dg = skit_registry_diags(reg, &n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(dg[i].code, "unsafe-root") &&
		    strcmp(dg[i].code, "unsafe-folder"))
			continue;
		if (shown == MAX_UNSAFE_SHOWN) {
			more++;
			continue;
		}
		fprintf(stderr, "skit %s: warning: ", verb);
		if (dg[i].path) {
			cli_put_text(stderr, dg[i].path, true, 0);
			fputs(": ", stderr);
		}
		cli_put_text(stderr, dg[i].message, true, 0);
		fputc('\n', stderr);
		shown++;
	}
	if (more)
		fprintf(stderr,
		        "skit %s: warning: %zu more unsafe folder%s: skit "
		        "doctor lists them\n",
		        verb, more, more == 1 ? "" : "s");
}

static int open_registry(skit_registry **out, const struct cli_roots *r,
                         const char *cwd, const char *verb, bool missing_ok,
                         bool honour_trust)
{
	skit_roots_options opts = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_error err = { 0 };
	int error, status;

	*out = NULL;
	if (skit_registry_new(&reg, &err) < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	if (r->nroots) {
		status = add_cli_roots(reg, r, verb, missing_ok);
		if (status != CLI_OK)
			goto fail;
	} else {
		opts.config_file = r->config;
		opts.no_config = r->no_config;
		opts.honour_trust = honour_trust;
		opts.cwd = cwd;
		error = skit_registry_add_default_roots(reg, &opts, &err);
		if (error < 0) {
			cli_error(verb, "%s", err.message);
			/* a missing --config file is missing input */
			status = error == SKIT_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
			goto fail;
		}
	}
	if (skit_registry_scan(reg, &err) < 0) {
		cli_error(verb, "%s", err.message);
		status = CLI_FAIL;
		goto fail;
	}
	if (!missing_ok) /* doctor reports them itself */
		warn_unsafe(reg, verb);
	*out = reg;
	return CLI_OK;
fail:
	skit_registry_free(reg);
	return status;
}

int cli_open_registry(skit_registry **out, const struct cli_roots *r,
                      const char *verb)
{
	return open_registry(out, r, NULL, verb, false, false);
}

int cli_open_registry_at(skit_registry **out, const struct cli_roots *r,
                         const char *cwd, const char *verb)
{
	return open_registry(out, r, cwd, verb, false, false);
}

int cli_open_registry_any(skit_registry **out, const struct cli_roots *r,
                          const char *verb)
{
	return open_registry(out, r, NULL, verb, true, false);
}

/* ---- output ------------------------------------------------------------ */

void cli_style_init(struct cli_style *st, bool on)
{
	st->bold = on ? "\033[1m" : "";
	st->dim = on ? "\033[2m" : "";
	st->red = on ? "\033[31m" : "";
	st->yellow = on ? "\033[33m" : "";
	st->green = on ? "\033[32m" : "";
	st->cyan = on ? "\033[36m" : "";
	st->reset = on ? "\033[0m" : "";
}

static bool is_space_cp(int32_t cp)
{
	return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' ||
	       cp == '\v' || cp == '\f';
}

/*
 * Decode one code point at `p`, strictly: its length, or 0 when the bytes
 * there are not valid UTF-8 (the caller then skips one byte).
 */
static size_t decode(const char *p, const char *end, int32_t *cp)
{
	unsigned char c = (unsigned char)*p;
	size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;

	if ((size_t)(end - p) < n || skitx_utf8_check(p, n, NULL))
		return 0;
	skitx_utf8_decode(p, n, cp);
	return n;
}

/*
 * A walk over `s` by printable pieces, the shared core of cli_put_text()
 * and cli_text_width(): invalid bytes and controls become U+FFFD; with
 * `one_line`, whitespace runs become one space and the ends are trimmed.
 */
struct text_walk {
	const char *p, *end;
	bool one_line, pending_space, started;
};

/* The next piece's bytes in `*piece`/`*len`; false at the end. */
static bool next_piece(struct text_walk *w, const char **piece, size_t *len)
{
	static const char replacement[] = "\xEF\xBF\xBD";

	while (w->p < w->end) {
		int32_t cp = 0xFFFD;
		size_t n = decode(w->p, w->end, &cp), adv = n ? n : 1;

		if (n && (w->one_line ? is_space_cp(cp) : cp == '\r')) {
			w->p += adv;
			if (w->one_line && w->started)
				w->pending_space = true;
			continue;
		}
		if (w->pending_space) {
			/* the space first; this piece comes next call */
			w->pending_space = false;
			*piece = " ";
			*len = 1;
			return true;
		}
		w->started = true;
		w->p += adv;
		/*
		 * Hidden characters (util/utf8.h: controls, bidi overrides
		 * and isolates, zero-width and TAG characters...) show as
		 * U+FFFD: they can neither drive the terminal nor reorder or
		 * hide text, and the reader sees that something was there.
		 */
		if (!n ||
		    (skitx_utf8_is_hidden(cp) && cp != '\n' && cp != '\t')) {
			*piece = replacement;
			*len = 3;
		} else {
			*piece = w->p - n;
			*len = n;
		}
		return true;
	}
	return false;
}

size_t cli_text_width(const char *s)
{
	struct text_walk w = { s, s + strlen(s), true, false, false };
	const char *piece;
	size_t len, cols = 0;

	while (next_piece(&w, &piece, &len))
		cols++;
	return cols;
}

void cli_put_text(FILE *f, const char *s, bool one_line, size_t max_cols)
{
	struct text_walk w = { s, s + strlen(s), one_line, false, false };
	const char *piece;
	size_t len, cols = 0, total = 0;

	if (max_cols)
		total = one_line ? cli_text_width(s) : 0;
	while (next_piece(&w, &piece, &len)) {
		if (max_cols && total > max_cols && cols + 1 >= max_cols) {
			fputs("\xE2\x80\xA6", f); /* … */
			return;
		}
		fwrite(piece, 1, len, f);
		cols++;
	}
}

/*
 * Past the 8-byte words at `p` that need no escaping: printable ASCII
 * other than '"' and '\\'. A word at a time, since `skit list --json`
 * writes megabytes of descriptions and paths; the caller looks at the
 * rest byte by byte.
 */
static const char *plain_words(const char *p, const char *end)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t high = UINT64_C(0x8080808080808080);

	while (end - p >= 8) {
		uint64_t w, q, b, d;

		memcpy(&w, p, sizeof(w));
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		d = w ^ (ones * 0x7F);
		/* any byte >= 0x80, < 0x20, or equal to '"', '\\' or DEL */
		if ((w | ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) |
		     ((b - ones) & ~b) | ((d - ones) & ~d)) &
		    high)
			break;
		p += 8;
	}
	return p;
}

void cli_put_json_str(FILE *f, const char *s)
{
	const char *p = s, *end = s + strlen(s), *run = s;

	/* Plain bytes go out in runs; only the rest is looked at twice. */
	fputc('"', f);
	while (p < end) {
		unsigned char c;
		int32_t cp;
		size_t n;

		p = plain_words(p, end);
		if (p == end)
			break;
		c = (unsigned char)*p;
		if (c >= 0x20 && c != 0x7F && c != '"' && c != '\\') {
			if (c < 0x80) {
				p++;
				continue;
			}
			n = decode(p, end, &cp);
			if (n && !skitx_utf8_is_hidden(cp)) {
				p += n;
				continue;
			}
			/*
			 * A hidden character stays in the string (JSON keeps
			 * the exact text) but escaped, so that printing the
			 * JSON shows it instead of obeying it.
			 */
			if (n) {
				fwrite(run, 1, (size_t)(p - run), f);
				if (cp > 0xFFFF)
					fprintf(f, "\\u%04x\\u%04x",
					        (unsigned int)(0xD800 +
					                       ((cp -
					                         0x10000) >>
					                        10)),
					        (unsigned int)(0xDC00 +
					                       ((cp - 0x10000) &
					                        0x3FF)));
				else
					fprintf(f, "\\u%04x", (unsigned int)cp);
				p += n;
				run = p;
				continue;
			}
		}
		fwrite(run, 1, (size_t)(p - run), f);
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x80)
				fprintf(f, "\\u%04x", c);
			else
				fputs("\\ufffd", f); /* invalid UTF-8 */
		}
		run = ++p;
	}
	fwrite(run, 1, (size_t)(p - run), f);
	fputc('"', f);
}

void cli_put_json_kv(FILE *f, const char *indent, const char *key,
                     const char *s, bool comma)
{
	/* fputs, not fprintf: `skit list --json` writes 14 keys an entry */
	fputs(indent, f);
	fputc('"', f);
	fputs(key, f);
	fputs("\": ", f);
	if (s)
		cli_put_json_str(f, s);
	else
		fputs("null", f);
	fputs(comma ? ",\n" : "\n", f);
}

int cli_open_registry_trusted(skit_registry **out, const struct cli_roots *r,
                              const char *cwd, const char *verb)
{
	return open_registry(out, r, cwd, verb, false, true);
}

const char *cli_untrusted_config(const skit_registry *reg)
{
	static const char *const names[] = {
		".agents/skit.json", ".mcp.json",
		".agents/skit.json and .mcp.json"
	};
	const char *p = skit_registry_project_dir(reg);
	unsigned int have = 0;

	if (!p || skit_registry_project_trusted(reg))
		return NULL;
	for (unsigned int i = 0; i < 2; i++) {
		char *f = skitx_path_join(p, i ? ".mcp.json"
		                               : ".agents/skit.json");

		if (f && skitx_fs_exists(f))
			have |= 1u << i;
		skitx_free(f);
	}
	return have ? names[have - 1] : NULL;
}
