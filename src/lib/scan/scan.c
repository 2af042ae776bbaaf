/* SPDX-License-Identifier: MIT */
/*
 * scan.c - static analysis of a skill's files against data-driven rules:
 * walk a skill folder, read each file once, check whole-file detectors
 * (magic bytes of executables and archives, links, setuid, size) and
 * hand text to scan_text.c; keep the findings in a report.
 *
 * Rules come from a YAML file (data/scan-rules.yaml, installed as
 * share/skit/scan-rules.yaml), loaded by scan_rules.c. Nothing in a
 * scanned skill is ever run.
 *
 * The scan subsystem (src/lib/scan/) uses skill (the rules' YAML), core
 * (bounded regexes) and util, and offers only the public skit/scan.h (the
 * pack subsystem's install step and the CLI use it); scan_int.h is
 * private to the folder.
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <jansson.h>
#include <unistd.h>

#include "lib/scan/scan_int.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/vec.h"

#define FILE_MAX   (16u << 20) /* bytes of a scanned file */
#define FILES_MAX  10000u      /* files in one skill */
#define DEPTH_MAX  16          /* folder nesting in one skill */
#define TEXT_SNIFF 8192u       /* bytes checked for NUL (binary) */
/*
 * Work one skill may cost in all, in the units of WORK_MAX (a file's
 * budget): two files' worth, about two thirds of a second of CPU at the
 * worst measured rate (docs/scan.md). A byte read counts as a sixteenth
 * of a unit too.
 */
#define SKILL_WORK_MAX (2 * (size_t)WORK_MAX)

static bool has_ext(const char *file, const char *const *exts)
{
	const char *dot = strrchr(file, '.');

	if (!dot || strchr(dot, '/'))
		return false;
	for (; *exts; exts++)
		if (!strcasecmp(dot + 1, *exts))
			return true;
	return false;
}

static const char *const markdown_exts[] = { "md", "markdown", "mdx", NULL };
static const char *const doc_exts[] = { "txt", "rst", "adoc", NULL };
static bool is_skill_md(const char *file)
{
	return !strcmp(file, "SKILL.md");
}

static const char *const script_exts[] = {
	"sh",  "bash", "zsh", "fish", "ksh",         "py",   "js",   "mjs",
	"cjs", "ts",   "rb",  "pl",   "php",         "ps1",  "psm1", "bat",
	"cmd", "vbs",  "lua", "tcl",  "applescript", "scpt", NULL,
};

/* ---- whole files ------------------------------------------------------ */

struct magic {
	const char *bytes;
	size_t len, at;
	enum detector det;
	const char *what;
};

