/* SPDX-License-Identifier: MIT */
/*
 * fuzz_scan.c - the scan module on any bytes: the input is scanned as
 * SKILL.md, as shell, JavaScript and Python scripts, as a reference page
 * and as a JSON asset (so the normaliser and every decoder see it), and
 * given to the normaliser directly. Properties: the scan never fails on
 * content (only out of memory may stop it); every finding's shown text
 * and decoded text is one printable line, with a known severity and a
 * line inside the input; a file's work stays within its budget; the
 * normalised view keeps the input's line count, its marks are known
 * bits, and it is at most 1.25 times the input plus 4 KiB.
 */
#include "common.h"

#include "skit/scan.h"
#include "lib/scan/scan_int.h"
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
	static const char *const as[] = {
		"SKILL.md",       "scripts/run.sh",      "scripts/run.js",
		"scripts/run.py", "references/guide.md", "assets/data.json",
	};
	size_t lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t k = 0; k < 2; k++) {
		char *out = NULL;
		uint8_t *marks = NULL;
		size_t olen = 0, work = 0, olines = 1;

		FUZZ_CHECK(skit__scan_normalise(
		                   k ? "x.md" : "x.js", (const char *)data,
		                   size, k, &out, &marks, &olen, &work) == 0,
		           "normalise");
		if (!out)
			continue;
		FUZZ_CHECK(olen <= size + size / 4 + 4096,
		           "view of %zu bytes grew to %zu", size, olen);
		for (size_t i = 0; i < olen; i++) {
			olines += out[i] == '\n';
			FUZZ_CHECK(!(marks[i] & ~7u), "mark %u", marks[i]);
		}
		FUZZ_CHECK(olines == lines, "view has %zu lines, input %zu",
		           olines, lines);
		skitx_free(out);
		skitx_free(marks);
	}
	for (size_t k = 0; k < sizeof(as) / sizeof(*as); k++) {
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
			for (const char *p = f->decoded; p && *p; p++)
				FUZZ_CHECK((unsigned char)*p >= 0x20 &&
				                   *p != 0x7f,
				           "%s: byte %d in the decoded text",
				           f->rule, *p);
		}
		FUZZ_CHECK(skit__scan_work(sc) <=
		                   (size_t)WORK_MAX + 2 * SKIT__RX_MATCH_LIMIT,
		           "work %zu", skit__scan_work(sc));
		skit_scan_report_free(rep);
	}
	return 0;
}
