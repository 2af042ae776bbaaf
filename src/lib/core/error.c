/* SPDX-License-Identifier: MIT */
/*
 * error.c - status texts and the caller-owned error record.
 */
#include "common.h"

#include "lib/core/error.h"

const char *skit_strerror(int status)
{
	switch (status) {
#define SKIT__STATUS_CASE(name, value, text) \
 case SKIT_##name:                           \
  return text;
		SKIT_STATUS_MAP(SKIT__STATUS_CASE)
#undef SKIT__STATUS_CASE
	default:
		return "unknown status";
	}
}

const char *skit_version(void)
{
	return SKIT_VERSION;
}

int skit__error_set(skit_error *err, int code, unsigned int line,
                    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	err->line = line;
	err->column = 0;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	/* Messages quote untrusted bytes (a parser's "near '...'", a name,
	 * an archive library's text): keep every one on one line and free of
	 * terminal controls, whatever it quotes. */
	for (char *p = err->message; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n' || c == '\r' || c == '\t')
			*p = ' ';
		else if (c < 0x20 || c == 0x7f)
			*p = '?';
	}
	return code;
}

int skit__error_oom(skit_error *err)
{
	return skit__error_set(err, SKIT_ENOMEM, 0, "out of memory");
}

int skit__error_code(skit_error *err, int code)
{
	if (err && err->code != code)
		skit__error_set(err, code, 0, "%s", skit_strerror(code));
	return code;
}
