/* SPDX-License-Identifier: MIT */
/*
 * instructions.c - the project's instructions: the `AGENTS.md` files
 * (`CLAUDE.md` where a folder has none) from the project's root down to
 * the working folder, then the user's own, as Codex and Claude Code read
 * them (docs/agent.md, "Project instructions").
 *
 * What is read is decided here and nowhere else: only folders the user
 * trusts (trust.c), never through a symbolic link inside the project
 * (each folder is opened from its parent with O_NOFOLLOW, each file with
 * skitx_fs_open_regular()), at most 1 MiB a file, no binary file, and at
 * most SKIT_INSTRUCTIONS_FILE_CAP bytes of one file and
 * SKIT_INSTRUCTIONS_TOTAL_CAP of all in the prompt. The user's own file
 * may be a link into a dotfiles folder, as the user config may. This
 * file does not decide whether the feature is on (the agent's option and
 * the config switch do) and writes no prompt but its own section.
 */
#include "common.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skit/agent.h"
#include "skit/registry.h"
#include "lib/agent/agent_int.h"
#include "lib/agent/instructions.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

#define FILE_MAX (1024u * 1024) /* a file over this is not read at all */

static const char *const names[] = { "AGENTS.md", "CLAUDE.md" };

struct ins_file {
	skit_instruction_file pub; /* its strings point to the members */
	char *path, *label;
	char sha256[65];
	char *data; /* the file's bytes, while rendering */
	size_t len;
	dev_t dev;
	ino_t ino;
};

struct skit_instructions {
	struct ins_file *files;
	size_t n, cap;
	char *text;   /* the framed section; "" when nothing was read */
	bool audited; /* the trail has its event */
};

/* ---- the list --------------------------------------------------------- */

static struct ins_file *add_file(struct skit_instructions *in, const char *path,
                                 const char *label, bool user)
{
	struct ins_file *f;

	if (in->n == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 8;

		f = skitx_realloc(in->files, cap * sizeof(*f));
		if (!f)
			return NULL;
		in->files = f;
		in->cap = cap;
	}
	f = &in->files[in->n];
	memset(f, 0, sizeof(*f));
	f->path = skitx_strdup(path);
	f->label = skitx_strdup(label);
	if (!f->path || !f->label) {
		skitx_free(f->path);
		skitx_free(f->label);
		return NULL;
	}
	in->n++;
	f->pub.path = f->path;
	f->pub.label = f->label;
	f->pub.user = user;
	f->pub.sha256 = f->sha256;
	return f;
}

/* The file read earlier with the same device and inode, or NULL. */
static const struct ins_file *same_file(const struct skit_instructions *in,
                                        const struct ins_file *f)
{
	for (size_t i = 0; i < in->n; i++)
		if (&in->files[i] != f && in->files[i].data &&
		    in->files[i].dev == f->dev && in->files[i].ino == f->ino)
			return &in->files[i];
	return NULL;
}

/*
 * Read the open regular file `fd` into `f`: not over FILE_MAX, no NUL
 * byte (a binary file is no instruction), not a file read already (the
 * user's file may be a link to a project's). Closes `fd`. Returns 0 with
 * f->pub.skipped set or not, or SKIT_ENOMEM.
 */
static int take(struct skit_instructions *in, struct ins_file *f, int fd,
                const struct stat *st)
{
	struct skitx_buf b;
	int rc;

	f->pub.size = (uint64_t)st->st_size;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	if ((uint64_t)st->st_size > FILE_MAX) {
		close(fd);
		f->pub.skipped = "over 1 MiB";
		return 0;
	}
	skitx_buf_init(&b, FILE_MAX);
	rc = skitx_fs_read_fd(fd, &b, FILE_MAX);
	close(fd);
	if (rc == SKIT_ENOMEM) {
		skitx_buf_release(&b);
		return SKIT_ENOMEM;
	}
	if (rc < 0) {
		skitx_buf_release(&b);
		f->pub.skipped =
		        rc == SKIT_ETOOBIG ? "over 1 MiB" : "cannot be read";
		return 0;
	}
	f->pub.size = skitx_buf_len(&b);
	skit__sha256_hex(skitx_buf_cstr(&b), skitx_buf_len(&b), f->sha256);
	if (memchr(skitx_buf_cstr(&b), '\0', skitx_buf_len(&b))) {
		skitx_buf_release(&b);
		f->pub.skipped = "binary (it holds a NUL byte)";
		return 0;
	}
	if (!skitx_buf_len(&b)) {
		skitx_buf_release(&b);
		f->pub.skipped = "empty";
		return 0;
	}
	f->data = skitx_buf_detach(&b, &f->len);
	if (!f->data)
		return SKIT_ENOMEM;
	if (same_file(in, f)) {
		skitx_free(f->data);
		f->data = NULL;
		f->pub.skipped = "the same file as one read before";
	}
	return 0;
}

