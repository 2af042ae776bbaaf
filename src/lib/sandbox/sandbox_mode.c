/* SPDX-License-Identifier: MIT */
/*
 * sandbox_mode.c - the sandbox modes (read-only, workspace-write,
 * full-access) and the `sandbox` object of config files.
 *
 * The rule that matters here: repository content (a project's config)
 * may make the sandbox stricter but never turn it off, so full-access
 * from an untrusted file is skipped and flagged for the caller to say so,
 * and a disk cap above the user's (or the default) is skipped.
 */
#include "common.h"

#include <jansson.h>

#include "skit/sandbox.h"

#include "lib/core/config_int.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/fs.h"

static const char *const mode_names[] = {
	[SKIT_SANDBOX_WORKSPACE_WRITE] = "workspace-write",
	[SKIT_SANDBOX_READ_ONLY] = "read-only",
	[SKIT_SANDBOX_FULL_ACCESS] = "full-access",
};

int skit_sandbox_mode_parse(const char *name, skit_sandbox_mode *mode)
{
	for (size_t i = 0; name && i < SKIT_ARRAY_SIZE(mode_names); i++) {
		if (!strcmp(name, mode_names[i])) {
			*mode = (skit_sandbox_mode)i;
			return SKIT_OK;
		}
	}
	return SKIT_EINVALID;
}

const char *skit_sandbox_mode_name(skit_sandbox_mode mode)
{
	if ((size_t)mode < SKIT_ARRAY_SIZE(mode_names))
		return mode_names[mode];
	return "unknown";
}

static int load_sandbox(skit_sandbox_config *cfg, const char *path, json_t *sb,
                        bool trusted, skit_error *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(sb))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: \"sandbox\" must be an object",
		                       path);
	json_object_foreach(sb, key, v)
	{
		if (!strcmp(key, "mode")) {
			skit_sandbox_mode m;

			if (!json_is_string(v) ||
			    skit_sandbox_mode_parse(json_string_value(v), &m))
				return skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: \"sandbox.mode\" must be "
				        "read-only, workspace-write or "
				        "full-access",
				        path);
			if (m == SKIT_SANDBOX_FULL_ACCESS && !trusted) {
				cfg->full_access_refused = true;
				continue;
			}
			cfg->mode = m;
			cfg->mode_set = true;
		} else if (!strcmp(key, "disk_cap")) {
			if (!json_is_integer(v) || json_integer_value(v) <= 0)
				return skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: \"sandbox.disk_cap\" must be a "
				        "positive number of bytes",
				        path);
			/*
			 * A project may lower the cap, not raise it. The
			 * bound is the cap the user's files set or, when
			 * they set none (0), the default the run would use:
			 * "no cap yet" must not read as "no limit".
			 */
			if (!trusted &&
			    (uint64_t)json_integer_value(v) >
			            (cfg->disk_cap
			                     ? cfg->disk_cap
			                     : SKIT_SANDBOX_DEFAULT_DISK_CAP))
				continue;
			cfg->disk_cap = (uint64_t)json_integer_value(v);
		} else {
			return skit__error_set(
			        err, SKIT_EINVALID, 0,
			        "%s: unknown key \"sandbox.%.64s\" "
			        "(expected mode or disk_cap)",
			        path, key);
		}
	}
	return SKIT_OK;
}

int skit_sandbox_config_load(skit_sandbox_config *cfg, const char *path,
                             bool trusted, skit_error *err)
{
	json_t *root, *sb;
	int rc;

	rc = skit__config_read(&root, path, trusted, err);
	if (rc < 0)
		return rc;
	if (!json_is_object(root))
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: expected a JSON object", path);
	else if ((sb = json_object_get(root, "sandbox")))
		rc = load_sandbox(cfg, path, sb, trusted, err);
	json_decref(root);
	return rc;
}
