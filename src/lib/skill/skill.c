/* SPDX-License-Identifier: MIT */
/*
 * skill.c - load one skill folder: find SKILL.md, read its frontmatter
 * (and nothing past the block holding the closing fence), parse the YAML,
 * and check the spec's rules the way the reference implementation does.
 *
 * Reading is progressive: skit_skill_load() touches level 1 only. The body
 * is read by skit_skill_body() on demand, and the lints that need the body
 * or the folder's files run only with SKIT_SKILL_LINT (lint.c).
 *
 * Where skit deliberately differs from the reference (docs/format.md): a
 * UTF-8 BOM is skipped, fences are whole lines, invalid UTF-8 and NUL bytes
 * are clean errors, and a symbolic link named SKILL.md is refused.
 */
#include "common.h"

#include <fcntl.h>
#include <unistd.h>

#include "skit/skill.h"
#include "skit/policy.h"
#include "lib/core/error.h"
#include "lib/skill/skill_int.h"
#include "lib/skill/yaml.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

#define READ_BLOCK 4096
/*
 * The first read: the frontmatter is all a load reads, and 99% of real
 * ones are under 1.7 KB (docs/bench.md), so a first read of half a block
 * copies half as much for nearly every skill; a longer one takes a
 * second read.
 */
#define FIRST_READ 2048
/* The longest a closing fence line can be: "---" and "\r\n". */
#define FENCE_LINE_MAX          5
#define NAME_MAX_CHARS          64
#define DESCRIPTION_MAX_CHARS   1024
#define COMPATIBILITY_MAX_CHARS 500

/* The spec's fields, sorted as Python's sorted() prints them. */
static const char *const allowed_fields[] = {
	"allowed-tools", "compatibility", "description",
	"license",       "metadata",      "name",
};

/*
 * Fields outside the spec that lenient loads know: the four skit honours
 * at run time (docs/format.md) and those other clients use. Known fields
 * draw no warning; `skit validate` without --lenient still rejects them,
 * as the reference does.
 */
static const char *const client_fields[] = {
	"disable-model-invocation",
	"user-invocable",
	"argument-hint",
	"when_to_use",
	"model",
	"effort",
	"context",
	"agent",
	"hooks",
	"paths",
	"disallowed-tools",
	"version",
	"author",
	"tags",
};

int skit__skill_diag(struct skit_skill *s, skit_severity sev, const char *code,
                     const char *path, unsigned int line, unsigned int col,
                     const char *fmt, ...)
{
	skit_diag *d;
	va_list ap;
	char *msg;
	int n;

	if (s->ndiags == s->diag_alloc) {
		size_t na = s->diag_alloc ? s->diag_alloc * 2 : 8;
		skit_diag *p = skitx_realloc(s->diags, na * sizeof(*p));
		if (!p)
			return SKIT_ENOMEM;
		s->diags = p;
		s->diag_alloc = na;
	}
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return SKIT_EINVALID;
	msg = skitx_pool_alloc(&s->pool, (size_t)n + 1);
	if (!msg)
		return SKIT_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);

	d = &s->diags[s->ndiags++];
	d->severity = sev;
	d->code = code;
	d->message = msg;
	d->path = path ? path : (s->file ? s->file : s->dir);
	d->line = line;
	d->column = col;
	return 0;
}

/* A fatal diagnostic: reading or parsing stops here. */
static int fatal(struct skit_skill *s, const char *code, unsigned int line,
                 unsigned int col, const char *fmt, ...) SKIT_PRINTF(5, 6);

static int fatal(struct skit_skill *s, const char *code, unsigned int line,
                 unsigned int col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int error;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error = skit__skill_diag(s, SKIT_SEVERITY_ERROR, code, NULL, line, col,
	                         "%s", msg);
	if (error < 0)
		return error;
	s->fatal = s->diags[s->ndiags - 1].message;
	return 0;
}

/*
 * Whether skitx_path_clean() would give `p` back as it is: not empty, no
 * empty or "." component, no trailing slash (but "/"). A scan's paths
 * always are, and need no copy to find it out.
 */
static bool path_is_clean(const char *p)
{
	size_t i = 0;

	if (!*p)
		return false;
	for (; p[i]; i++) {
		if (p[i] == '/' && p[i + 1] == '/')
			return false;
		if (p[i] == '.' && (!i || p[i - 1] == '/') &&
		    (p[i + 1] == '/' || !p[i + 1]))
			return false;
	}
	return i == 1 || p[i - 1] != '/';
}

/* skitx_path_clean() copied into the skill's pool. */
static char *pathlib_str(struct skitx_pool *pool, const char *path)
{
	char *clean, *out;

	if (path_is_clean(path))
		return skitx_pool_strdup(pool, path);
	clean = skitx_path_clean(path);

	if (!clean)
		return NULL;
	out = skitx_pool_strdup(pool, clean);
	skitx_free(clean);
	return out;
}

static bool ascii_ieq(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);

	if (alen != blen)
		return false;
	for (size_t i = 0; i < alen; i++) {
		char x = a[i], y = b[i];
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (x != y)
			return false;
	}
	return true;
}

/* 1-based line and column of byte `off` in `text`. */
static void offset_position(const char *text, size_t off, unsigned int *line,
                            unsigned int *col)
{
	unsigned int l = 1, c = 1;

	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n' ||
		    (text[i] == '\r' &&
		     (i + 1 >= off || text[i + 1] != '\n'))) {
			l++;
			c = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*col = c;
}

/*
 * Find the end of the line starting at `p`: returns the length of its
 * content and sets `*next` past its terminator ("\n", "\r\n" or a lone
 * "\r"). Returns SIZE_MAX when the line is not complete yet (no terminator
 * and not at end of file, or a "\r" that may be followed by "\n").
 */
static size_t next_line(const char *p, const char *end, bool eof,
                        const char **next)
{
	const char *q = end, *nl, *cr;

	/* the first "\n" or "\r": two vectorised scans, not a byte loop */
	if (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		cr = memchr(p, '\r', (size_t)((nl ? nl : end) - p));
		q = cr ? cr : nl ? nl : end;
	}
	if (q == end) {
		if (!eof)
			return SIZE_MAX;
		*next = end;
		return (size_t)(q - p);
	}
	if (*q == '\r') {
		if (q + 1 == end && !eof)
			return SIZE_MAX;
		*next = (q + 1 < end && q[1] == '\n') ? q + 2 : q + 1;
	} else {
		*next = q + 1;
	}
	return (size_t)(q - p);
}

