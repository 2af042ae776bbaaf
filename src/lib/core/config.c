/* SPDX-License-Identifier: MIT */
/*
 * config.c - read and parse one config file, with the caps and the error
 * messages every config reader gives. See config_int.h.
 */
#include "common.h"

#include "lib/core/config_int.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/fs.h"

int skit__config_read(json_t **out, const char *path, bool follow,
                      skit_error *err)
{
	struct skitx_buf b;
	json_error_t jerr;
	char *real = follow ? realpath(path, NULL) : NULL;
	int rc;

	*out = NULL;
	skitx_buf_init(&b, 0);
	/* The user's own file may be a link into a dotfiles folder: it is
	 * read where it leads. A project's is read only as itself. */
	rc = skitx_fs_read_file(real ? real : path, &b, SKIT__CONFIG_MAX);
	free(real);
	if (rc < 0) {
		int e = errno;

		skitx_buf_release(&b);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		return skit__error_set(
		        err, rc, 0, "%s: %s", path,
		        rc == SKIT_ENOTFOUND ? "no such file"
		        : rc == SKIT_ETOOBIG ? "config file over 1 MiB"
		        : rc == SKIT_EUNSAFE ? "not a regular file"
		                             : strerror(e));
	}
	*out = json_loadb(skitx_buf_cstr(&b), skitx_buf_len(&b),
	                  JSON_REJECT_DUPLICATES, &jerr);
	skitx_buf_release(&b);
	if (!*out)
		return skit__error_set(err, SKIT_EINVALID, 0, "%s:%d:%d: %s",
		                       path, jerr.line, jerr.column, jerr.text);
	return 0;
}