/* ---- the project's folders -------------------------------------------- */

/*
 * The instruction file of the folder `dirfd` (spelled `dir`, labelled
 * with the prefix `rel`): AGENTS.md, else CLAUDE.md. An AGENTS.md that
 * is not read (a link, not a regular file, too big) does not count, so a
 * folder whose AGENTS.md links to its CLAUDE.md gets the real file. An
 * untrusted folder's file is listed, never opened.
 */
static int folder(struct skit_instructions *in, int dirfd, const char *dir,
                  const char *rel, bool trusted)
{
	struct skitx_buf path = SKITX_BUF_INIT, label = SKITX_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < SKIT_ARRAY_SIZE(names); i++) {
		enum skitx_fs_why why = SKITX_FS_OK;
		struct ins_file *f = NULL;
		struct stat st;
		int fd = -1;

		if (trusted) {
			fd = skitx_fs_open_regular(dirfd, names[i], &st, &why);
			if (fd < 0 && why == SKITX_FS_MISSING)
				continue;
		} else if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) <
		           0) {
			continue;
		}
		skitx_buf_clear(&path);
		skitx_buf_clear(&label);
		if (skitx_buf_printf(&path, "%s%s%s", dir,
		                     strcmp(dir, "/") ? "/" : "", names[i]) ||
		    skitx_buf_printf(&label, "%s%s%s", rel, *rel ? "/" : "",
		                     names[i])) {
			rc = SKIT_ENOMEM;
		} else {
			f = add_file(in, path.ptr, label.ptr, false);
			if (!f)
				rc = SKIT_ENOMEM;
			else if (!trusted)
				f->pub.skipped = "not a trusted folder";
			else if (fd < 0)
				f->pub.skipped =
				        why == SKITX_FS_SYMLINK
				                ? "a symbolic link (not "
				                  "followed)"
				                : skitx_fs_why_text(why);
			else {
				rc = take(in, f, fd, &st); /* closes fd */
				fd = -1;
			}
		}
		if (fd >= 0)
			close(fd);
		/* read, or untrusted: this folder is done */
		if (!rc && f && (f->data || !trusted))
			break;
	}
	skitx_buf_release(&path);
	skitx_buf_release(&label);
	return rc;
}

/*
 * Each folder from the project's root `root` (resolved) down to `cwd`
 * (resolved; only the root when `cwd` is not inside it), each trusted
 * only when the user trusts it and every folder above it. Each folder is
 * opened from its parent without following a link, so a link planted
 * between the check and the read cannot lead outside.
 */