static bool is_opening_fence(const char *p, size_t len)
{
	if (len < 3 || memcmp(p, "---", 3))
		return false;
	for (size_t i = 3; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t')
			return false;
	return true;
}

/* Copy `len` bytes to `out`, turning "\r\n" and lone "\r" into "\n". */
static int normalize_newlines(struct skitx_buf *out, const char *p, size_t len)
{
	size_t i = 0, start = 0;
	int error;

	error = skitx_buf_grow(out, len);
	if (error < 0)
		return error;
	for (; i < len; i++) {
		const char *cr = memchr(p + i, '\r', len - i);

		if (!cr)
			break; /* the common case: no CR at all */
		i = (size_t)(cr - p);
		error = skitx_buf_add(out, p + start, i - start);
		if (!error)
			error = skitx_buf_putc(out, '\n');
		if (error < 0)
			return error;
		if (i + 1 < len && p[i + 1] == '\n')
			i++;
		start = i + 1;
	}
	return skitx_buf_add(out, p + start, len - start);
}

/* Report an encoding problem at byte `bad` of `raw`. */
static int encoding_error(struct skit_skill *s, const char *raw, size_t bad,
                          int kind)
{
	unsigned int line, col;

	offset_position(raw, bad, &line, &col);
	if (kind == 2)
		return fatal(s, "nul-byte", line, col,
		             "SKILL.md contains a NUL byte (byte offset %zu)",
		             bad);
	return fatal(s, "invalid-utf8", line, col,
	             "SKILL.md is not valid UTF-8 (byte offset %zu)", bad);
}

static int keep_body(struct skit_skill *s, const struct skitx_buf *raw,
                     skit_error *err);

/*
 * SKIT_SKILL_BODY: read the rest of SKILL.md from the descriptor that
 * gave the frontmatter, and keep the body from these same bytes. A second
 * open could meet another file (one renamed over it), whose body would
 * then go out under this frontmatter. A body that cannot be kept (invalid
 * UTF-8, a NUL) makes the skill invalid: nothing of it is to be shown.
 */
static int read_body(struct skit_skill *s, int fd, struct skitx_buf *raw,
                     bool eof)
{
	skit_error err = { 0 };
	int error = 0;

	if (!eof) {
		size_t before = raw->len;

		/* the cap is the file's: what was read counts against it */
		error = before > s->opts.max_file
		                ? SKIT_ETOOBIG
		                : skitx_fs_read_fd(fd, raw,
		                                   s->opts.max_file - before);
		s->bytes_read += raw->len - before;
		if (error == SKIT_ENOMEM)
			return error;
		if (error < 0)
			return fatal(s, "read-error", 0, 0,
			             "SKILL.md could not be read: %s",
			             skit_strerror(error));
	}
	error = keep_body(s, raw, &err);
	if (error == SKIT_ENOMEM)
		return error;
	if (error < 0)
		return fatal(s, "body-invalid", err.line, 0, "%s", err.message);
	return 0;
}

/*
 * Read SKILL.md up to the block that holds the closing fence, check the
 * fences and the encoding, and hand the normalised YAML to `yaml`. The
 * opening line must be "---" (trailing blanks allowed, after an optional
 * BOM); the closing line is the next line that is exactly "---".
 */
static int read_frontmatter(struct skit_skill *s, int fd, off_t size,
                            struct skitx_buf *yaml)
{
	struct skitx_buf raw = SKITX_BUF_INIT;
	size_t max = s->opts.max_frontmatter, pos = 0, yaml_start = 0;
	size_t yaml_end = 0, skip = 0, bad;
	unsigned int line = 0;
	bool eof = false, closed = false;
	int error = 0, kind;

	for (;;) {
		const char *p = raw.ptr + pos, *end = raw.ptr + raw.len, *next;
		ssize_t n;

		/* Consume every complete line read so far. */
		while (!closed) {
			size_t len = next_line(p, end, eof, &next);

			if (len == SIZE_MAX || p == end)
				break;
			if (++line == 1) {
				if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
					skip = 3;
					p += 3;
					len -= 3;
				}
				if (!is_opening_fence(p, len)) {
					error = fatal(
					        s, "frontmatter-missing", 1, 1,
					        "SKILL.md must start with "
					        "YAML frontmatter (---)");
					goto out;
				}
				yaml_start = (size_t)(next - raw.ptr);
			} else if (len == 3 && !memcmp(p, "---", 3)) {
				closed = true;
				yaml_end = (size_t)(p - raw.ptr);
				s->body_offset = (size_t)(next - raw.ptr);
				s->body_line = line + 1;
			}
			pos = (size_t)(next - raw.ptr);
			p = next;
		}
		/*
		 * The cap is on the frontmatter: the bytes from the start of
		 * the file (after a BOM) to its closing fence, whatever the
		 * read sizes. Every line consumed so far comes before the
		 * fence; so does the partial line after them, once it is too
		 * long to be a fence line ("---" and its line break).
		 */
		if ((closed                           ? yaml_end
		     : raw.len - pos > FENCE_LINE_MAX ? raw.len
		                                      : pos) -
		            skip >
		    max) {
			error = fatal(s, "frontmatter-too-big", 0, 0,
			              "SKILL.md frontmatter is larger than %zu "
			              "bytes",
			              max);
			goto out;
		}
		if (closed)
			break;
		if (eof) {
			if (line == 0)
				error = fatal(s, "frontmatter-missing", 1, 1,
				              "SKILL.md must start with YAML "
				              "frontmatter (---)");
			else
				error = fatal(s, "frontmatter-unclosed", 0, 0,
				              "SKILL.md frontmatter not "
				              "properly closed with ---");
			goto out;
		}
		error = skitx_buf_grow(&raw, READ_BLOCK);
		if (error < 0)
			goto out;
		n = read(fd, raw.ptr + raw.len,
		         raw.len ? READ_BLOCK : FIRST_READ);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error = fatal(s, "read-error", 0, 0,
			              "SKILL.md could not be read: %s",
			              strerror(errno));
			goto out;
		}
		raw.len += (size_t)n;
		raw.ptr[raw.len] = '\0';
		s->bytes_read += (size_t)n;
		/* fstat's size spares the read() that would return 0 */
		eof = n == 0 || (off_t)raw.len >= size;
	}

	kind = skitx_utf8_check(raw.ptr + skip, s->body_offset - skip, &bad);
	if (kind) {
		error = encoding_error(s, raw.ptr, bad + skip, kind);
		goto out;
	}
	error = normalize_newlines(yaml, raw.ptr + yaml_start,
	                           yaml_end - yaml_start);
	if (!error && (s->opts.flags & SKIT_SKILL_BODY))
		error = read_body(s, fd, &raw, eof);
out:
	skitx_buf_release(&raw);
	return error;
}

/* Open SKILL.md (or skill.md) in the folder; -1 with a fatal diag. */
static int open_skill_md(struct skit_skill *s, struct stat *st, int *fd_out)
{
	static const char *const names[] = { "SKILL.md", "skill.md" };
	enum skitx_fs_why why = SKITX_FS_MISSING;
	char *path = NULL;
	int fd = -1;

	*fd_out = -1;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(names); i++) {
		skitx_free(path);
		path = skitx_path_join(s->dir, names[i]);
		if (!path)
			return SKIT_ENOMEM;
		fd = skitx_fs_open_regular(AT_FDCWD, path, st, &why);
		if (fd >= 0 || why != SKITX_FS_MISSING) {
			if (i == 1)
				s->flags |= SKIT_SKILL_LOWERCASE_FILE;
			break;
		}
	}
	if (why == SKITX_FS_MISSING) {
		skitx_free(path);
		s->no_file = true;
		return fatal(s, "missing-skill-md", 0, 0,
		             "Missing required file: SKILL.md");
	}
	s->file = skitx_pool_strdup(&s->pool, path);
	skitx_free(path);
	if (!s->file) {
		if (fd >= 0)
			close(fd);
		return SKIT_ENOMEM;
	}
	if (fd < 0) {
		switch (why) {
		case SKITX_FS_SYMLINK:
			return fatal(s, "skill-md-symlink", 0, 0,
			             "SKILL.md is a symbolic link; skit does "
			             "not follow linked files");
		case SKITX_FS_DIRECTORY:
		case SKITX_FS_NOT_REGULAR:
			return fatal(s, "skill-md-not-file", 0, 0,
			             "SKILL.md %s", skitx_fs_why_text(why));
		default:
			return fatal(s, "read-error", 0, 0,
			             "SKILL.md could not be opened: %s",
			             strerror(errno));
		}
	}
	*fd_out = fd;
	return 0;
}