static const struct magic magics[] = {
	{ "\x7f"
	  "ELF",
	  4, 0, DET_EXECUTABLE, "ELF executable" },
	{ "MZ", 2, 0, DET_EXECUTABLE, "Windows executable" },
	{ "\xfe\xed\xfa\xce", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xfe\xed\xfa\xcf", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xce\xfa\xed\xfe", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xcf\xfa\xed\xfe", 4, 0, DET_EXECUTABLE, "Mach-O executable" },
	{ "\xca\xfe\xba\xbe", 4, 0, DET_EXECUTABLE, "Mach-O or Java class" },
	{ "\0asm", 4, 0, DET_EXECUTABLE, "WebAssembly module" },
	{ "PK\x03\x04", 4, 0, DET_ARCHIVE, "zip archive" },
	{ "\x1f\x8b", 2, 0, DET_ARCHIVE, "gzip archive" },
	{ "7z\xbc\xaf\x27\x1c", 6, 0, DET_ARCHIVE, "7-Zip archive" },
	{ "Rar!\x1a\x07", 6, 0, DET_ARCHIVE, "RAR archive" },
	{ "\xfd"
	  "7zXZ\0",
	  6, 0, DET_ARCHIVE, "xz archive" },
	{ "BZh", 3, 0, DET_ARCHIVE, "bzip2 archive" },
	{ "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 8, 0, DET_ARCHIVE,
	  "OLE container (MSI, old Office)" },
	{ "ustar", 5, 257, DET_ARCHIVE, "tar archive" },
};

/* Zip-based documents, not archives a user would unpack and run. */
static const char *const document_exts[] = {
	"docx", "xlsx", "pptx", "odt", "ods",   "odp",     "epub",
	"xlsm", "dotx", "potx", "key", "pages", "numbers", NULL,
};
static const char *const exe_exts[] = {
	"exe", "dll", "so",  "dylib", "scr", "msi", "com",
	"elf", "bin", "app", "jar",   "apk", "ipa", NULL,
};
static const char *const archive_exts[] = {
	"zip", "tar", "gz",  "tgz", "bz2", "xz",  "7z",  "rar", "cab",
	"dmg", "pkg", "deb", "rpm", "iso", "whl", "zst", "lz",  NULL,
};

static int whole_file(struct text *t, enum detector det, const char *what)
{
	int ri = t->sc->det_rule[det];

	if (ri < 0)
		return 0;
	return skit__scan_add_finding(t, &t->sc->rules[ri], CTX_FILE, 0, what,
	                              strlen(what), 0);
}

static int check_magic(struct text *t, bool binary)
{
	const char *base = strrchr(t->file, '/');

	base = base ? base + 1 : t->file;
	for (size_t i = 0; i < sizeof(magics) / sizeof(*magics); i++) {
		const struct magic *m = &magics[i];

		if (t->len < m->at + m->len ||
		    memcmp(t->data + m->at, m->bytes, m->len))
			continue;
		/* "MZ" and "BZh" also start ordinary words */
		if ((m->len <= 3 && !binary) ||
		    (m->det == DET_ARCHIVE && has_ext(base, document_exts)))
			continue;
		return whole_file(t, m->det, m->what);
	}
	if (has_ext(base, exe_exts))
		return whole_file(t, DET_EXECUTABLE, "executable by its name");
	if (has_ext(base, archive_exts))
		return whole_file(t, DET_ARCHIVE, "archive by its name");
	return 0;
}

static enum ctx file_kind(const char *file, const char *data, size_t len)
{
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (is_skill_md(file))
		return CTX_INSTRUCTION;
	if (!strncmp(file, "scripts/", 8) || has_ext(base, script_exts) ||
	    (len > 2 && data[0] == '#' && data[1] == '!'))
		return CTX_SCRIPT;
	if (has_ext(base, markdown_exts) || has_ext(base, doc_exts))
		return CTX_DOC;
	return CTX_DATA;
}

/* Extensions of data no program runs: text that is code here is a
 * polyglot, made to pass for data. */
static const char *const inert_exts[] = {
	"json", "png", "jpg",  "jpeg",  "gif", "ico", "webp",
	"bmp",  "pdf", "woff", "ttf",   "otf", "mp3", "mp4",
	"wav",  "csv", "svgz", "woff2", NULL,
};

static bool valid_json(const char *data, size_t len)
{
	json_t *j = json_loadb(data, len, 0, NULL);

	json_decref(j);
	return j != NULL;
}

/*
 * A file whose name says inert data but whose text is code: a "#!" line,
 * or the `code` signal (rules that recognise statements) in a JSON file
 * that does not parse as JSON, or in an image or font at all.
 */
static bool polyglot(struct text *t, enum ctx kind)
{
	const char *base = strrchr(t->file, '/');
	skit_scanner *sc = t->sc;
	int code = -1;

	base = base ? base + 1 : t->file;
	if (!has_ext(base, inert_exts) || sc->det_rule[DET_POLYGLOT] < 0)
		return false;
	if (kind == CTX_SCRIPT)
		return t->len > 2 && t->data[0] == '#' && t->data[1] == '!';
	for (size_t i = 0; i < sc->nsignals; i++)
		if (!strcmp(sc->signal_names[i], "code"))
			code = (int)i;
	if (code < 0 || !(sc->sig & (1u << code)))
		return false;
	return !has_ext(base, (const char *const[]){ "json", NULL }) ||
	       !valid_json(t->data, t->len);
}

int skit_scan_buffer(skit_scanner *sc, skit_scan_report *rep, const char *skill,
                     const char *file, const char *data, size_t len,
                     skit_error *err)
{
	struct text t;
	enum ctx kind;
	bool binary;
	int rc;

	memset(&t, 0, sizeof(t));
	t.sc = sc;
	t.rep = rep;
	t.skill = skill;
	t.file = file;
	t.data = data;
	t.len = len;
	rep->files++;
	rep->bytes += len;
	sc->sig = 0;
	sc->work = 0;
	sc->over = false;
	memset(sc->hits, 0, sc->nrules * sizeof(*sc->hits));
	binary =
	        memchr(data, '\0', len < TEXT_SNIFF ? len : TEXT_SNIFF) != NULL;
	rc = check_magic(&t, binary);
	if (!rc && !binary) {
		kind = file_kind(file, data, len);
		rc = skit__scan_text(&t, kind);
		if (!rc && polyglot(&t, kind)) {
			/* a data file that is code: said, and read as code */
			rc = whole_file(&t, DET_POLYGLOT,
			                "a data file that holds code");
			if (!rc && kind == CTX_DATA) {
				kind = CTX_SCRIPT;
				rc = skit__scan_text(&t, kind);
			}
		}
		if (!rc)
			rc = skit__scan_combine(&t, kind);
	}
	if (!rc && sc->over)
		rc = whole_file(&t, DET_BUDGET,
		                "the scan's work budget ran out: the rest of "
		                "this file was not scanned");
	return rc ? skit__error_code(err, rc) : 0;
}

struct walk {
	skit_scanner *sc;
	skit_scan_report *rep;
	const char *skill;
	size_t files;
	bool spent; /* the skill's work budget ran out, and that was said */
	struct skitx_buf rel;
	struct skitx_buf data;
};

static int walk_dir(struct walk *w, int dfd, int depth, skit_error *err);

static int walk_entry(struct walk *w, int dfd, const char *name, int depth,
                      skit_error *err)
{
	size_t keep = skitx_buf_len(&w->rel);
	struct stat st;
	struct text t;
	int rc = 0, fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* gone since readdir */
	if (keep && skitx_buf_putc(&w->rel, '/'))
		return skit__error_oom(err);
	if (skitx_buf_puts(&w->rel, name))
		return skit__error_oom(err);
	memset(&t, 0, sizeof(t));
	t.sc = w->sc;
	t.rep = w->rep;
	t.skill = w->skill;
	t.file = skitx_buf_cstr(&w->rel);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

		target[n > 0 ? n : 0] = '\0';
		rc = whole_file(&t, DET_SYMLINK, target);
	} else if (S_ISDIR(st.st_mode)) {
		if (strcmp(name, ".git") && depth >= DEPTH_MAX) {
			/* what is not read is said, never skipped quietly */
			rc = whole_file(&t, DET_TOO_LARGE,
			                "a folder 16 levels deep: not scanned");
		} else if (strcmp(name, ".git")) {
			fd = openat(dfd, name,
			            O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                    O_CLOEXEC);
			if (fd >= 0)
				rc = walk_dir(w, fd, depth + 1, err);
		}
	} else if (S_ISREG(st.st_mode)) {
		if (st.st_mode & (S_ISUID | S_ISGID))
			rc = whole_file(&t, DET_SETUID,
			                st.st_mode & S_ISUID ? "setuid"
			                                     : "setgid");
		if (rc) {
			/* out of memory: reported below */
		} else if (++w->files > FILES_MAX) {
			if (w->files == FILES_MAX + 1)
				rc = whole_file(&t, DET_TOO_LARGE,
				                "over 10,000 files: this one "
				                "and the rest not scanned");
		} else if (st.st_size > (off_t)FILE_MAX) {
			rc = whole_file(&t, DET_TOO_LARGE, "over 16 MiB");
		} else if (w->sc->skill_work > SKILL_WORK_MAX) {
			/* what is not read is said, once, never skipped
			 * quietly */
			if (!w->spent)
				rc = whole_file(
				        &t, DET_BUDGET,
				        "the skill's work budget ran out: "
				        "this file and the rest were not "
				        "scanned");
			w->spent = true;
		} else {
			enum skitx_fs_why why;

			fd = skitx_fs_open_regular(dfd, name, &st, &why);
			if (fd >= 0) {
				skitx_buf_clear(&w->data);
				rc = skitx_fs_read_fd(fd, &w->data, FILE_MAX);
				close(fd);
				if (rc == SKIT_ETOOBIG)
					rc = whole_file(&t, DET_TOO_LARGE,
					                "over 16 MiB");
				else if (!rc) {
					rc = skit_scan_buffer(
					        w->sc, w->rep, w->skill,
					        skitx_buf_cstr(&w->rel),
					        skitx_buf_cstr(&w->data),
					        skitx_buf_len(&w->data), err);
					/* text counts its work; a byte only
					 * read (a binary file: magic bytes)
					 * a sixteenth, so large assets do not
					 * crowd out the scripts */
					w->sc->skill_work +=
					        w->sc->work +
					        skitx_buf_len(&w->data) / 16;
				} else
					rc = 0; /* unreadable: nothing to see */
			}
		}
	}
	skitx_buf_truncate(&w->rel, keep);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries in name order, so findings do not depend on the file system. */
static int walk_dir(struct walk *w, int dfd, int depth, skit_error *err)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	struct skitx_vec names = SKITX_VEC_INIT;
	size_t i;
	char *nm;
	int rc = 0;

	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		nm = skitx_strdup(de->d_name);
		if (!nm || skitx_vec_push(&names, nm)) {
			skitx_free(nm);
			rc = skit__error_oom(err);
			break;
		}
	}
	if (!rc && names.len > 1)
		qsort(names.items, names.len, sizeof(*names.items), name_cmp);
	skitx_vec_foreach (&names, i, nm) {
		if (!rc)
			rc = walk_entry(w, dirfd(d), nm, depth, err);
		skitx_free(nm);
	}
	skitx_vec_release(&names);
	closedir(d);
	return rc;
}