static int walk(struct skit_instructions *in, const char *root, const char *cwd)
{
	size_t n = strlen(root);
	struct skitx_buf dir = SKITX_BUF_INIT, rel = SKITX_BUF_INIT;
	const char *p = NULL;
	bool chain = true; /* every folder so far is trusted */
	int fd, rc = 0;

	if (!strcmp(root, "/"))
		n = 0;
	if (!strncmp(cwd, root, n) && cwd[n] == '/')
		p = cwd + n + 1;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone: nothing to read */
	rc = skitx_buf_puts(&dir, root) ? SKIT_ENOMEM : 0;
	for (;;) {
		bool trusted = false;
		skit_error e = { 0 };
		size_t len;
		int next;

		/* Trust passes down the walk, never past a folder that is
		 * not trusted: below an untrusted project nested in a
		 * trusted one, everything is that project's. */
		if (chain && !rc &&
		    skit_trust_check(&trusted, dir.ptr, &e) == SKIT_ENOMEM)
			rc = SKIT_ENOMEM;
		chain = trusted;
		if (!rc)
			rc = folder(in, fd, dir.ptr, skitx_buf_cstr(&rel),
			            trusted);
		while (p && *p == '/')
			p++;
		if (rc || !p || !*p)
			break;
		len = strcspn(p, "/");
		if (skitx_buf_printf(&dir, "%s%.*s",
		                     strcmp(dir.ptr, "/") ? "/" : "", (int)len,
		                     p) ||
		    skitx_buf_printf(&rel, "%s%.*s",
		                     skitx_buf_len(&rel) ? "/" : "", (int)len,
		                     p)) {
			rc = SKIT_ENOMEM;
			break;
		}
		{
			char comp[NAME_MAX + 1];

			if (len > NAME_MAX)
				break;
			memcpy(comp, p, len);
			comp[len] = '\0';
			next = openat(fd, comp,
			              O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                      O_CLOEXEC);
		}
		close(fd);
		fd = next;
		if (fd < 0)
			break; /* replaced by a link or gone: stop here */
		p += len;
	}
	if (fd >= 0)
		close(fd);
	skitx_buf_release(&dir);
	skitx_buf_release(&rel);
	return rc;
}

/* ---- the user's own ----------------------------------------------------- */

/* `path` with the home folder spelled "~" when it is inside it. */
static int user_label(struct skitx_buf *out, const char *path, const char *home)
{
	size_t n = home ? strlen(home) : 0;

	if (n > 1 && !strncmp(path, home, n) && path[n] == '/')
		return skitx_buf_printf(out, "~%s", path + n);
	return skitx_buf_puts(out, path);
}

/*
 * The user's `$SKIT_HOME/AGENTS.md` (default `~/.agents/AGENTS.md`),
 * else Claude Code's `~/.claude/CLAUDE.md`. The user's own files: a link
 * is read where it leads (a dotfiles folder), as for the user config.
 */
static int user_file(struct skit_instructions *in)
{
	const char *home = getenv("HOME"), *sh = getenv("SKIT_HOME");
	struct skitx_buf path = SKITX_BUF_INIT, label = SKITX_BUF_INIT;
	int rc = 0;

	if (!home || home[0] != '/')
		home = NULL;
	if (!sh || sh[0] != '/')
		sh = NULL;
	for (int i = 0; !rc && i < 2; i++) {
		enum skitx_fs_why why;
		struct ins_file *f;
		struct stat st;
		char *real;
		int fd;

		skitx_buf_clear(&path);
		skitx_buf_clear(&label);
		if (i == 0 && sh)
			rc = skitx_buf_printf(&path, "%s/AGENTS.md", sh);
		else if (home)
			rc = skitx_buf_printf(&path, "%s/%s", home,
			                      i ? ".claude/CLAUDE.md"
			                        : ".agents/AGENTS.md");
		else
			continue;
		if (rc || user_label(&label, path.ptr, home)) {
			rc = SKIT_ENOMEM;
			break;
		}
		real = realpath(path.ptr, NULL);
		if (!real && errno == ENOMEM) {
			rc = SKIT_ENOMEM;
			break;
		}
		if (!real)
			continue; /* none (a dangling link is none) */
		fd = skitx_fs_open_regular(AT_FDCWD, real, &st, &why);
		free(real); /* realpath(3) allocates with malloc */
		if (fd < 0 && why == SKITX_FS_MISSING)
			continue;
		f = add_file(in, path.ptr, label.ptr, true);
		if (!f) {
			if (fd >= 0)
				close(fd);
			rc = SKIT_ENOMEM;
			break;
		}
		if (fd < 0)
			f->pub.skipped = skitx_fs_why_text(why);
		else
			rc = take(in, f, fd, &st);
		if (!rc && f->data)
			break;
	}
	skitx_buf_release(&path);
	skitx_buf_release(&label);
	return rc;
}

/* ---- the prompt text ---------------------------------------------------- */

/* How much of each file read goes in: at most the per-file cap, and the
 * total cap given to the nearest first (the user's, then the working
 * folder's), since the later ones win; the farthest are cut. */
