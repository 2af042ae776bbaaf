/* SPDX-License-Identifier: MIT */
/*
 * audit.c - the run folder: events.jsonl appended one line per event,
 * run.json written once at the end, and reading both back.
 *
 * Crash safety comes from the shape of the writes, not from fsync: each
 * event is one complete line handed to the kernel with one write(2) on an
 * O_APPEND descriptor, so a process killed at any instant (SIGKILL, OOM
 * killer) leaves every earlier line whole and at most a torn last line,
 * which readers skip. run.json is written to a temporary file and
 * renamed, so it is either absent or complete. Surviving a power loss is
 * not a goal: only run.json and the close of events.jsonl are synced.
 *
 * Lines are serialised with JSON_COMPACT | JSON_ENSURE_ASCII: jansson
 * escapes newlines and control characters in strings, and ENSURE_ASCII
 * also escapes C1 controls, U+2028/U+2029 and all other non-ASCII text,
 * so a line is one line for every line splitter and `cat events.jsonl`
 * cannot drive a terminal.
 *
 * Redaction works on the JSON values before serialisation (every string,
 * key and number that contains a registered secret has each occurrence
 * replaced), then the serialised text is searched once more for the raw
 * secret; if one is still there, only a stub of the event is written.
 *
 * The writer never prints and keeps no global state; the reader trusts
 * nothing in a run folder (names are checked, files are opened with
 * O_NOFOLLOW and size-capped, JSON is validated).
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "skit/audit.h"
#include "lib/agent/audit_int.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

#define MAX_LINE        (1024 * 1024) /* an event line, newline excluded */
#define MAX_EVENTS_FILE (64 * 1024 * 1024)
#define MAX_RUN_JSON    (1024 * 1024)
#define MAX_RUNS        100000
#define MAX_SECRETS     32
#define MIN_SECRET      8
#define MAX_TYPE        64
#define CUT_STRING      4096 /* bytes a string keeps when a line is cut */
#define OPEN_TRIES      16
#define REDACTED        "[REDACTED]"
#define RUN_NAME_LEN    25 /* yyyymmddThhmmssZ-xxxxxxxx */
#define EVENT_FLAGS     (JSON_COMPACT | JSON_ENSURE_ASCII)
#define SUMMARY_FLAGS   (JSON_INDENT(2) | JSON_ENSURE_ASCII)
#define SECRET_LEFT     1 /* render(): a secret survived redaction */

struct skit_audit {
	char *dir, *id;
	char started[64];
	int fd;
	int dirfd; /* the run folder, opened once: run.json goes there */
	unsigned long long seq;
	size_t events;
	char *secrets[MAX_SECRETS]; /* longest first */
	size_t secret_len[MAX_SECRETS];
	size_t nsecrets;
};

/* ---- time and names ---------------------------------------------------- */

/* "2026-11-21T14:30:05.123Z" and, if `stamp` is not NULL, "20261121T143005Z".
 */
static void now_text(char iso[64], char stamp[32])
{
	struct timespec ts;
	struct tm tm;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0) {
		ts.tv_sec = time(NULL);
		ts.tv_nsec = 0;
	}
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(iso, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	         tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	         tm.tm_min, tm.tm_sec, (int)(ts.tv_nsec / 1000000));
	if (stamp)
		strftime(stamp, 32, "%Y%m%dT%H%M%SZ", &tm);
}

/* Fill `p` from the kernel's random source: getrandom(), else urandom. */
static int random_bytes(unsigned char *p, size_t n)
{
	ssize_t got;
	size_t done = 0;
	int fd;

	do {
		got = getrandom(p, n, 0);
	} while (got < 0 && errno == EINTR);
	if (got == (ssize_t)n)
		return 0;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SKIT_EIO;
	while (done < n) {
		got = read(fd, p + done, n - done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			close(fd);
			return SKIT_EIO;
		}
		done += (size_t)got;
	}
	close(fd);
	return 0;
}

/* True for "yyyymmddThhmmssZ-xxxxxxxx" (digits, lowercase hex). */
static bool is_run_name(const char *s)
{
	static const char pat[] = "DDDDDDDDTDDDDDDZ-XXXXXXXX";

	for (size_t i = 0; i < RUN_NAME_LEN; i++) {
		char c = s[i];

		if (pat[i] == 'D') {
			if (c < '0' || c > '9')
				return false;
		} else if (pat[i] == 'X') {
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
				return false;
		} else if (c != pat[i]) {
			return false;
		}
	}
	return s[RUN_NAME_LEN] == '\0';
}

