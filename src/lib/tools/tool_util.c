/* SPDX-License-Identifier: MIT */
/*
 * tool_util.c - what every tool handler uses (tools_int.h): error
 * results, string arguments, text cleaned for the model, relative paths
 * judged lexically. At the bottom of the tools folder: it calls none of
 * the handlers.
 */
#include "common.h"

#include <stdarg.h>

#include "lib/tools/tools_int.h"
#include "util/buf.h"
#include "util/utf8.h"

#define PATH_MAX_LEN SKIT__TOOL_PATH_MAX /* bytes of a relative path */

int skit__tool_error(struct skitx_buf *out, bool *is_error, const char *fmt,
                     ...)
{
	va_list ap;
	int rc;

	skitx_buf_clear(out);
	*is_error = true;
	va_start(ap, fmt);
	rc = skitx_buf_vprintf(out, fmt, ap);
	va_end(ap);
	return rc ? SKIT_ENOMEM : 0;
}

const char *skit__str_arg(json_t *args, const char *key)
{
	json_t *v = json_object_get(args, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * Text for the model: invalid UTF-8 and control characters (but tab and
 * newline; CR before LF is dropped) become U+FFFD, so escape sequences
 * and mojibake from a file or a script never pass through.
 */
int skit__put_clean(struct skitx_buf *out, const char *s, size_t len)
{
	static const char repl[] = "\xEF\xBF\xBD";
	size_t i = 0, run = 0, n;
	int32_t cp;
	int rc = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7F) {
			i++;
			continue;
		}
		if (i > run)
			rc |= skitx_buf_add(out, s + run, i - run);
		n = skitx_utf8_decode(s + i, len - i, &cp);
		if (c == '\n' || c == '\t')
			rc |= skitx_buf_putc(out, (char)c);
		else if (c == '\r' && i + 1 < len && s[i + 1] == '\n')
			;
		else if (cp == 0xFFFD || skitx_utf8_is_hidden(cp))
			/* controls, bidi, zero-width and TAG characters: a
			 * visible mark, so the model sees that something
			 * was there but not what it would hide */
			rc |= skitx_buf_add(out, repl, 3);
		else
			rc |= skitx_buf_add(out, s + i, n);
		i += n;
		run = i;
	}
	if (i > run)
		rc |= skitx_buf_add(out, s + run, i - run);
	return rc ? SKIT_ENOMEM : 0;
}

/* A relative path that stays inside its folder, judged lexically. */
const char *skit__check_rel_path(const char *p)
{
	const char *c = p;

	if (!*p)
		return "empty path";
	if (strlen(p) > PATH_MAX_LEN)
		return "path too long";
	if (*p == '/')
		return "absolute paths are refused";
	while (*c) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return "'..' is refused";
		c += n;
		while (*c == '/')
			c++;
	}
	return NULL;
}