static void share_out(struct skit_instructions *in)
{
	size_t left = SKIT_INSTRUCTIONS_TOTAL_CAP;

	for (size_t i = in->n; i-- > 0;) {
		struct ins_file *f = &in->files[i];
		size_t k;

		if (!f->data)
			continue;
		k = f->len < SKIT_INSTRUCTIONS_FILE_CAP
		            ? f->len
		            : SKIT_INSTRUCTIONS_FILE_CAP;
		if (k > left)
			k = left;
		/* never in the middle of a UTF-8 sequence */
		while (k > 0 && k < f->len &&
		       ((unsigned char)f->data[k] & 0xC0) == 0x80)
			k--;
		f->pub.shown = k;
		left -= k;
		if (!k && f->len) {
			f->pub.skipped = "left out: the instructions are "
			                 "capped at 64 KiB in all";
			skitx_free(f->data);
			f->data = NULL;
		}
	}
}

/* A label inside an attribute: no quote or angle bracket, no hidden
 * character. */
static int put_label(struct skitx_buf *b, const char *s)
{
	struct skitx_buf t = SKITX_BUF_INIT;
	size_t cps;
	int rc = skitx_utf8_sanitize(&t, s, strlen(s), 0, &cps);

	for (char *p = t.ptr; !rc && *p; p++)
		if (*p == '"' || *p == '<' || *p == '>')
			*p = '_';
	if (!rc)
		rc = skitx_buf_puts(b, skitx_buf_cstr(&t));
	skitx_buf_release(&t);
	return rc;
}

static int render(struct skit_instructions *in)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	bool any = false;
	size_t cps;
	int rc = 0;

	for (size_t i = 0; i < in->n; i++)
		any |= in->files[i].data != NULL;
	if (!any) {
		in->text = skitx_strdup("");
		return in->text ? 0 : SKIT_ENOMEM;
	}
	rc |= skitx_buf_puts(
	        &b,
	        "<project_instructions>\n"
	        "The user keeps instructions for work in this project in "
	        "the files below: AGENTS.md (CLAUDE.md in a folder without "
	        "one) from the project's root down to the working folder, "
	        "then the user's own. Follow them as the user's instructions "
	        "for this project. They come in that order: where two "
	        "disagree, the later one wins.\n");
	for (size_t i = 0; !rc && i < in->n; i++) {
		struct ins_file *f = &in->files[i];

		if (!f->data) {
			if (f->pub.skipped &&
			    !strncmp(f->pub.skipped, "left", 4)) {
				rc |= skitx_buf_puts(&b, "[");
				rc |= put_label(&b, f->label);
				rc |= skitx_buf_puts(
				        &b, " left out: the project "
				            "instructions are capped at "
				            "64 KiB]\n");
			}
			continue;
		}
		rc |= skitx_buf_puts(&b, "<instructions file=\"");
		rc |= put_label(&b, f->label);
		rc |= skitx_buf_puts(&b, "\">\n");
		rc |= skitx_utf8_sanitize(&b, f->data, f->pub.shown,
		                          SKITX_SANITIZE_KEEP_LINES, &cps);
		if (skitx_buf_len(&b) && b.ptr[skitx_buf_len(&b) - 1] != '\n')
			rc |= skitx_buf_puts(&b, "\n");
		if (f->pub.shown < f->len)
			rc |= skitx_buf_printf(&b,
			                       "[cut: the file is %zu bytes; "
			                       "the first %zu are shown]\n",
			                       f->len, f->pub.shown);
		rc |= skitx_buf_puts(&b, "</instructions>\n");
	}
	rc |= skitx_buf_puts(&b, "</project_instructions>\n");
	for (size_t i = 0; i < in->n; i++) {
		skitx_free(in->files[i].data);
		in->files[i].data = NULL;
	}
	if (rc) {
		skitx_buf_release(&b);
		return SKIT_ENOMEM;
	}
	in->text = skitx_buf_detach(&b, NULL);
	return in->text ? 0 : SKIT_ENOMEM;
}

/* ---- public --------------------------------------------------------- */