static bool is_hex8(const char *s)
{
	for (size_t i = 0; i < 8; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[8] == '\0';
}

static bool valid_type(const char *type)
{
	size_t n = strlen(type);

	if (!n || n > MAX_TYPE)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = type[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

/* ---- redaction and cutting --------------------------------------------- */

static const char *find_bytes(const char *hay, size_t hlen, const char *needle,
                              size_t nlen)
{
	const char *p = hay, *last;

	if (!nlen || hlen < nlen)
		return NULL;
	last = hay + (hlen - nlen);
	while (p <= last) {
		p = memchr(p, needle[0], (size_t)(last - p) + 1);
		if (!p)
			return NULL;
		if (!memcmp(p, needle, nlen))
			return p;
		p++;
	}
	return NULL;
}

static bool has_secret(const struct skit_audit *a, const char *s, size_t len)
{
	for (size_t i = 0; i < a->nsecrets; i++)
		if (find_bytes(s, len, a->secrets[i], a->secret_len[i]))
			return true;
	return false;
}

/*
 * `s` with every occurrence of every secret replaced, longest secret
 * first, into `out`. Sets `*changed`.
 */
static int redact_text(const struct skit_audit *a, const char *s, size_t len,
                       struct skitx_buf *out, bool *changed)
{
	struct skitx_buf tmp = SKITX_BUF_INIT;
	int error = 0;

	*changed = false;
	skitx_buf_clear(out);
	error = skitx_buf_add(out, s, len);
	for (size_t i = 0; !error && i < a->nsecrets; i++) {
		const char *p = out->ptr, *end = out->ptr + out->len, *hit;

		hit = find_bytes(p, out->len, a->secrets[i], a->secret_len[i]);
		if (!hit)
			continue;
		*changed = true;
		skitx_buf_clear(&tmp);
		while (!error && hit) {
			error = skitx_buf_add(&tmp, p, (size_t)(hit - p));
			if (!error)
				error = skitx_buf_puts(&tmp, REDACTED);
			p = hit + a->secret_len[i];
			hit = find_bytes(p, (size_t)(end - p), a->secrets[i],
			                 a->secret_len[i]);
		}
		if (!error)
			error = skitx_buf_add(&tmp, p, (size_t)(end - p));
		if (!error) {
			skitx_buf_clear(out);
			error = skitx_buf_add(out, tmp.ptr, tmp.len);
		}
	}
	skitx_buf_release(&tmp);
	return error;
}

int skit__audit_redact_buf(const skit_audit *a, struct skitx_buf *b)
{
	struct skitx_buf out = SKITX_BUF_INIT;
	bool changed = false;
	int error;

	if (!a || !a->nsecrets || !has_secret(a, b->ptr, b->len))
		return 0;
	error = redact_text(a, b->ptr, b->len, &out, &changed);
	if (!error && changed) {
		skitx_buf_clear(b);
		error = skitx_buf_add(b, out.ptr, out.len);
	}
	skitx_buf_release(&out);
	return error;
}

/* A JSON string for bytes that may not be UTF-8: bad bytes become '?'. */
static json_t *lossy_string(const char *s, size_t len)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t bad;
	json_t *j;

	if (!skitx_utf8_check(s, len, NULL))
		return json_stringn(s, len);
	if (skitx_buf_add(&b, s, len) < 0)
		return NULL;
	while (skitx_utf8_check(b.ptr, b.len, &bad))
		b.ptr[bad] = '?';
	j = json_stringn(b.ptr, b.len);
	skitx_buf_release(&b);
	return j;
}

/* A string value: redacted, and with `cut` shortened to CUT_STRING. */
static json_t *clean_string(const struct skit_audit *a, const char *s,
                            size_t len, bool cut)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	bool changed = false;
	json_t *j = NULL;
	size_t keep;

	if (redact_text(a, s, len, &b, &changed) < 0)
		goto out;
	if (cut && b.len > CUT_STRING) {
		size_t dropped;

		keep = CUT_STRING;
		/* back up to the start of a UTF-8 sequence */
		while (keep && ((unsigned char)b.ptr[keep] & 0xc0) == 0x80)
			keep--;
		dropped = b.len - keep;
		skitx_buf_truncate(&b, keep);
		if (skitx_buf_printf(&b, "...[cut %zu bytes]", dropped) < 0)
			goto out;
	}
	j = json_stringn(b.ptr, b.len);
	/* a secret that split a UTF-8 sequence leaves invalid text */
	if (!j && changed)
		j = json_string(REDACTED);
out:
	skitx_buf_release(&b);
	return j;
}

/*
 * A deep copy of `v` with every secret redacted (in strings, keys and
 * numbers) and, with `cut`, long strings shortened. A new reference, or
 * NULL on out-of-memory. Without secrets or cutting, `v` itself.
 */
static json_t *clean(const struct skit_audit *a, json_t *v, bool cut)
{
	char num[64];
	json_t *c = NULL;

	if (!a->nsecrets && !cut)
		return json_incref(v);
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *val;

		c = json_object();
		if (!c)
			return NULL;
		json_object_foreach(v, key, val)
		{
			struct skitx_buf k = SKITX_BUF_INIT;
			json_t *cv = clean(a, val, cut);
			bool changed;
			int bad;

			bad = !cv || redact_text(a, key, strlen(key), &k,
			                         &changed) < 0;
			if (!bad)
				bad = json_object_set_new(c, k.ptr, cv);
			else
				json_decref(cv);
			skitx_buf_release(&k);
			if (bad) {
				json_decref(c);
				return NULL;
			}
		}
		return c;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *val;

		c = json_array();
		if (!c)
			return NULL;
		json_array_foreach(v, i, val)
		{
			if (json_array_append_new(c, clean(a, val, cut))) {
				json_decref(c);
				return NULL;
			}
		}
		return c;
	}
	case JSON_STRING:
		return clean_string(a, json_string_value(v),
		                    json_string_length(v), cut);
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
		         json_integer_value(v));
		break;
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.17g", json_real_value(v));
		break;
	default:
		return json_incref(v);
	}
	if (has_secret(a, num, strlen(num)))
		return json_string(REDACTED);
	return json_incref(v);
}