int skit_scan_path(skit_scanner *sc, skit_scan_report *rep, const char *dir,
                   skit_error *err)
{
	struct walk w;
	struct stat st;
	int fd, rc;

	if (lstat(dir, &st) < 0)
		return skit__error_set(
		        err, errno == ENOENT ? SKIT_ENOTFOUND : SKIT_EIO, 0,
		        "%.200s: %s", dir, strerror(errno));
	memset(&w, 0, sizeof(w));
	w.sc = sc;
	w.rep = rep;
	w.skill = dir;
	sc->skill_work = 0;
	skitx_buf_init(&w.rel, PATH_MAX);
	skitx_buf_init(&w.data, FILE_MAX);
	if (S_ISDIR(st.st_mode)) {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return skit__error_set(err, SKIT_EIO, 0, "%.200s: %s",
			                       dir, strerror(errno));
		rc = walk_dir(&w, fd, 0, err);
	} else {
		char *parent = skitx_path_dirname(dir);
		const char *base = skitx_path_name(dir, NULL);

		if (!parent)
			return skit__error_oom(err);
		w.skill = parent;
		fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = fd < 0 ? skit__error_set(err, SKIT_EIO, 0, "%.200s: %s",
		                              parent, strerror(errno))
		            : walk_entry(&w, fd, base, 0, err);
		if (fd >= 0)
			close(fd);
		/* findings copied the label: the parent can go */
		skitx_free(parent);
	}
	skitx_buf_release(&w.rel);
	skitx_buf_release(&w.data);
	return rc;
}

