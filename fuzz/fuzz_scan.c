/* SPDX-License-Identifier: MIT */
/*
 * fuzz_scan.c - the scan module on any bytes: the input is scanned as
 * SKILL.md, as a script and as a reference page. Properties: the scan
 * never fails on content (only out of memory may stop it), and every
 * finding's shown text is one printable line (no control character,
 * no newline), with a known severity and a line inside the input.
 */
#include "common.h"

#include "skit/scan.h"
#include "fuzz.h"

static skit_scanner *sc;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *src = getenv("SKIT_SOURCE_DIR");
	char path[4096];
	skit_error err = { 0 };

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/data/scan-rules.yaml",
	         src ? src : ".");
	FUZZ_CHECK(skit_scanner_new(&sc, path, &err) == 0, "%s", err.message);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const as[] = { "SKILL.md", "scripts/run.sh",
		                          "references/guide.md" };
	size_t lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t k = 0; k < 3; k++) {
		skit_scan_report *rep = NULL;
		skit_error err = { 0 };

		FUZZ_CHECK(skit_scan_report_new(&rep, &err) == 0, "new");
		FUZZ_CHECK(skit_scan_buffer(sc, rep, "f", as[k],
		                            (const char *)data, size,
		                            &err) == 0,
		           "%s", err.message);
		for (size_t i = 0; i < skit_scan_report_count(rep); i++) {
			const skit_scan_finding *f =
			        skit_scan_report_get(rep, i);

			FUZZ_CHECK(f->severity <= SKIT_SCAN_CRITICAL, "%s",
			           f->rule);
			FUZZ_CHECK(f->line <= lines, "%s line %u of %zu",
			           f->rule, f->line, lines);
			for (const char *p = f->text; *p; p++)
				FUZZ_CHECK(
				        (unsigned char)*p >= 0x20 && *p != 0x7f,
				        "%s: byte %d in the text", f->rule, *p);
		}
		skit_scan_report_free(rep);
	}
	return 0;
}