static int json_sink(const char *buffer, size_t size, void *data)
{
	return skitx_buf_add(data, buffer, size) < 0 ? -1 : 0;
}

/*
 * Serialise `v` into `out` with secrets redacted, at most `max` bytes;
 * too long, it is tried again with its strings cut (and "cut": true).
 * Returns 0, SKIT_ENOMEM, SKIT_ETOOBIG (even cut it is too long) or
 * SECRET_LEFT (a secret survived, e.g. spanning two values).
 */
static int render(const struct skit_audit *a, json_t *v, size_t flags,
                  size_t max, struct skitx_buf *out)
{
	json_t *c;
	int error = 0;

	skitx_buf_clear(out);
	for (int pass = 0; pass < 2; pass++) {
		c = clean(a, v, pass == 1);
		if (!c)
			return SKIT_ENOMEM;
		if (pass == 1 && json_object_set_new(c, "cut", json_true())) {
			json_decref(c);
			return SKIT_ENOMEM;
		}
		skitx_buf_clear(out);
		error = json_dump_callback(c, json_sink, out, flags)
		                ? SKIT_ENOMEM
		                : 0;
		json_decref(c);
		if (error)
			return error;
		if (out->len <= max)
			break;
		error = SKIT_ETOOBIG;
	}
	if (error)
		return error;
	if (has_secret(a, out->ptr, out->len))
		return SECRET_LEFT;
	return 0;
}

static int set_member(json_t *obj, const char *key, json_t *v)
{
	return !v || json_object_set_new(obj, key, v) ? SKIT_ENOMEM : 0;
}

/* Copy the members of `from` into `to`, except the `reserved` names. */
static int merge(json_t *to, json_t *from, const char *const *reserved)
{
	const char *key;
	json_t *val;

	json_object_foreach(from, key, val)
	{
		bool skip = false;

		for (size_t i = 0; reserved[i]; i++)
			if (!strcmp(key, reserved[i]))
				skip = true;
		if (!skip && json_object_set(to, key, val))
			return SKIT_ENOMEM;
	}
	return 0;
}

/* Parse `text` as a JSON object (NULL text: *out = NULL). */
static int parse_object(json_t **out, const char *text, const char *what,
                        skit_error *err)
{
	json_error_t je;
	json_t *v;

	*out = NULL;
	if (!text)
		return 0;
	v = json_loads(text, 0, &je);
	if (!v) {
		if (json_error_code(&je) == json_error_out_of_memory)
			return skit__error_oom(err);
		return skit__error_set(err, SKIT_EINVALID, (unsigned)je.line,
		                       "%s: %s", what, je.text);
	}
	if (!json_is_object(v)) {
		json_decref(v);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s must be a JSON object", what);
	}
	*out = v;
	return 0;
}

/* ---- writing ----------------------------------------------------------- */

/*
 * Put a `.gitignore` holding `*` in the runs folder when it has none, so
 * that the trail (prompts, file contents, command output) never lands in
 * a commit and `git status` stays clean. An existing file is the user's
 * and is left alone; a folder we cannot write fails the run folder's own
 * creation just after, with the error that matters.
 */
static void keep_out_of_git(int runs_fd)
{
	int fd = openat(runs_fd, ".gitignore",
	                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                0600);

	if (fd < 0)
		return;
	(void)skitx_fs_write_all(fd, "*\n", 2);
	close(fd);
}

/*
 * Make (if missing) and open the folder `name` in `dirfd`, never through
 * a link: a link there (a cloned repository's `.agents/runs ->
 * /elsewhere`) fails with ELOOP or ENOTDIR.
 */