/* ---- reports ---------------------------------------------------------- */

int skit_scan_report_new(skit_scan_report **out, skit_error *err)
{
	skit_scan_report *rep = skitx_calloc(1, sizeof(*rep));

	*out = NULL;
	if (!rep)
		return skit__error_oom(err);
	skitx_pool_init(&rep->pool, 0);
	*out = rep;
	return 0;
}

static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c = strcmp(x->pub.skill, y->pub.skill);

	if (!c)
		c = strcmp(x->pub.file, y->pub.file);
	if (!c && x->pub.line != y->pub.line)
		c = x->pub.line < y->pub.line ? -1 : 1;
	if (!c)
		c = strcmp(x->pub.rule, y->pub.rule);
	if (!c && x->seq != y->seq)
		c = x->seq < y->seq ? -1 : 1;
	return c;
}

/* Sort, and keep one finding per rule, file and line (the first). */
static void report_sort(skit_scan_report *rep)
{
	size_t w = 0;

	if (rep->sorted)
		return;
	if (rep->n > 1)
		qsort(rep->f, rep->n, sizeof(*rep->f), finding_cmp);
	for (size_t i = 0; i < rep->n; i++) {
		if (w &&
		    !strcmp(rep->f[w - 1].pub.skill, rep->f[i].pub.skill) &&
		    !strcmp(rep->f[w - 1].pub.file, rep->f[i].pub.file) &&
		    rep->f[w - 1].pub.line == rep->f[i].pub.line &&
		    rep->f[w - 1].pub.rule == rep->f[i].pub.rule)
			continue;
		rep->f[w++] = rep->f[i];
	}
	rep->n = w;
	rep->sorted = true;
}

size_t skit_scan_report_count(const skit_scan_report *rep)
{
	report_sort((skit_scan_report *)rep);
	return rep->n;
}

const skit_scan_finding *skit_scan_report_get(const skit_scan_report *rep,
                                              size_t i)
{
	report_sort((skit_scan_report *)rep);
	return i < rep->n ? &rep->f[i].pub : NULL;
}

size_t skit_scan_report_files(const skit_scan_report *rep)
{
	return rep->files;
}

size_t skit_scan_report_bytes(const skit_scan_report *rep)
{
	return rep->bytes;
}

bool skit_scan_report_reaches(const skit_scan_report *rep, skit_scan_severity s)
{
	for (size_t i = 0; i < rep->n; i++)
		if (rep->f[i].pub.severity >= s)
			return true;
	return false;
}

void skit_scan_report_free(skit_scan_report *rep)
{
	if (!rep)
		return;
	skitx_free(rep->f);
	skitx_pool_release(&rep->pool);
	skitx_free(rep);
}
