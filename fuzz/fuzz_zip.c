/* SPDX-License-Identifier: MIT */
/*
 * fuzz_zip.c - a pack (zip) through `skit install --dry-run`: the zip
 * reader, the entry-name, size, count and ratio checks, the layout
 * picker and the SKILL.md loads of what it holds, all the way to the
 * plan, with nothing installed. Input: the raw zip bytes.
 *
 * Checks: no crash or leak; a refusal is one line; a dry run leaves the
 * root without any skill folder, staging folder or lock file.
 */
#define _XOPEN_SOURCE 700
#include "common.h"

#include <dirent.h>

#include "skit/pack.h"
#include "fuzz.h"

static void root_is_empty(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".skit.lock"))
			continue;
		FUZZ_CHECK(0, "a dry run left %s in the root", de->d_name);
	}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_install_result *r = NULL;
	skit_error err = { 0 };
	const char *zip = fuzz_path("in.zip"), *root = fuzz_path("root");
	int rc;

	if (size > (1u << 20))
		return 0;
	fuzz_write(zip, data, size);
	o.flags = SKIT_INSTALL_DRY_RUN;
	/* Small caps, so bombs are found quickly. */
	o.max_file_bytes = 1u << 20;
	o.max_total_bytes = 4u << 20;
	o.max_entries = 256;
	rc = skit_install(root, zip, &o, &r, &err);
	if (rc)
		FUZZ_CHECK(!strchr(err.message, '\n'), "%s", err.message);
	skit_install_result_free(r);
	root_is_empty(root);
	return 0;
}
