/* SPDX-License-Identifier: MIT */
/* path.c - lexical path helpers. */
#include "common.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/path.h"

char *skitx_path_join(const char *a, const char *b)
{
	struct skitx_buf buf = SKITX_BUF_INIT;
	size_t alen = strlen(a);

	if (skitx_buf_add(&buf, a, alen) < 0 ||
	    (alen && a[alen - 1] != '/' && skitx_buf_putc(&buf, '/') < 0) ||
	    skitx_buf_puts(&buf, b) < 0) {
		skitx_buf_release(&buf);
		return NULL;
	}
	return skitx_buf_detach(&buf, NULL);
}

const char *skitx_path_name(const char *path, size_t *len)
{
	const char *p = path + strlen(path);

	for (;;) {
		const char *end = p, *start;

		while (end > path && end[-1] == '/')
			end--;
		start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (start == end) {
			*len = 0;
			return path;
		}
		if (end - start == 1 && *start == '.') {
			p = start;
			continue;
		}
		*len = (size_t)(end - start);
		return start;
	}
}

char *skitx_path_dirname(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!len)
		return skitx_strdup(".");
	return skitx_strndup(path, len);
}

char *skitx_path_absolute(const char *path)
{
	struct skitx_buf buf = SKITX_BUF_INIT;
	char cwd[PATH_MAX];
	const char *p;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)) || skitx_buf_puts(&buf, cwd) < 0)
			goto fail;
	}
	for (p = path; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(buf.ptr, '/');
			skitx_buf_truncate(
			        &buf, slash ? (size_t)(slash - buf.ptr) : 0);
		} else if (skitx_buf_putc(&buf, '/') < 0 ||
		           skitx_buf_add(&buf, p, n) < 0) {
			goto fail;
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (!buf.len && skitx_buf_putc(&buf, '/') < 0)
		goto fail;
	return skitx_buf_detach(&buf, NULL);
fail:
	skitx_buf_release(&buf);
	return NULL;
}

char *skitx_path_clean(const char *path)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	const char *p = path;

	if (*p == '/' && skitx_buf_putc(&b, '/') < 0)
		goto oom;
	while (*p) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n && !(n == 1 && *p == '.')) {
			if (b.len && b.ptr[b.len - 1] != '/' &&
			    skitx_buf_putc(&b, '/') < 0)
				goto oom;
			if (skitx_buf_add(&b, p, n) < 0)
				goto oom;
		}
		p += n;
	}
	if (!b.len && skitx_buf_putc(&b, '.') < 0)
		goto oom;
	return skitx_buf_detach(&b, NULL);
oom:
	skitx_buf_release(&b);
	return NULL;
}

char *skitx_path_real(const char *path)
{
	char *abs = skitx_path_absolute(path), *real, *out;

	if (!abs)
		return NULL;
	real = realpath(abs, NULL);
	if (!real)
		return abs;
	skitx_free(abs);
	out = skitx_strdup(real);
	free(real); /* realpath(3) allocates with malloc */
	return out;
}
