/* SPDX-License-Identifier: MIT */
/*
 * scan_install.c - install and update scan each skill in staging, before
 * anything moves into place (docs/install.md, docs/scan.md). The scan is
 * the same as `skit scan`; a high or critical finding refuses the install
 * and the error names those findings, unless the caller allows risky
 * skills. The verdict and the rules version go into the lock.
 */
#include "common.h"

#include "lib/pack/scan_install.h"
#include "lib/core/error.h"
#include "util/buf.h"

int skit__install_scan(const skit_install_options *opts, const char *root,
                       const char *stage_name, struct skit__pskill *sk,
                       skit_error *err)
{
	skit_scan_report *rep = NULL;
	skit_scan_severity worst = SKIT_SCAN_INFO;
	struct skitx_buf msg;
	size_t n, risky = 0;
	char *dir = NULL;
	int rc;

	skitx_buf_init(&msg, 4096);
	rc = skit_scan_report_new(&rep, err);
	if (rc)
		return rc;
	rc = skitx_buf_printf(&msg, "%s/%s/new/%s", root, stage_name, sk->name);
	if (!rc)
		dir = skitx_buf_detach(&msg, NULL);
	if (!dir) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = skit_scan_path(opts->scanner, rep, dir, err);
	if (rc)
		goto out;
	n = skit_scan_report_count(rep);
	for (size_t i = 0; i < n; i++) {
		const skit_scan_finding *f = skit_scan_report_get(rep, i);

		if (f->severity > worst)
			worst = f->severity;
		if (f->severity < SKIT_SCAN_HIGH)
			continue;
		/* the message names as many as fit on its one line */
		if (risky++ < 3)
			rc = skitx_buf_printf(&msg, "%s %s (%s:%u)",
			                      risky > 1 ? "," : "", f->rule,
			                      f->file, f->line);
	}
	skitx_free(sk->scan_verdict);
	skitx_free(sk->scan_rules);
	sk->scan_verdict =
	        skitx_strdup(n ? skit_scan_severity_name(worst) : "clean");
	sk->scan_rules =
	        skitx_strdup(skit_scanner_rules_version(opts->scanner));
	if (rc || !sk->scan_verdict || !sk->scan_rules) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (opts->on_scan)
		opts->on_scan(opts->userdata, sk->name, rep);
	if (risky && !(opts->flags & SKIT_INSTALL_ALLOW_RISKY))
		rc = skit__error_set(
		        err, SKIT_EDENIED, 0,
		        "refused: the scan of %s found %zu high or "
		        "critical finding%s:%s%s; --allow-risky "
		        "installs anyway",
		        sk->name, risky, risky == 1 ? "" : "s",
		        skitx_buf_cstr(&msg), risky > 3 ? ", ..." : "");
out:
	skitx_free(dir);
	skitx_buf_release(&msg);
	skit_scan_report_free(rep);
	return rc;
}