/* Position of a top-level key's line in SKILL.md (YAML line + 1). */
static void key_position(const struct skit_skill *s, const char *key,
                         unsigned int *line, unsigned int *col)
{
	const struct skit__ynode *root = s->root;

	*line = *col = 0;
	if (!root || root->kind != SKIT_YMAP)
		return;
	for (size_t i = 0; i < root->n; i++) {
		const struct skit__ynode *k = root->keys[i];
		if (!strcmp(k->value, key)) {
			*line = k->line + 1;
			*col = k->column;
			return;
		}
	}
}

static bool in_list(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, list[i]))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int check_fields(struct skit_skill *s)
{
	const struct skit__ynode *root = s->root;
	struct skitx_buf msg = SKITX_BUF_INIT;
	const char **extra = NULL;
	size_t nextra = 0;
	unsigned int line = 0, col = 0;
	bool lenient = s->opts.flags & SKIT_SKILL_LENIENT;
	int error = 0;

	extra = skitx_calloc(root->n, sizeof(*extra));
	if (!extra)
		return SKIT_ENOMEM;
	for (size_t i = 0; i < root->n; i++) {
		const struct skit__ynode *k = root->keys[i];

		if (in_list(k->value, allowed_fields,
		            SKIT_ARRAY_SIZE(allowed_fields)))
			continue;
		if (lenient) {
			if (in_list(k->value, client_fields,
			            SKIT_ARRAY_SIZE(client_fields)))
				continue;
			error = skit__skill_diag(
			        s, SKIT_SEVERITY_WARNING, "unknown-field", NULL,
			        k->line + 1, k->column,
			        "Unknown field '%s' is ignored", k->value);
			if (error < 0)
				goto out;
			continue;
		}
		if (!nextra) {
			line = k->line + 1;
			col = k->column;
		}
		extra[nextra++] = k->value;
	}
	if (!nextra)
		goto out;
	qsort(extra, nextra, sizeof(*extra), cmp_str);
	error = skitx_buf_puts(&msg, "Unexpected fields in frontmatter: ");
	for (size_t i = 0; !error && i < nextra; i++)
		error = skitx_buf_printf(&msg, "%s%s", i ? ", " : "", extra[i]);
	if (!error)
		error = skitx_buf_puts(&msg, ". Only [");
	for (size_t i = 0; !error && i < SKIT_ARRAY_SIZE(allowed_fields); i++)
		error = skitx_buf_printf(&msg, "%s'%s'", i ? ", " : "",
		                         allowed_fields[i]);
	if (!error)
		error = skitx_buf_puts(&msg, "] are allowed.");
	if (!error)
		error = skit__skill_diag(s, SKIT_SEVERITY_ERROR,
		                         "unknown-fields", NULL, line, col,
		                         "%s", msg.ptr);
out:
	skitx_free(extra);
	skitx_buf_release(&msg);
	return error;
}

/* The stripped text of a scalar into the pool; NULL on OOM. */
static const char *pool_strip(struct skit_skill *s, const char *v, size_t len,
                              size_t *out_len)
{
	size_t start, n = skitx_utf8_pystrip(v, len, &start);

	if (out_len)
		*out_len = n;
	return skitx_pool_strndup(&s->pool, v + start, n);
}

/*
 * The items of a list of strings joined by `sep` into `b`, within
 * brackets when `brackets`: 0, SKIT_EINVALID when an item is not a
 * string (`b` then empty), SKIT_ENOMEM.
 */
static int join_seq(const struct skit__ynode *seq, const char *sep,
                    bool brackets, struct skitx_buf *b)
{
	int rc = brackets ? skitx_buf_putc(b, '[') : 0;

	for (size_t i = 0; rc >= 0 && i < seq->n; i++) {
		if (seq->items[i]->kind != SKIT_YSCALAR) {
			skitx_buf_release(b);
			return SKIT_EINVALID;
		}
		if (i)
			rc = skitx_buf_puts(b, sep);
		if (rc >= 0)
			rc = skitx_buf_add(b, seq->items[i]->value,
			                   seq->items[i]->len);
	}
	if (rc >= 0 && brackets)
		rc = skitx_buf_putc(b, ']');
	if (rc < 0) {
		skitx_buf_release(b);
		return SKIT_ENOMEM;
	}
	return 0;
}

static bool hyphen_edge(const char *name, size_t len)
{
	return len && (name[0] == '-' || name[len - 1] == '-');
}

static bool all_alnum_or_hyphen(const char *name, size_t len)
{
	size_t i = 0;
	int32_t cp;

	while (i < len) {
		i += skitx_utf8_decode(name + i, len - i, &cp);
		if (cp != '-' && !skitx_utf8_isalnum(cp))
			return false;
	}
	return true;
}

bool skit_skill_name_ok(const char *name)
{
	size_t len = strlen(name);
	bool ok;
	char *nf;

	if (!len || skitx_utf8_check(name, len, NULL))
		return false;
	nf = skitx_utf8_nfkc(name, len);
	if (!nf)
		return false;
	len = strlen(nf);
	ok = skitx_utf8_count(nf, len) <= NAME_MAX_CHARS &&
	     skitx_utf8_is_lower(nf, len) && !hyphen_edge(nf, len) &&
	     !strstr(nf, "--") && all_alnum_or_hyphen(nf, len);
	skitx_free(nf);
	return ok;
}

#define ERR(code, ...)                                                    \
 do {                                                                     \
  error = skit__skill_diag(s, SKIT_SEVERITY_ERROR, code, NULL, line, col, \
		           __VA_ARGS__);                                  \
  if (error < 0)                                                          \
   goto out;                                                              \
 } while (0)

/*
 * A rule that conformance enforces and lenient loads relax: an error in
 * `skit validate`, a warning (same code, same words) when loading.
 */
#define RULE(code, ...)                                         \
 do {                                                           \
  error = skit__skill_diag(s,                                   \
		           (s->opts.flags & SKIT_SKILL_LENIENT) \
		                   ? SKIT_SEVERITY_WARNING      \
		                   : SKIT_SEVERITY_ERROR,       \
		           code, NULL, line, col, __VA_ARGS__); \
  if (error < 0)                                                \
   goto out;                                                    \
 } while (0)

/*
 * The name rules. A lenient load keeps a skill whose name is missing,
 * breaks the character rules or differs from its folder (warnings, and
 * SKIT_SKILL_NAME_INVALID when the registry must know it by its folder
 * name instead: docs/format.md, "Which name a skill is known by").
 */