int skit_instructions_load(skit_instructions **out, const char *project_dir,
                           const char *cwd, skit_error *err)
{
	char buf[PATH_MAX], *root = NULL, *here = NULL;
	skit_instructions *in;
	int rc = 0;

	assert(out);
	*out = NULL;
	in = skitx_calloc(1, sizeof(*in));
	if (!in)
		return skit__error_oom(err);
	if (!cwd)
		cwd = getcwd(buf, sizeof(buf));
	/* Resolved, so that the walk compares real folders; a project
	 * that does not exist has no instructions. */
	if (project_dir)
		root = realpath(project_dir, NULL);
	if (root && cwd)
		here = realpath(cwd, NULL);
	if (root)
		rc = walk(in, root, here ? here : root);
	free(root); /* realpath(3) allocates with malloc */
	free(here);
	if (!rc)
		rc = user_file(in);
	if (!rc) {
		share_out(in);
		rc = render(in);
	}
	if (rc) {
		skit_instructions_free(in);
		return skit__error_oom(err);
	}
	*out = in;
	return 0;
}

size_t skit_instructions_count(const skit_instructions *in)
{
	return in ? in->n : 0;
}

const skit_instruction_file *skit_instructions_file(const skit_instructions *in,
                                                    size_t i)
{
	assert(in && i < in->n);
	return &in->files[i].pub;
}

const char *skit_instructions_text(const skit_instructions *in)
{
	return in && in->text ? in->text : "";
}

void skit_instructions_free(skit_instructions *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n; i++) {
		skitx_free(in->files[i].path);
		skitx_free(in->files[i].label);
		skitx_free(in->files[i].data);
	}
	skitx_free(in->files);
	skitx_free(in->text);
	skitx_free(in);
}

/* ---- the agent's uses ---------------------------------------------- */

int skit__instructions_attach(struct skit_agent *a, skit_error *err)
{
	int rc;

	if (a->instructions)
		return 0;
	rc = skit_instructions_load(&a->instructions, a->project_dir, NULL,
	                            err);
	if (rc)
		return rc;
	for (size_t i = 0; i < a->instructions->n; i++) {
		const skit_instruction_file *f = &a->instructions->files[i].pub;

		if (f->skipped && !strcmp(f->skipped, "not a trusted folder"))
			skit__agent_trace(
			        a, SKIT_TRACE_NOTE,
			        "project instructions: %s not read: "
			        "not a trusted folder (to trust it: "
			        "skit trust %.*s)",
			        f->label,
			        (int)(strrchr(f->path, '/') - f->path),
			        f->path);
		else if (f->skipped)
			skit__agent_trace(
			        a, SKIT_TRACE_NOTE,
			        "project instructions: %s not read: %s",
			        f->label, f->skipped);
		else if (f->shown < f->size)
			skit__agent_trace(
			        a, SKIT_TRACE_NOTE,
			        "project instructions: %s cut to %zu of "
			        "%llu bytes",
			        f->label, f->shown,
			        (unsigned long long)f->size);
		else
			skit__agent_trace(
			        a, SKIT_TRACE_NOTE,
			        "project instructions: %s (%llu bytes)",
			        f->label, (unsigned long long)f->size);
	}
	return 0;
}

int skit__instructions_prompt(struct skit_agent *a, struct skitx_buf *b,
                              skit_error *err)
{
	int rc;

	if (!a->project_instructions)
		return 0;
	rc = skit__instructions_attach(a, err);
	if (!rc && *a->instructions->text &&
	    (skitx_buf_puts(b, a->instructions->text) ||
	     skitx_buf_puts(b, "\n")))
		rc = skit__error_oom(err);
	return rc;
}

void skit__instructions_audit(struct skit_agent *a)
{
	struct skit_instructions *in = a->instructions;
	json_t *files;

	if (!in || !in->n || in->audited)
		return;
	in->audited = true;
	files = json_array();
	for (size_t i = 0; files && i < in->n; i++) {
		const skit_instruction_file *f = &in->files[i].pub;

		if (json_array_append_new(
		            files,
		            json_pack("{s:s, s:s, s:s, s:I, s:I, s:s?, s:s?}",
		                      "path", f->path, "label", f->label,
		                      "scope", f->user ? "user" : "project",
		                      "bytes", (json_int_t)f->size, "shown",
		                      (json_int_t)f->shown, "sha256",
		                      *f->sha256 ? f->sha256 : NULL, "skipped",
		                      f->skipped)) < 0) {
			json_decref(files);
			files = NULL;
		}
	}
	skit__agent_audit(a, "project_instructions",
	                  files ? json_pack("{s:o}", "files", files) : NULL);
}