static int open_dir_at(int dirfd, const char *name, bool make)
{
	if (make && mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
		return -1;
	return openat(dirfd, name,
	              O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * Open the runs folder. Links are followed in the folders above its
 * parent, never in its parent or itself (`.agents` and `runs` in a
 * project, where a cloned repository or a script may have planted one).
 * -1 with errno and `*what` the path that failed.
 */
static int open_runs_dir(const char *runs_dir, char **what)
{
	char *copy = skitx_strdup(runs_dir), *base, *parent, *slash;
	int top = -1, mid = -1, fd = -1;

	*what = NULL;
	if (!copy) {
		errno = ENOMEM;
		return -1;
	}
	/* Drop trailing slashes; split off the last two components. */
	for (size_t n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = '\0';
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (slash)
		*slash = '\0';
	parent = slash ? copy : NULL;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		errno = EINVAL;
		goto out;
	}
	if (!parent) {
		top = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else if (!*parent) {
		top = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		const char *pbase;

		slash = strrchr(parent, '/');
		pbase = slash ? slash + 1 : parent;
		if (slash == parent) {
			top = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else if (slash) {
			*slash = '\0';
			if (skitx_fs_mkdir_p(parent, 0700) < 0 &&
			    errno != EEXIST)
				goto out;
			top = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else {
			top = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (top >= 0 && *pbase && strcmp(pbase, ".")) {
			mid = open_dir_at(top, pbase, true);
			close(top);
			top = mid;
			mid = -1;
		}
	}
	if (top >= 0)
		fd = open_dir_at(top, base, true);
out:
	if (fd < 0) {
		int keep = errno;

		*what = copy;
		copy = NULL;
		errno = keep;
	}
	if (top >= 0)
		close(top);
	skitx_free(copy);
	return fd;
}

int skit_audit_open(skit_audit **out, const char *runs_dir, skit_error *err)
{
	skit_audit *a = NULL;
	char stamp[32], name[64], *what = NULL;
	unsigned char rnd[4];
	bool made = false;
	int error, runs_fd = -1;

	assert(out && runs_dir);
	*out = NULL;
	a = skitx_calloc(1, sizeof(*a));
	if (!a)
		return skit__error_oom(err);
	a->fd = a->dirfd = -1;

	runs_fd = open_runs_dir(runs_dir, &what);
	if (runs_fd < 0) {
		if (errno == ENOMEM) {
			error = SKIT_ENOMEM;
			goto out;
		}
		error = skit__error_set(
		        err, SKIT_EIO, 0,
		        "cannot use %s as the runs folder: %s", runs_dir,
		        errno == ELOOP || errno == ENOTDIR
		                ? "it or its parent is a symbolic link or not "
		                  "a folder (give the real path)"
		                : strerror(errno));
		goto out;
	}
	keep_out_of_git(runs_fd);
	for (int tries = 0;; tries++) {
		now_text(a->started, stamp);
		error = random_bytes(rnd, sizeof(rnd));
		if (error < 0) {
			error = skit__error_set(
			        err, SKIT_EIO, 0,
			        "no random source for the run id");
			goto out;
		}
		snprintf(name, sizeof(name), "%s-%02x%02x%02x%02x", stamp,
		         rnd[0], rnd[1], rnd[2], rnd[3]);
		a->dir = skitx_path_join(runs_dir, name);
		if (!a->dir) {
			error = SKIT_ENOMEM;
			goto out;
		}
		/* A name that exists (even as a planted link) is never
		 * reused: a new id is drawn. */
		if (mkdirat(runs_fd, name, 0700) == 0) {
			made = true;
			break;
		}
		if (errno != EEXIST || tries + 1 >= OPEN_TRIES) {
			error = skit__error_set(err, SKIT_EIO, 0,
			                        "cannot create %s: %s", a->dir,
			                        strerror(errno));
			goto out;
		}
		skitx_free(a->dir);
		a->dir = NULL;
	}
	a->id = skitx_strdup(name);
	if (!a->id) {
		error = SKIT_ENOMEM;
		goto out;
	}
	a->dirfd = open_dir_at(runs_fd, name, false);
	if (a->dirfd >= 0)
		a->fd = openat(a->dirfd, "events.jsonl",
		               O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
		                       O_CLOEXEC | O_NOFOLLOW,
		               0600);
	if (a->fd < 0) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "cannot create %s/events.jsonl: %s",
		                        a->dir, strerror(errno));
		goto out;
	}
	/*
	 * Held until close: a reader that cannot take a shared lock knows
	 * the writer is alive ("running"). The kernel drops it when the
	 * process dies, however it dies. Best effort: some file systems
	 * have no flock().
	 */
	(void)flock(a->fd, LOCK_EX | LOCK_NB);
	*out = a;
	a = NULL;
	error = 0;
out:
	if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	if (a && made)
		unlinkat(runs_fd, name, AT_REMOVEDIR);
	if (runs_fd >= 0)
		close(runs_fd);
	skitx_free(what);
	skit_audit_free(a);
	return error;
}

int skit__audit_dirfd(const skit_audit *a)
{
	return a->dirfd;
}

const char *skit_audit_dir(const skit_audit *a)
{
	assert(a);
	return a->dir;
}

const char *skit_audit_id(const skit_audit *a)
{
	assert(a);
	return a->id;
}

int skit_audit_redact(skit_audit *a, const char *secret, skit_error *err)
{
	size_t len, i;
	char *copy;

	assert(a && secret);
	len = strlen(secret);
	if (len < MIN_SECRET)
		return 0;
	for (i = 0; i < a->nsecrets; i++)
		if (!strcmp(a->secrets[i], secret))
			return 0;
	if (a->nsecrets == MAX_SECRETS)
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "too many secrets (at most %d)",
		                       MAX_SECRETS);
	copy = skitx_strdup(secret);
	if (!copy)
		return skit__error_oom(err);
	/* keep the longest first, so a secret inside another goes last */
	for (i = a->nsecrets; i > 0 && a->secret_len[i - 1] < len; i--) {
		a->secrets[i] = a->secrets[i - 1];
		a->secret_len[i] = a->secret_len[i - 1];
	}
	a->secrets[i] = copy;
	a->secret_len[i] = len;
	a->nsecrets++;
	return 0;
}

int skit__audit_emit(skit_audit *a, const char *type, json_t *fields,
                     skit_error *err)
{
	static const char *const reserved[] = { "seq", "ts", "type", NULL };
	struct skitx_buf line = SKITX_BUF_INIT;
	json_t *ev = NULL;
	char ts[64];
	int error;

	assert(a && type);
	if (!valid_type(type)) {
		error = skit__error_set(err, SKIT_EINVALID, 0,
		                        "bad event type '%.64s'", type);
		goto out;
	}
	if (fields && !json_is_object(fields)) {
		error = skit__error_set(err, SKIT_EINVALID, 0,
		                        "event fields must be a JSON object");
		goto out;
	}
	now_text(ts, NULL);
	a->seq++; /* a failed event leaves a gap in seq: visible, not silent */
	ev = json_object();
	error = ev ? 0 : SKIT_ENOMEM;
	if (!error)
		error = set_member(ev, "seq", json_integer((json_int_t)a->seq));
	if (!error)
		error = set_member(ev, "ts", json_string(ts));
	if (!error)
		error = set_member(ev, "type", json_string(type));
	if (!error && fields)
		error = merge(ev, fields, reserved);
	if (!error)
		error = render(a, ev, EVENT_FLAGS, MAX_LINE, &line);
	if (error == SKIT_ETOOBIG || error == SECRET_LEFT) {
		/* a stub that still says an event happened, and why it is bare
		 */
		const char *why = error == SKIT_ETOOBIG ? "too big" : "secret";

		json_decref(ev);
		ev = json_object();
		error = ev ? 0 : SKIT_ENOMEM;
		if (!error)
			error = set_member(ev, "seq",
			                   json_integer((json_int_t)a->seq));
		if (!error)
			error = set_member(ev, "ts", json_string(ts));
		if (!error)
			error = set_member(
			        ev, "type",
			        json_string(has_secret(a, type, strlen(type))
			                            ? "withheld"
			                            : type));
		if (!error)
			error = set_member(ev, "withheld", json_string(why));
		if (!error)
			error = render(a, ev, EVENT_FLAGS, MAX_LINE, &line);
		if (error == SECRET_LEFT || error == SKIT_ETOOBIG) {
			error = skit__error_set(err, SKIT_EINVALID, 0,
			                        "event %llu not written: it "
			                        "cannot be redacted",
			                        a->seq);
			goto out;
		}
	}
	if (!error)
		error = skitx_buf_putc(&line, '\n');
	if (error < 0)
		goto out;
	/* One write(2) for the whole line, unless the kernel splits it. */
	error = skitx_fs_write_all(a->fd, line.ptr, line.len);
	if (error < 0) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "cannot write to %s: %s", a->dir,
		                        strerror(errno));
		goto out;
	}
	a->events++;
out:
	if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	json_decref(fields);
	json_decref(ev);
	skitx_buf_release(&line);
	return error;
}

int skit_audit_event(skit_audit *a, const char *type, const char *fields_json,
                     skit_error *err)
{
	json_t *fields;
	int error;

	assert(a && type);
	error = parse_object(&fields, fields_json, "event fields", err);
	if (error < 0)
		return error;
	return skit__audit_emit(a, type, fields, err);
}

int skit__audit_close_json(skit_audit *a, json_t *summary, skit_error *err)
{
	static const char *const reserved[] = { "id",    "dir",    "started",
		                                "ended", "events", NULL };
	struct skitx_buf text = SKITX_BUF_INIT;
	char ended[64], *path = NULL;
	json_t *run = NULL;
	int error, bad_summary = 0;

	assert(a);
	now_text(ended, NULL);
	if (summary && !json_is_object(summary)) {
		bad_summary = skit__error_set(err, SKIT_EINVALID, 0,
		                              "run summary must be a JSON "
		                              "object");
		json_decref(summary);
		summary = NULL;
	}
	run = json_object();
	error = run ? 0 : SKIT_ENOMEM;
	if (!error)
		error = set_member(run, "id", json_string(a->id));
	if (!error)
		error = set_member(run, "dir",
		                   lossy_string(a->dir, strlen(a->dir)));
	if (!error)
		error = set_member(run, "started", json_string(a->started));
	if (!error)
		error = set_member(run, "ended", json_string(ended));
	if (!error)
		error = set_member(run, "events",
		                   json_integer((json_int_t)a->events));
	if (!error && summary)
		error = merge(run, summary, reserved);
	if (!error)
		error = render(a, run, SUMMARY_FLAGS, MAX_RUN_JSON - 1, &text);
	if (error == SKIT_ETOOBIG || error == SECRET_LEFT) {
		error = skit__error_set(err, SKIT_EINVALID, 0,
		                        "run.json not written: the summary %s",
		                        error == SKIT_ETOOBIG
		                                ? "is too big"
		                                : "cannot be redacted");
		goto out;
	}
	if (!error)
		error = skitx_buf_putc(&text, '\n');
	if (!error) {
		path = skitx_path_join(a->dir, "run.json");
		if (!path)
			error = SKIT_ENOMEM;
	}
	if (error < 0)
		goto out;
	(void)fsync(a->fd);
	/* In the folder opened at the start, whatever its path leads to
	 * now. */
	error = skitx_fs_write_atomic_at(a->dirfd, "run.json", text.ptr,
	                                 text.len, 0600);
	if (error < 0 && error != SKIT_ENOMEM)
		error = skit__error_set(err, SKIT_EIO, 0, "cannot write %s: %s",
		                        path, strerror(errno));
out:
	if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	if (!error)
		error = bad_summary;
	json_decref(summary);
	json_decref(run);
	skitx_free(path);
	skitx_buf_release(&text);
	skit_audit_free(a);
	return error;
}

int skit_audit_close(skit_audit *a, const char *summary_json, skit_error *err)
{
	json_t *summary;
	int error;

	assert(a);
	error = parse_object(&summary, summary_json, "run summary", err);
	if (error == SKIT_ENOMEM) {
		skit_audit_free(a);
		return error;
	}
	/* a bad summary still ends the run: run.json without it */
	if (error < 0) {
		skit__audit_close_json(a, NULL, NULL);
		return error;
	}
	return skit__audit_close_json(a, summary, err);
}

void skit_audit_free(skit_audit *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	if (a->dirfd >= 0)
		close(a->dirfd);
	for (size_t i = 0; i < a->nsecrets; i++) {
		/* do not leave the key lying in freed memory */
		memset(a->secrets[i], 0, a->secret_len[i]);
		skitx_free(a->secrets[i]);
	}
	skitx_free(a->dir);
	skitx_free(a->id);
	skitx_free(a);
}

/* ---- reading ----------------------------------------------------------- */

typedef int (*event_fn)(json_t *ev, const char *text, size_t len,
                        void *payload);

/*
 * Walk events.jsonl: every complete line that is a JSON object goes to
 * `fn`; the others are counted in `*torn`.
 */
static int walk_events(const char *run_dir, event_fn fn, void *payload,
                       size_t *torn, skit_error *err)
{
	struct skitx_buf buf = SKITX_BUF_INIT;
	char *path, *p, *end, *nl;
	size_t ntorn = 0;
	int error;

	path = skitx_path_join(run_dir, "events.jsonl");
	if (!path)
		return skit__error_oom(err);
	error = skitx_fs_read_file(path, &buf, MAX_EVENTS_FILE);
	if (error == SKIT_ENOTFOUND)
		error = skit__error_set(err, error, 0, "no events.jsonl in %s",
		                        run_dir);
	else if (error == SKIT_ETOOBIG)
		error = skit__error_set(err, error, 0,
		                        "%s is over the 64 MiB limit", path);
	else if (error == SKIT_EUNSAFE || error == SKIT_EIO)
		error = skit__error_set(err, error, 0,
		                        "cannot read %s: not a regular file "
		                        "or unreadable",
		                        path);
	else if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	if (error < 0)
		goto out;

	p = buf.ptr;
	end = buf.ptr + buf.len;
	while (p < end) {
		size_t len;
		json_error_t je;
		json_t *ev;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			ntorn++; /* no newline: the write was cut short */
			break;
		}
		len = (size_t)(nl - p);
		*nl = '\0';
		if (!len) {
			p = nl + 1;
			continue;
		}
		if (len > MAX_LINE) {
			ntorn++;
			p = nl + 1;
			continue;
		}
		ev = json_loadb(p, len, 0, &je);
		if (!ev && json_error_code(&je) == json_error_out_of_memory) {
			error = skit__error_oom(err);
			goto out;
		}
		if (!json_is_object(ev)) {
			ntorn++;
			json_decref(ev);
			p = nl + 1;
			continue;
		}
		error = fn(ev, p, len, payload);
		json_decref(ev);
		if (error)
			goto out;
		p = nl + 1;
	}
out:
	if (torn)
		*torn = ntorn;
	skitx_free(path);
	skitx_buf_release(&buf);
	return error;
}

struct public_cb {
	skit_run_event_cb cb;
	void *payload;
};

static int call_public(json_t *ev, const char *text, size_t len, void *payload)
{
	struct public_cb *p = payload;

	(void)ev;
	return p->cb(text, len, p->payload);
}

int skit_run_foreach_event(const char *run_dir, skit_run_event_cb cb,
                           void *payload, size_t *torn, skit_error *err)
{
	struct public_cb p;

	assert(run_dir && cb);
	p.cb = cb;
	p.payload = payload;
	return walk_events(run_dir, call_public, &p, torn, err);
}

/* ---- run records ------------------------------------------------------- */

struct names {
	char **items;
	size_t len, alloc;
};

static int cmp_desc(const void *x, const void *y)
{
	return strcmp(*(char *const *)y, *(char *const *)x);
}

static void names_keep(struct names *n, size_t keep)
{
	if (!n->len)
		return;
	qsort(n->items, n->len, sizeof(*n->items), cmp_desc);
	for (size_t i = keep; i < n->len; i++)
		skitx_free(n->items[i]);
	if (n->len > keep)
		n->len = keep;
}

static void names_release(struct names *n)
{
	for (size_t i = 0; i < n->len; i++)
		skitx_free(n->items[i]);
	skitx_free(n->items);
	n->items = NULL;
	n->len = n->alloc = 0;
}

/*
 * The run folder names under `runs_dir`, newest first, at most MAX_RUNS.
 * The list is trimmed whenever it reaches twice the cap, so memory stays
 * bounded however many folders there are.
 */
static int list_names(struct names *n, const char *runs_dir, skit_error *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int error = 0;

	d = opendir(runs_dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return skit__error_set(err, SKIT_EIO, 0, "cannot read %s: %s",
		                       runs_dir, strerror(errno));
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (!is_run_name(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) <
		            0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (n->len == n->alloc) {
			size_t na = n->alloc ? n->alloc * 2 : 64;
			char **items;

			if (na > 2 * MAX_RUNS)
				na = 2 * MAX_RUNS;
			items = skitx_realloc(n->items, na * sizeof(*items));
			if (!items) {
				error = skit__error_oom(err);
				goto out;
			}
			n->items = items;
			n->alloc = na;
		}
		n->items[n->len] = skitx_strdup(de->d_name);
		if (!n->items[n->len]) {
			error = skit__error_oom(err);
			goto out;
		}
		n->len++;
		if (n->len == 2 * MAX_RUNS)
			names_keep(n, MAX_RUNS);
	}
	if (errno)
		error = skit__error_set(err, SKIT_EIO, 0, "cannot read %s: %s",
		                        runs_dir, strerror(errno));
	names_keep(n, MAX_RUNS);
out:
	closedir(d);
	return error;
}

/* Is a process still holding the writer's lock on events.jsonl? */
bool skit__audit_writer_alive(const char *dir)
{
	char *path = skitx_path_join(dir, "events.jsonl");
	bool alive = false;
	int fd;

	if (!path)
		return false;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	skitx_free(path);
	if (fd < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		alive = errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

/* Copy a string member of `obj` into `*dst` (unless absent or not one). */
static int take_str(char **dst, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_string(v))
		return 0;
	skitx_free(*dst);
	*dst = skitx_strndup(json_string_value(v), json_string_length(v));
	return *dst ? 0 : SKIT_ENOMEM;
}

static unsigned long long get_count(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return 0;
	return (unsigned long long)json_integer_value(v);
}

/* Facts gathered from the events of a run that has no run.json. */
static int gather(json_t *ev, const char *text, size_t len, void *payload)
{
	skit_run_info *info = payload;
	const char *type = json_string_value(json_object_get(ev, "type"));
	int error = 0;

	(void)text;
	(void)len;
	if (!info->events++ && !info->started)
		error = take_str(&info->started, ev, "ts");
	if (!type || error)
		return error;
	if (!strcmp(type, "run_start") && !info->task && !info->model) {
		error = take_str(&info->task, ev, "task");
		if (!error)
			error = take_str(&info->model, ev, "model");
	} else if (!strcmp(type, "model_response")) {
		json_t *usage = json_object_get(ev, "usage");
		unsigned long turn = (unsigned long)get_count(ev, "turn");

		info->turns = turn > info->turns ? turn : info->turns + !turn;
		info->input_tokens += get_count(usage, "input_tokens");
		info->output_tokens += get_count(usage, "output_tokens");
	} else if (!strcmp(type, "tool_call")) {
		info->tool_calls++;
	}
	return error;
}

/* "20261121T143005Z-..." -> "2026-11-21T14:30:05Z" */
static char *started_from_name(const char *name)
{
	char s[32];

	snprintf(s, sizeof(s), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", name, name + 4,
	         name + 6, name + 9, name + 11, name + 13);
	return skitx_strdup(s);
}

static int fill_from_run_json(skit_run_info *info, json_t *run)
{
	json_t *usage = json_object_get(run, "usage");
	int error;

	error = take_str(&info->started, run, "started");
	if (!error)
		error = take_str(&info->ended, run, "ended");
	if (!error)
		error = take_str(&info->status, run, "status");
	if (!error)
		error = take_str(&info->task, run, "task");
	if (!error)
		error = take_str(&info->model, run, "model");
	info->turns = (unsigned long)get_count(run, "turns");
	info->tool_calls = (unsigned long)get_count(run, "tool_calls");
	info->input_tokens = get_count(usage, "input_tokens");
	info->output_tokens = get_count(usage, "output_tokens");
	info->events = (size_t)get_count(run, "events");
	if (!error && !info->status)
		info->status = skitx_strdup("unknown");
	return error || !info->status ? SKIT_ENOMEM : 0;
}

static void info_release(skit_run_info *info)
{
	skitx_free(info->id);
	skitx_free(info->dir);
	skitx_free(info->started);
	skitx_free(info->ended);
	skitx_free(info->status);
	skitx_free(info->task);
	skitx_free(info->model);
	memset(info, 0, sizeof(*info));
}

/* Fill `info` for the run folder `name` under `runs_dir`. */
static int load_info(skit_run_info *info, const char *runs_dir,
                     const char *name, skit_error *err)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	const char *status = NULL;
	char *path = NULL;
	json_t *run = NULL;
	int error;

	memset(info, 0, sizeof(*info));
	info->id = skitx_strdup(name);
	info->dir = skitx_path_join(runs_dir, name);
	if (info->dir)
		path = skitx_path_join(info->dir, "run.json");
	if (!info->id || !path) {
		error = SKIT_ENOMEM;
		goto out;
	}
	error = skitx_fs_read_file(path, &text, MAX_RUN_JSON);
	if (error == SKIT_ENOMEM)
		goto out;
	if (!error) {
		json_error_t je;

		run = json_loadb(text.ptr, text.len, 0, &je);
		if (json_is_object(run)) {
			error = fill_from_run_json(info, run);
			if (!error && !info->started) {
				info->started = started_from_name(name);
				if (!info->started)
					error = SKIT_ENOMEM;
			}
			goto out;
		}
		if (!run && json_error_code(&je) == json_error_out_of_memory) {
			error = SKIT_ENOMEM;
			goto out;
		}
		status = "invalid";
	} else {
		status = error == SKIT_ENOTFOUND ? NULL : "invalid";
	}
	if (!status)
		status = skit__audit_writer_alive(info->dir) ? "running"
		                                             : "incomplete";
	info->status = skitx_strdup(status);
	if (!info->status) {
		error = SKIT_ENOMEM;
		goto out;
	}
	/* no usable run.json: what the events say, as far as they go */
	error = walk_events(info->dir, gather, info, NULL, NULL);
	if (error != SKIT_ENOMEM)
		error = 0;
	if (!error && !info->started) {
		info->started = started_from_name(name);
		if (!info->started)
			error = SKIT_ENOMEM;
	}
out:
	if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	json_decref(run);
	skitx_free(path);
	skitx_buf_release(&text);
	return error;
}

int skit_runs_list(skit_run_info **out, size_t *count, const char *runs_dir,
                   skit_error *err)
{
	struct names n = { NULL, 0, 0 };
	skit_run_info *runs = NULL;
	size_t done = 0;
	int error;

	assert(out && count && runs_dir);
	*out = NULL;
	*count = 0;
	error = list_names(&n, runs_dir, err);
	if (error < 0 || !n.len)
		goto out;
	runs = skitx_calloc(n.len, sizeof(*runs));
	if (!runs) {
		error = skit__error_oom(err);
		goto out;
	}
	for (; done < n.len; done++) {
		error = load_info(&runs[done], runs_dir, n.items[done], err);
		if (error < 0) {
			done++; /* free the partly filled one too */
			goto out;
		}
	}
	*out = runs;
	*count = n.len;
	runs = NULL;
out:
	skit_runs_free(runs, done);
	names_release(&n);
	return error;
}

void skit_runs_free(skit_run_info *runs, size_t count)
{
	if (!runs)
		return;
	for (size_t i = 0; i < count; i++)
		info_release(&runs[i]);
	skitx_free(runs);
}

int skit_run_find(skit_run_info **out, const char *runs_dir, const char *id,
                  skit_error *err)
{
	struct names n = { NULL, 0, 0 };
	const char *pick = NULL, *other = NULL;
	skit_run_info *info = NULL;
	size_t idlen;
	bool exact, hex, found;
	int error;

	assert(out && runs_dir && id);
	*out = NULL;
	error = list_names(&n, runs_dir, err);
	if (error < 0)
		goto out;
	idlen = strlen(id);
	if (!strcmp(id, "last") && n.len)
		pick = n.items[0];
	for (size_t i = 0; !pick && i < n.len; i++)
		if (!strcmp(n.items[i], id))
			pick = n.items[i];
	exact = pick != NULL;
	/* then the random part alone, then a prefix of the folder name */
	for (size_t i = 0; !exact && is_hex8(id) && i < n.len; i++)
		if (!strcmp(n.items[i] + RUN_NAME_LEN - 8, id)) {
			if (!pick)
				pick = n.items[i];
			else if (!other)
				other = n.items[i];
		}
	hex = pick != NULL;
	for (size_t i = 0; !exact && !hex && idlen && i < n.len; i++)
		if (!strncmp(n.items[i], id, idlen)) {
			if (!pick)
				pick = n.items[i];
			else if (!other)
				other = n.items[i];
		}
	/* last, a prefix of the random part (like a short git hash) */
	found = pick != NULL;
	for (size_t i = 0; !found && idlen >= 4 && idlen < 8 && i < n.len; i++)
		if (!strncmp(n.items[i] + RUN_NAME_LEN - 8, id, idlen)) {
			if (!pick)
				pick = n.items[i];
			else if (!other)
				other = n.items[i];
		}
	if (other) {
		error = skit__error_set(
		        err, SKIT_EINVALID, 0,
		        "run id '%.64s' is ambiguous: %s, %s...", id, pick,
		        other);
		goto out;
	}
	if (!pick) {
		error = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                        "no run '%.64s' in %s", id, runs_dir);
		goto out;
	}
	info = skitx_calloc(1, sizeof(*info));
	if (!info) {
		error = skit__error_oom(err);
		goto out;
	}
	error = load_info(info, runs_dir, pick, err);
	if (error < 0)
		goto out;
	*out = info;
	info = NULL;
out:
	skit_runs_free(info, 1);
	names_release(&n);
	return error;
}

/* ---- removing runs ----------------------------------------------------- */

/* Deepest folder a run may hold (scripts write work/ as they like). */
#define REMOVE_DEPTH 256

/*
 * Remove `name` under the folder open at `dfd` and, for a folder, all it
 * holds, never following a symbolic link (a link is removed, not its
 * target). 0, or -1 with errno set.
 */
static int remove_at(int dfd, const char *name, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, e = 0;

	if (!unlinkat(dfd, name, 0) || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	if (depth >= REMOVE_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	while (!e && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (remove_at(dirfd(d), de->d_name, depth + 1) < 0)
			e = errno;
	}
	closedir(d);
	if (e) {
		errno = e;
		return -1;
	}
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

int skit_run_remove(const char *runs_dir, const char *id, skit_error *err)
{
	int dfd, rc;

	assert(runs_dir && id);
	if (!is_run_name(id))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "'%.64s' is not a run folder name", id);
	dfd = open(runs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return skit__error_set(
		        err, errno == ENOENT ? SKIT_ENOTFOUND : SKIT_EIO, 0,
		        "%s: %s", runs_dir, strerror(errno));
	rc = remove_at(dfd, id, 0);
	if (rc < 0)
		rc = skit__error_set(err, SKIT_EIO, 0,
		                     "cannot remove %s/%s: %s", runs_dir, id,
		                     strerror(errno));
	close(dfd);
	return rc;
}