static int check_name(struct skit_skill *s)
{
	const struct skit__ynode *node = skit__yaml_get(s->root, "name");
	unsigned int line, col;
	char *nf = NULL, *dir_nf = NULL;
	size_t rawlen, len;
	int error = 0;

	key_position(s, "name", &line, &col);
	if (!node) {
		s->flags |= SKIT_SKILL_NAME_INVALID;
		RULE("name-missing", "Missing required field in frontmatter: "
		                     "name");
		goto out;
	}
	if (node->kind == SKIT_YSCALAR) {
		s->name_raw = pool_strip(s, node->value, node->len, &rawlen);
		if (!s->name_raw)
			return SKIT_ENOMEM;
	}
	if (node->kind != SKIT_YSCALAR || !rawlen) {
		s->name_raw = NULL;
		s->flags |= SKIT_SKILL_NAME_INVALID;
		RULE("name-empty", "Field 'name' must be a non-empty string");
		goto out;
	}
	nf = skitx_utf8_nfkc(s->name_raw, rawlen);
	if (!nf)
		return SKIT_ENOMEM;
	len = strlen(nf);
	s->name = skitx_pool_strndup(&s->pool, nf, len);
	if (!s->name) {
		error = SKIT_ENOMEM;
		goto out;
	}
	if (skitx_utf8_count(nf, len) > NAME_MAX_CHARS) {
		s->flags |= SKIT_SKILL_NAME_INVALID;
		RULE("name-too-long",
		     "Skill name '%s' exceeds %d character limit (%zu chars)",
		     nf, NAME_MAX_CHARS, skitx_utf8_count(nf, len));
	}
	if (!skitx_utf8_is_lower(nf, len)) {
		s->flags |= SKIT_SKILL_NAME_INVALID;
		RULE("name-not-lowercase", "Skill name '%s' must be lowercase",
		     nf);
	}
	if (hyphen_edge(nf, len)) {
		s->flags |= SKIT_SKILL_NAME_INVALID;
		RULE("name-hyphen-edge",
		     "Skill name cannot start or end with a hyphen");
	}
	if (strstr(nf, "--")) {
		s->flags |= SKIT_SKILL_NAME_INVALID;
		RULE("name-double-hyphen",
		     "Skill name cannot contain consecutive hyphens");
	}
	if (!all_alnum_or_hyphen(nf, len)) {
		s->flags |= SKIT_SKILL_NAME_INVALID;
		RULE("name-invalid-chars",
		     "Skill name '%s' contains invalid characters. Only "
		     "letters, digits, and hyphens are allowed.",
		     nf);
	}
	dir_nf = skitx_utf8_nfkc(s->dir_name, strlen(s->dir_name));
	if (!dir_nf) {
		error = SKIT_ENOMEM;
		goto out;
	}
	s->name_mismatch = strcmp(dir_nf, nf) != 0;
	if (s->name_mismatch)
		RULE("name-dir-mismatch",
		     "Directory name '%s' must match skill name '%s'",
		     s->dir_name, nf);
out:
	skitx_free(nf);
	skitx_free(dir_nf);
	return error;
}

static int check_description(struct skit_skill *s)
{
	const struct skit__ynode *node = skit__yaml_get(s->root, "description");
	unsigned int line, col;
	size_t len, chars;
	int error = 0;

	key_position(s, "description", &line, &col);
	if (!node) {
		ERR("description-missing",
		    "Missing required field in frontmatter: description");
		goto out;
	}
	if (node->kind == SKIT_YSCALAR) {
		s->description = pool_strip(s, node->value, node->len, &len);
		if (!s->description)
			return SKIT_ENOMEM;
	}
	if (node->kind != SKIT_YSCALAR || !len) {
		s->description = NULL;
		ERR("description-empty",
		    "Field 'description' must be a non-empty string");
		goto out;
	}
	chars = skitx_utf8_count(node->value, node->len);
	if (chars > DESCRIPTION_MAX_CHARS)
		RULE("description-too-long",
		     "Description exceeds %d character limit (%zu chars)",
		     DESCRIPTION_MAX_CHARS, chars);
out:
	return error;
}

static int check_compatibility(struct skit_skill *s)
{
	const struct skit__ynode *node =
	        skit__yaml_get(s->root, "compatibility");
	unsigned int line, col;
	size_t chars;
	int error = 0;

	if (!node)
		return 0;
	key_position(s, "compatibility", &line, &col);
	if (node->kind != SKIT_YSCALAR) {
		RULE("compatibility-not-string",
		     "Field 'compatibility' must be a string");
		goto out;
	}
	chars = skitx_utf8_count(node->value, node->len);
	if (chars > COMPATIBILITY_MAX_CHARS)
		RULE("compatibility-too-long",
		     "Compatibility exceeds %d character limit (%zu chars)",
		     COMPATIBILITY_MAX_CHARS, chars);
out:
	return error;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "true", "yes" };
	static const char *const no[] = { "false", "no" };
	size_t len = strlen(v);

	for (size_t i = 0; i < 2; i++) {
		if (ascii_ieq(v, len, yes[i])) {
			*out = true;
			return 0;
		}
		if (ascii_ieq(v, len, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

#define WARN(code, ...)                                                     \
 do {                                                                       \
  error = skit__skill_diag(s, SKIT_SEVERITY_WARNING, code, NULL, line, col, \
		           __VA_ARGS__);                                    \
  if (error < 0)                                                            \
   goto out;                                                                \
 } while (0)

/*
 * `node`, a YAML list of scalars, joined with single spaces into the
 * skill's pool (*out). 1 when an item is not a scalar (*out untouched);
 * SKIT_ENOMEM.
 */
static int join_list(struct skit_skill *s, const struct skit__ynode *node,
                     const char **out)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	for (size_t i = 0; i < node->n; i++) {
		const struct skit__ynode *it = node->items[i];

		if (it->kind != SKIT_YSCALAR) {
			skitx_buf_release(&b);
			return 1;
		}
		if ((i && skitx_buf_putc(&b, ' ') < 0) ||
		    skitx_buf_add(&b, it->value, it->len) < 0) {
			skitx_buf_release(&b);
			return SKIT_ENOMEM;
		}
	}
	*out = skitx_pool_strndup(&s->pool, b.ptr, b.len);
	skitx_buf_release(&b);
	return *out ? 0 : SKIT_ENOMEM;
}

/*
 * The lints of a tools value, `allowed-tools` or (`disallowed`)
 * `disallowed-tools`, parsed as the agent parses it: a malformed pattern
 * (the agent then grants nothing for the skill) and each unknown name,
 * at the field's line and column. 0, or what skit__skill_diag() failed
 * with.
 */
static int lint_tools(struct skit_skill *s, bool disallowed, const char *text,
                      unsigned int line, unsigned int col)
{
	skit_allowed_tools *at = NULL;
	skit_error perr = { 0 };
	const skit_diag *d;
	size_t nd = 0;
	int rc, error = 0;

	if (disallowed) {
		rc = skit_allowed_tools_new(&at, NULL, NULL);
		if (!rc)
			rc = skit_allowed_tools_disallow(at, text, &perr);
	} else {
		rc = skit_allowed_tools_parse(&at, NULL, text, &perr);
	}
	if (rc == SKIT_ENOMEM) {
		skit_allowed_tools_free(at);
		return SKIT_ENOMEM;
	}
	if (rc < 0)
		error = skit__skill_diag(
		        s, SKIT_SEVERITY_WARNING,
		        disallowed ? "disallowed-tools-pattern"
		                   : "allowed-tools-pattern",
		        NULL, line, col,
		        "%s (column %u); skit treats the skill as granting no "
		        "tool",
		        perr.message, perr.column);
	d = at ? skit_allowed_tools_diags(at, &nd) : NULL;
	for (size_t i = 0; !error && i < nd; i++)
		error = skit__skill_diag(s, SKIT_SEVERITY_WARNING, d[i].code,
		                         NULL, line, col, "%s", d[i].message);
	skit_allowed_tools_free(at);
	return error;
}

/*
 * The fields skit uses at run time. In lenient loads a wrong type is an
 * error: a skill must never become more visible or more privileged because
 * a field failed to parse (HOSTILE C10).
 */
static int check_runtime_fields(struct skit_skill *s)
{
	static const struct {
		const char *key;
		unsigned int flag_when_true, flag_when_false;
	} bools[] = {
		{ "disable-model-invocation",
		  SKIT_SKILL_DISABLE_MODEL_INVOCATION, 0 },
		{ "user-invocable", 0, SKIT_SKILL_NOT_USER_INVOCABLE },
	};
	bool lenient = s->opts.flags & SKIT_SKILL_LENIENT;
	const struct skit__ynode *node;
	unsigned int line, col;
	int error = 0;

	for (size_t i = 0; lenient && i < SKIT_ARRAY_SIZE(bools); i++) {
		bool v;

		node = skit__yaml_get(s->root, bools[i].key);
		if (!node)
			continue;
		key_position(s, bools[i].key, &line, &col);
		if (node->kind != SKIT_YSCALAR || parse_bool(node->value, &v)) {
			ERR("field-not-boolean",
			    "Field '%s' must be true, false, yes or no",
			    bools[i].key);
			continue;
		}
		s->flags |=
		        v ? bools[i].flag_when_true : bools[i].flag_when_false;
	}
	if (lenient) {
		static const char *const strings[] = { "when_to_use",
			                               "argument-hint" };
		for (size_t i = 0; i < SKIT_ARRAY_SIZE(strings); i++) {
			const char *text;
			size_t text_len;
			struct skitx_buf b = SKITX_BUF_INIT;
			bool joined = false;

			node = skit__yaml_get(s->root, strings[i]);
			if (!node)
				continue;
			key_position(s, strings[i], &line, &col);
			/*
			 * `argument-hint: [file]` unquoted is a YAML list of
			 * one string; clients show it as written. A list of
			 * strings is joined back: "[a, b]" for the hint,
			 * "a; b" for when_to_use.
			 */
			if (node->kind == SKIT_YSEQ) {
				int rc = join_seq(node, i ? ", " : "; ", i != 0,
				                  &b);

				if (rc == SKIT_ENOMEM)
					return rc;
				joined = rc == 0;
				if (joined) {
					WARN("field-list-joined",
					     "Field '%s' should be a string; "
					     "the YAML list was joined",
					     strings[i]);
				}
			}
			if (node->kind != SKIT_YSCALAR && !joined) {
				ERR("field-not-string",
				    "Field '%s' must be a string", strings[i]);
				continue;
			}
			text = joined ? b.ptr : node->value;
			text_len = joined ? b.len : node->len;
			if (i == 0)
				s->when_to_use =
				        pool_strip(s, text, text_len, NULL);
			else
				s->argument_hint =
				        pool_strip(s, text, text_len, NULL);
			skitx_buf_release(&b);
			if (!(i ? s->argument_hint : s->when_to_use))
				return SKIT_ENOMEM;
		}
	}

	node = skit__yaml_get(s->root, "allowed-tools");
	if (node) {
		key_position(s, "allowed-tools", &line, &col);
		if (node->kind == SKIT_YSCALAR) {
			s->allowed_tools = node->value;
		} else if (node->kind == SKIT_YSEQ) {
			int j = join_list(s, node, &s->allowed_tools);
			bool scalars = j == 0;

			if (j < 0)
				return j;
			if (scalars) {
				WARN("allowed-tools-list",
				     "Field 'allowed-tools' should be a "
				     "space-separated string; the YAML list "
				     "was joined");
			}
			if (!scalars && lenient)
				ERR("allowed-tools-type",
				    "Field 'allowed-tools' must be a "
				    "space-separated string");
			else if (!scalars)
				WARN("allowed-tools-type",
				     "Field 'allowed-tools' should be a "
				     "space-separated string");
		} else if (lenient) {
			ERR("allowed-tools-type",
			    "Field 'allowed-tools' must "
			    "be a space-separated string");
		} else {
			WARN("allowed-tools-type",
			     "Field 'allowed-tools' should be a "
			     "space-separated string");
		}
		if (s->allowed_tools) {
			error = lint_tools(s, false, s->allowed_tools, line,
			                   col);
			if (error < 0)
				goto out;
		}
	}

	/* Claude Code's disallowed-tools: a list (its usual form) or a
	 * string of patterns. Checked as allowed-tools is. */
	node = skit__yaml_get(s->root, "disallowed-tools");
	if (node) {
		int j = 1;

		key_position(s, "disallowed-tools", &line, &col);
		if (node->kind == SKIT_YSCALAR) {
			s->disallowed_tools = node->value;
			j = 0;
		} else if (node->kind == SKIT_YSEQ) {
			j = join_list(s, node, &s->disallowed_tools);
			if (j < 0)
				return j;
		}
		if (j)
			WARN("disallowed-tools-type",
			     "Field 'disallowed-tools' should be a list of "
			     "tool names or a string of them; skit forbids "
			     "nothing for it");
		if (s->disallowed_tools) {
			error = lint_tools(s, true, s->disallowed_tools, line,
			                   col);
			if (error < 0)
				goto out;
		}
	}

	node = skit__yaml_get(s->root, "license");
	if (node && node->kind != SKIT_YSCALAR) {
		key_position(s, "license", &line, &col);
		WARN("license-not-string",
		     "Field 'license' should be a string");
	}

	node = skit__yaml_get(s->root, "metadata");
	if (node) {
		key_position(s, "metadata", &line, &col);
		if (node->kind == SKIT_YMAP) {
			s->meta_keys = skitx_pool_alloc(
			        &s->pool, node->n * sizeof(*s->meta_keys));
			s->meta_values = skitx_pool_alloc(
			        &s->pool, node->n * sizeof(*s->meta_values));
			if (!s->meta_keys || !s->meta_values)
				return SKIT_ENOMEM;
			for (size_t i = 0; i < node->n; i++) {
				const struct skit__ynode *v = node->items[i];
				if (v->kind != SKIT_YSCALAR) {
					line = v->line + 1;
					col = v->column;
					WARN("metadata-not-string",
					     "metadata '%s' should be a string "
					     "(the spec maps strings to "
					     "strings)",
					     node->keys[i]->value);
					continue;
				}
				s->meta_keys[s->meta_count] =
				        node->keys[i]->value;
				s->meta_values[s->meta_count++] = v->value;
			}
		} else if (node->kind == SKIT_YSEQ || node->len) {
			WARN("metadata-not-mapping",
			     "Field 'metadata' should be a mapping of strings");
		}
	}
out:
	return error;
}

/* Hidden and bidirectional characters in the name and description. */
static int check_hidden(struct skit_skill *s)
{
	static const char *const keys[] = { "name", "description" };
	int error = 0;

	for (size_t k = 0; k < SKIT_ARRAY_SIZE(keys); k++) {
		const struct skit__ynode *node =
		        skit__yaml_get(s->root, keys[k]);
		unsigned int line, col;
		size_t i = 0;
		int32_t cp;

		if (!node || node->kind != SKIT_YSCALAR)
			continue;
		while (i < node->len) {
			/* ASCII (the common case) needs no decoding */
			if ((unsigned char)node->value[i] < 0x80)
				cp = (unsigned char)node->value[i++];
			else
				i += skitx_utf8_decode(node->value + i,
				                       node->len - i, &cp);
			if (cp == '\n' || cp == '\t' ||
			    (cp < 0x80 ? cp >= 0x20 && cp != 0x7F
			               : !skitx_utf8_is_hidden(cp)))
				continue;
			key_position(s, keys[k], &line, &col);
			WARN("hidden-unicode",
			     "Field '%s' contains the invisible or "
			     "bidirectional character U+%04X",
			     keys[k], (unsigned int)cp);
			break;
		}
	}
out:
	return error;
}

/* One warning per top-level field written in flow style (lenient). */
static int check_flow(struct skit_skill *s)
{
	const struct skit__ynode *root = s->root;
	unsigned int line = 2, col = 1;
	int error = 0;

	if (root->flow)
		WARN("yaml-flow", "The frontmatter: %s",
		     SKIT_YFLOW_MESSAGE(root->flow == SKIT_YFLOW_MAP));
	for (size_t i = 0; i < root->n; i++) {
		const struct skit__ynode *k = root->keys[i];

		if (!k->flow)
			continue;
		line = k->line + 1;
		col = k->column;
		WARN("yaml-flow", "Field '%s': %s", k->value,
		     SKIT_YFLOW_MESSAGE(k->flow == SKIT_YFLOW_MAP));
	}
out:
	return error;
}

static int validate(struct skit_skill *s)
{
	int error;

	if (!s->root || s->root->kind != SKIT_YMAP)
		return fatal(s, "frontmatter-not-mapping", 2, 0,
		             "SKILL.md frontmatter must be a YAML mapping");
	error = check_fields(s);
	if (!error)
		error = check_flow(s);
	if (!error)
		error = check_name(s);
	if (!error)
		error = check_description(s);
	if (!error)
		error = check_compatibility(s);
	if (!error)
		error = check_runtime_fields(s);
	if (!error)
		error = check_hidden(s);
	return error;
}

/* Errors first, in the order found, then warnings: a stable partition. */
int skit__skill_order_diags(struct skit_skill *s)
{
	skit_diag *sorted;
	size_t k = 0;

	if (s->ndiags < 2)
		return 0;
	sorted = skitx_malloc(s->ndiags * sizeof(*sorted));
	if (!sorted)
		return SKIT_ENOMEM;
	for (size_t i = 0; i < s->ndiags; i++)
		if (s->diags[i].severity == SKIT_SEVERITY_ERROR)
			sorted[k++] = s->diags[i];
	for (size_t i = 0; i < s->ndiags; i++)
		if (s->diags[i].severity != SKIT_SEVERITY_ERROR)
			sorted[k++] = s->diags[i];
	skitx_free(s->diags);
	s->diags = sorted;
	s->diag_alloc = s->ndiags;
	return 0;
}

/*
 * Settle which folder `path` names: itself, or the parent when it is a
 * SKILL.md file. Only called when opening <path>/SKILL.md directly failed,
 * so the common case costs no stat() at all.
 */
static int resolve_dir(struct skit_skill *s, const char *path)
{
	struct stat st;
	const char *name;
	size_t name_len;

	if (stat(path, &st) < 0) {
		if (lstat(path, &st) < 0 && errno == ENOENT)
			return SKIT_ENOTFOUND;
		/* a dangling link or a vanished path: not a folder */
		return fatal(s, "not-a-directory", 0, 0, "Not a directory: %s",
		             s->dir);
	}
	if (S_ISREG(st.st_mode)) {
		/* `skit validate x/SKILL.md` means the folder x */
		name = skitx_path_name(path, &name_len);
		if (ascii_ieq(name, name_len, "skill.md")) {
			char *parent = skitx_path_dirname(path);
			if (!parent)
				return SKIT_ENOMEM;
			s->dir = pathlib_str(&s->pool, parent);
			skitx_free(parent);
			if (!s->dir)
				return SKIT_ENOMEM;
			if (stat(s->dir, &st) < 0)
				return fatal(s, "not-a-directory", 0, 0,
				             "Not a directory: %s", s->dir);
		}
	}
	name = skitx_path_name(s->dir, &name_len);
	s->dir_name = skitx_pool_strndup(&s->pool, name, name_len);
	if (!s->dir_name)
		return SKIT_ENOMEM;
	if (!S_ISDIR(st.st_mode))
		return fatal(s, "not-a-directory", 0, 0, "Not a directory: %s",
		             s->dir);
	return 0;
}

/*
 * "<dir>/SKILL.md" in the skill's pool: the path of the common case, kept
 * as s->file when it opens (and a few wasted bytes of the pool if not).
 */
static char *pool_skill_md(struct skit_skill *s)
{
	size_t len = strlen(s->dir);
	bool slash = len && s->dir[len - 1] != '/';
	char *p;

	p = skitx_pool_alloc(&s->pool, len + slash + sizeof("SKILL.md"));
	if (!p)
		return NULL;
	memcpy(p, s->dir, len);
	if (slash)
		p[len++] = '/';
	memcpy(p + len, "SKILL.md", sizeof("SKILL.md"));
	return p;
}

/*
 * The lenient loader's second reading of a frontmatter libyaml refused:
 * a top-level plain `description:` that YAML cannot hold is re-read as
 * one string, as lenient clients do. Three shapes are known:
 *   - REREAD_COLON: its value holds ": " ("Use this: it works"), on its
 *     first line or on a continuation line, even one after an empty line
 *     (Gemini CLI's fallback);
 *   - REREAD_BLOCK_TEXT: text after a block indicator on the same line
 *     ("description: | Use when ..."): the text after it is the value;
 *   - REREAD_UNINDENTED: continuation lines at column 0 that are not
 *     `key:` lines ("- item" lists under a one-line description).
 * The value with its continuation lines is rewritten into `out` as a
 * single-quoted scalar whose lines are indented, then YAML reads it.
 */
enum reread { REREAD_NONE, REREAD_COLON, REREAD_BLOCK_TEXT, REREAD_UNINDENTED };

static bool has_colon_space(const char *p, const char *end)
{
	for (; p + 1 < end; p++)
		if (p[0] == ':' && (p[1] == ' ' || p[1] == '\t'))
			return true;
	return false;
}

static bool blank_line(const char *p, const char *eol)
{
	while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == eol;
}

/* A top-level `key:` line, a comment, or a document marker ("---" or
 * "..." alone or before a blank). */
static bool structural_line(const char *p, const char *eol)
{
	const char *k = p;

	if (*p == '#')
		return true;
	if (eol - p >= 3 && (!memcmp(p, "---", 3) || !memcmp(p, "...", 3)) &&
	    (eol - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\r'))
		return true;
	while (k < eol &&
	       ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
	        (*k >= '0' && *k <= '9') || *k == '_' || *k == '-' ||
	        *k == '.'))
		k++;
	return k > p && k < eol && *k == ':' &&
	       (k + 1 == eol || k[1] == ' ' || k[1] == '\t' || k[1] == '\r');
}

static enum reread requote_description(const char *y, size_t len,
                                       struct skitx_buf *out, unsigned int *at)
{
	static const char key[] = "description:";
	const char *end = y + len, *p = y, *v, *cut, *stop, *q;
	enum reread why = REREAD_NONE;
	unsigned int line = 1;

	for (; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t klen = sizeof(key) - 1;
		bool unindented = false;

		if (!((size_t)(eol - p) > klen && !memcmp(p, key, klen) &&
		      (p[klen] == ' ' || p[klen] == '\t'))) {
			p = nl ? nl + 1 : end;
			continue;
		}
		cut = v = p + klen;
		while (v < eol && (*v == ' ' || *v == '\t'))
			v++;
		if (v == eol)
			return REREAD_NONE;
		cut = v;
		if (*v == '|' || *v == '>') {
			/* "| text": an indicator, its modifiers, a blank,
			 * then text that is no comment */
			const char *t = v + 1;

			while (t < eol && strchr("+-0123456789", *t))
				t++;
			if (t == eol || (*t != ' ' && *t != '\t'))
				return REREAD_NONE;
			while (t < eol && (*t == ' ' || *t == '\t'))
				t++;
			if (t == eol || *t == '#' || *t == '\r')
				return REREAD_NONE;
			v = t;
			why = REREAD_BLOCK_TEXT;
		} else if (strchr("'\"[{&*!#%@`", *v)) {
			return REREAD_NONE;
		}
		/* The value runs on over indented lines, lines at column 0
		 * that are no key, and empty lines between such lines. */
		stop = nl ? nl + 1 : end;
		for (q = stop; q < end;) {
			const char *n2 = memchr(q, '\n', (size_t)(end - q));
			const char *e2 = n2 ? n2 : end;

			if (blank_line(q, e2)) {
				q = n2 ? n2 + 1 : end;
				continue;
			}
			if (*q != ' ' && *q != '\t') {
				if (structural_line(q, e2))
					break;
				unindented = true;
			}
			stop = q = n2 ? n2 + 1 : end;
		}
		while (stop > v && (stop[-1] == '\n' || stop[-1] == '\r'))
			stop--;
		if (why == REREAD_NONE)
			why = unindented ? REREAD_UNINDENTED
			      : has_colon_space(v, stop) || stop[-1] == ':'
			              ? REREAD_COLON
			              : REREAD_NONE;
		if (why == REREAD_NONE)
			return why;
		if (skitx_buf_add(out, y, (size_t)(cut - y)) < 0 ||
		    skitx_buf_putc(out, '\'') < 0)
			return REREAD_NONE;
		for (q = v; q < stop; q++) {
			if ((*q == '\'' && skitx_buf_putc(out, '\'') < 0) ||
			    skitx_buf_putc(out, *q) < 0)
				return REREAD_NONE;
			/* every continuation line indented, so that YAML
			 * reads it as part of the scalar */
			if (*q == '\n' && q + 1 < stop && q[1] != '\n' &&
			    skitx_buf_putc(out, ' ') < 0)
				return REREAD_NONE;
		}
		if (skitx_buf_putc(out, '\'') < 0 ||
		    skitx_buf_add(out, stop, (size_t)(end - stop)) < 0)
			return REREAD_NONE;
		*at = line;
		return why;
	}
	return REREAD_NONE;
}

int skit__skill_parse(struct skit_skill *s, const char *path, int dirfd,
                      const char *rel)
{
	struct skitx_buf yaml = SKITX_BUF_INIT, requoted = SKITX_BUF_INIT;
	enum reread reread;
	char msg[384], *direct, relmd[PATH_MAX];
	const char *hint = NULL;
	bool lenient = s->opts.flags & SKIT_SKILL_LENIENT;
	unsigned int line, col, at = 0;
	enum skitx_fs_why why;
	struct stat st;
	const char *name;
	size_t name_len, rel_len;
	int fd = -1, error;

	s->dir = pathlib_str(&s->pool, path);
	if (!s->dir)
		return SKIT_ENOMEM;

	/*
	 * The common case: a folder holding a regular SKILL.md. A scan
	 * opens it relative to the root it holds open, which spares the
	 * kernel the walk of every component of the root's path.
	 */
	direct = pool_skill_md(s);
	if (!direct)
		return SKIT_ENOMEM;
	rel_len = rel ? strlen(rel) : 0;
	if (rel && rel_len + sizeof("/SKILL.md") <= sizeof(relmd)) {
		memcpy(relmd, rel, rel_len);
		memcpy(relmd + rel_len, "/SKILL.md", sizeof("/SKILL.md"));
		fd = skitx_fs_open_regular(dirfd, relmd, &st, &why);
	} else {
		fd = skitx_fs_open_regular(AT_FDCWD, direct, &st, &why);
	}
	if (fd >= 0) {
		s->file = direct;
		s->md_stat = st;
		s->md_stat_ok = rel != NULL;
		name = skitx_path_name(s->dir, &name_len);
		s->dir_name = skitx_pool_strndup(&s->pool, name, name_len);
		if (!s->dir_name) {
			close(fd);
			return SKIT_ENOMEM;
		}
	} else {
		error = resolve_dir(s, path);
		if (error < 0 || s->fatal)
			return error;
		error = open_skill_md(s, &st, &fd);
		if (error < 0 || s->fatal)
			return error;
	}

	/* Checked before reading: a giant (or sparse) file is never read. */
	if ((size_t)st.st_size > s->opts.max_file) {
		close(fd);
		return fatal(s, "file-too-big", 0, 0,
		             "SKILL.md is %lld bytes; the limit is %zu",
		             (long long)st.st_size, s->opts.max_file);
	}
	error = read_frontmatter(s, fd, st.st_size, &yaml);
	close(fd);
	if (error < 0 || s->fatal)
		goto out;

	error = skit__yaml_parse_flags(&s->root, &s->pool, yaml.ptr, yaml.len,
	                               lenient ? SKIT_YAML_FLOW : 0, msg,
	                               sizeof(msg), &line, &col);
	/*
	 * A description YAML cannot hold, in a shape lenient clients read
	 * as one string: the loader reads it so, with a warning; validate
	 * keeps the reference's error. Both say the same: YAML's message,
	 * then our hint, when the re-read alone makes the YAML valid.
	 */
	if (error == SKIT_EINVALID &&
	    (reread = requote_description(yaml.ptr, yaml.len, &requoted,
	                                  &at)) != REREAD_NONE) {
		static const char *const codes[] = {
			[REREAD_COLON] = "description-unquoted-colon",
			[REREAD_BLOCK_TEXT] = "description-block-text",
			[REREAD_UNINDENTED] = "description-unindented",
		};
		static const char *const hints[] = {
			[REREAD_COLON] = "the description holds ': ' without "
			                 "quotes: put it in quotes or write it "
			                 "as a block (description: >-)",
			[REREAD_BLOCK_TEXT] = "the description has text after "
			                      "its block indicator: start the "
			                      "text on the next line, indented",
			[REREAD_UNINDENTED] = "the description goes on over "
			                      "lines at column 0: indent them "
			                      "under the key",
		};
		char msg2[384];
		unsigned int l2, c2;
		int e2 = skit__yaml_parse_flags(&s->root, &s->pool,
		                                requoted.ptr, requoted.len,
		                                lenient ? SKIT_YAML_FLOW : 0,
		                                msg2, sizeof(msg2), &l2, &c2);

		if (e2 == SKIT_ENOMEM) {
			error = e2;
			goto out;
		}
		if (!e2 && lenient) {
			error = skit__skill_diag(
			        s, SKIT_SEVERITY_WARNING, codes[reread], NULL,
			        at + 1, 1,
			        "Field 'description': %s, which the reference "
			        "rejects (read as one string); hint: %s",
			        msg, hints[reread]);
			if (error < 0)
				goto out;
		} else if (!e2) {
			hint = hints[reread];
		}
	}
	if (error == SKIT_EINVALID) {
		/* YAML line 1 is SKILL.md line 2 */
		error = fatal(s, "yaml-invalid", line ? line + 1 : 0, col,
		              "Invalid YAML in frontmatter: %s%s%s", msg,
		              hint ? "; hint: " : "", hint ? hint : "");
		goto out;
	}
	if (error < 0)
		goto out;
	error = validate(s);
out:
	skitx_buf_release(&yaml);
	skitx_buf_release(&requoted);
	return error;
}

bool skit_skill_valid(const skit_skill *s)
{
	for (size_t i = 0; i < s->ndiags; i++)
		if (s->diags[i].severity == SKIT_SEVERITY_ERROR)
			return false;
	return true;
}

bool skit_skill_has_warnings(const skit_skill *s)
{
	for (size_t i = 0; i < s->ndiags; i++)
		if (s->diags[i].severity == SKIT_SEVERITY_WARNING)
			return true;
	return false;
}

const skit_diag *skit_skill_diags(const skit_skill *s, size_t *count)
{
	assert(count);
	*count = s->ndiags;
	return s->diags;
}

const char *skit_skill_dir(const skit_skill *s)
{
	return s->dir;
}

const char *skit_skill_file(const skit_skill *s)
{
	return s->file;
}

const char *skit_skill_dir_name(const skit_skill *s)
{
	return s->dir_name ? s->dir_name : "";
}

const char *skit_skill_name(const skit_skill *s)
{
	return s->name;
}

const char *skit_skill_name_raw(const skit_skill *s)
{
	return s->name_raw;
}

const char *skit_skill_known_name(const skit_skill *s)
{
	if (s->name && !(s->flags & SKIT_SKILL_NAME_INVALID) &&
	    !s->name_mismatch)
		return s->name;
	return skit_skill_dir_name(s);
}

const char *skit_skill_description(const skit_skill *s)
{
	return s->description;
}

const char *skit_skill_field(const skit_skill *s, const char *key)
{
	const struct skit__ynode *n = skit__yaml_get(s->root, key);

	return n && n->kind == SKIT_YSCALAR ? n->value : NULL;
}

const char *skit_skill_allowed_tools(const skit_skill *s)
{
	return s->allowed_tools;
}

const char *skit_skill_disallowed_tools(const skit_skill *s)
{
	return s->disallowed_tools;
}

const char *skit_skill_when_to_use(const skit_skill *s)
{
	return s->when_to_use;
}

const char *skit_skill_argument_hint(const skit_skill *s)
{
	return s->argument_hint;
}

unsigned int skit_skill_flags(const skit_skill *s)
{
	return s->flags;
}

size_t skit_skill_metadata_count(const skit_skill *s)
{
	return s->meta_count;
}

void skit_skill_metadata_at(const skit_skill *s, size_t i, const char **key,
                            const char **value)
{
	assert(i < s->meta_count);
	*key = s->meta_keys[i];
	*value = s->meta_values[i];
}

unsigned int skit_skill_body_line(const skit_skill *s)
{
	return s->body_line;
}

size_t skit__skill_bytes_read(const skit_skill *s)
{
	return s->bytes_read;
}

/*
 * Keep the body of SKILL.md from `raw`, the whole file as read: checked
 * for UTF-8 and NUL, line ends normalised, stripped. The load of
 * SKIT_SKILL_BODY and skit_skill_body() share it, so a body is the same
 * bytes whichever read gave it.
 */
static int keep_body(struct skit_skill *s, const struct skitx_buf *raw,
                     skit_error *err)
{
	struct skitx_buf norm = SKITX_BUF_INIT;
	size_t bad, start, len;
	int error = 0, kind;

	if (raw->len < s->body_offset)
		return skit__error_set(err, SKIT_EIO, 0,
		                       "%s changed while being read", s->file);
	kind = skitx_utf8_check(raw->ptr + s->body_offset,
	                        raw->len - s->body_offset, &bad);
	if (kind) {
		unsigned int line, col;
		offset_position(raw->ptr, s->body_offset + bad, &line, &col);
		return skit__error_set(err, SKIT_EENCODING, line,
		                       "%s:%u: %s (byte offset %zu)", s->file,
		                       line,
		                       kind == 2 ? "NUL byte in the body"
		                                 : "invalid UTF-8 in the body",
		                       s->body_offset + bad);
	}
	error = normalize_newlines(&norm, raw->ptr + s->body_offset,
	                           raw->len - s->body_offset);
	if (error < 0) {
		skit__error_oom(err);
		goto out;
	}
	len = skitx_utf8_pystrip(norm.ptr, norm.len, &start);
	s->body_text_line = s->body_line;
	for (size_t i = 0; i < start; i++)
		if (norm.ptr[i] == '\n')
			s->body_text_line++;
	s->body = skitx_pool_strndup(&s->pool, norm.ptr + start, len);
	if (!s->body) {
		error = skit__error_oom(err);
		goto out;
	}
	s->body_len = len;
	s->body_loaded = true;
out:
	skitx_buf_release(&norm);
	return error;
}

int skit_skill_body(skit_skill *s, const char **out, size_t *len_out,
                    skit_error *err)
{
	struct skitx_buf raw = SKITX_BUF_INIT;
	enum skitx_fs_why why;
	struct stat st;
	int fd, error;

	assert(s && out);
	if (s->body_loaded)
		goto done;
	if (!s->file)
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "%s has no SKILL.md", s->dir);
	if (s->fatal || !s->body_offset)
		return skit__error_set(err, SKIT_EINVALID, 0, "%s: %s", s->file,
		                       s->fatal ? s->fatal
		                                : "frontmatter not read");
	fd = skitx_fs_open_regular(AT_FDCWD, s->file, &st, &why);
	if (fd < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s %s", s->file,
		                       skitx_fs_why_text(why));
	if ((size_t)st.st_size > s->opts.max_file) {
		close(fd);
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "%s is %lld bytes; the limit is %zu",
		                       s->file, (long long)st.st_size,
		                       s->opts.max_file);
	}
	error = skitx_fs_read_fd(fd, &raw, s->opts.max_file);
	close(fd);
	if (error < 0) {
		skit__error_set(err, error, 0, "%s could not be read: %s",
		                s->file, skit_strerror(error));
		goto out;
	}
	s->bytes_read += raw.len;
	error = keep_body(s, &raw, err);
out:
	skitx_buf_release(&raw);
	if (error < 0)
		return error;
done:
	*out = s->body;
	if (len_out)
		*len_out = s->body_len;
	return 0;
}

void skit_skill_free(skit_skill *s)
{
	if (!s)
		return;
	skitx_free(s->diags);
	skitx_pool_release(&s->pool);
	skitx_free(s);
}
