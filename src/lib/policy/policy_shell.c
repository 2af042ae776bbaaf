/* SPDX-License-Identifier: MIT */
/*
 * policy_shell.c - the command patterns (Bash, shell, run_skill_script)
 * against a command line: the line read as sh(1) splits it to find every
 * program it may start (pipelines, substitutions, runners such as sudo
 * or xargs, env -S), and the options that make a program run other code.
 */
#include "common.h"

#include "lib/policy/policy_int.h"

/* Shell characters that join, nest or redirect commands. */
#define SHELL_OPERATORS ";&|()`$<>\n\r"
/* Where a compound command line splits into simple commands. */
#define SHELL_SPLIT ";&|()`\n\r"

/* ---- shell command lines ---------------------------------------------- */

/*
 * A command line is read the way sh(1) splits it, closely enough to find
 * every place a program is started: words with their quotes removed,
 * separators (; & | ( ) newline), redirections and their targets, command
 * substitutions ($(...) and backticks, also inside double quotes) and the
 * reserved words that open compound commands. It is not a shell: what it
 * cannot read for sure (a command word holding $, a glob, a line too long)
 * counts as a match for deny and ask patterns and never for allow ones.
 */
#define SCAN_WORDS 64
#define SCAN_BUF   8192
#define SCAN_DEPTH 4

/* The words of one simple command, unquoted into `buf`. */
struct cmdwords {
	const char *w[SCAN_WORDS];
	bool odd[SCAN_WORDS]; /* holds an expansion or a glob: unreadable */
	size_t n;
	bool cut; /* more words than fit, or out of room */
	size_t used;
	char buf[SCAN_BUF];
};

/* Bytes one check may scan, nested scripts included: a line built to be
 * read again and again (runners and shells given the same script many
 * times) is refused rather than read for long. */
#define SCAN_BUDGET (1024 * 1024)

/* A search for the simple commands a restrictive pattern names. */
struct scan {
	const struct pattern *pat;
	bool hit;
	size_t budget; /* bytes left to scan */
};

static void scan_script(struct scan *sc, const char *s, const char *e,
                        int depth);

/* Programs that run the command given in their arguments. */
static const char *const runners[] = {
	"xargs",   "env",      "sudo",      "doas",   "su",      "nice",
	"nohup",   "timeout",  "time",      "exec",   "eval",    "command",
	"builtin", "stdbuf",   "setsid",    "chroot", "unshare", "nsenter",
	"ionice",  "taskset",  "flock",     "watch",  "strace",  "ltrace",
	"script",  "parallel", "run-parts", "sh",     "bash",    "dash",
	"zsh",     "ksh",      "mksh",      "ash",    "fish",    "csh",
	"tcsh",    "busybox",  "awk",       "gawk",   "mawk",    "nawk",
	"source",  ".",
};

/* Of those, the ones whose arguments are themselves command lines. */
static const char *const script_takers[] = {
	"sh",   "bash", "dash", "zsh",     "ksh", "mksh", "ash",
	"fish", "csh",  "tcsh", "busybox", "su",  "eval", "source",
};

static bool in_list(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, list[i]))
			return true;
	return false;
}

/* The program name of a command word: "/usr/bin/rm" -> "rm". */
static const char *base_name(const char *w)
{
	const char *slash = strrchr(w, '/');

	return slash && slash[1] ? slash + 1 : w;
}

static bool cw_putc(struct cmdwords *cw, char c)
{
	if (cw->used + 1 >= SCAN_BUF) {
		cw->cut = true;
		return false;
	}
	cw->buf[cw->used++] = c;
	return true;
}

/* Close the word begun at buf[start]; one that does not fit is dropped
 * and the command marked cut. */
static void cw_end_word(struct cmdwords *cw, size_t start, bool odd)
{
	if (cw->n == SCAN_WORDS || !cw_putc(cw, '\0')) {
		cw->cut = true;
		cw->used = start;
		return;
	}
	cw->w[cw->n] = cw->buf + start;
	cw->odd[cw->n++] = odd;
}

/* The end of a "$(" substitution opened before `s`: its ")" or `e`. */
static const char *paren_close(const char *s, const char *e)
{
	int depth = 1;

	while (s < e) {
		if (*s == '\\' && s + 1 < e) {
			s += 2;
			continue;
		}
		if (*s == '\'') {
			const char *q =
			        memchr(s + 1, '\'', (size_t)(e - s - 1));

			s = q ? q + 1 : e;
			continue;
		}
		if (*s == '(')
			depth++;
		else if (*s == ')' && !--depth)
			return s;
		s++;
	}
	return e;
}

/* The closing backtick of one opened before `s`, or `e`. */
static const char *tick_close(const char *s, const char *e)
{
	while (s < e && *s != '`')
		s += *s == '\\' && s + 1 < e ? 2 : 1;
	return s;
}

/*
 * Read one word at *sp into `cw` (quotes removed), scanning every command
 * substitution in it as a command line of its own. Stops at a blank, a
 * separator or a redirection outside quotes.
 */
static void read_word(struct scan *sc, const char **sp, const char *e,
                      struct cmdwords *cw, int depth)
{
	const char *s = *sp;
	size_t start = cw->used;
	bool odd = false, dq = false;

	while (s < e) {
		char ch = *s;

		if (!dq &&
		    (skit__policy_is_blank(ch) || strchr(";&|()<>\n\r", ch)))
			break;
		if (ch == '\\' && s + 1 < e) {
			if (s[1] == '\n') {
				s += 2;
				continue;
			}
			if (dq && !strchr("$`\"\\", s[1])) {
				cw_putc(cw, '\\');
				s++;
				continue;
			}
			cw_putc(cw, s[1]);
			s += 2;
			continue;
		}
		if (ch == '\'' && !dq) {
			const char *q =
			        memchr(s + 1, '\'', (size_t)(e - s - 1));
			const char *end = q ? q : e;

			for (s++; s < end; s++)
				cw_putc(cw, *s);
			s = q ? q + 1 : e;
			continue;
		}
		if (ch == '"') {
			dq = !dq;
			s++;
			continue;
		}
		if (ch == '$' && s + 1 < e && s[1] == '(') {
			const char *close = paren_close(s + 2, e);

			scan_script(sc, s + 2, close, depth + 1);
			odd = true;
			s = close < e ? close + 1 : e;
			continue;
		}
		if (ch == '`') {
			const char *close = tick_close(s + 1, e);

			scan_script(sc, s + 1, close, depth + 1);
			odd = true;
			s = close < e ? close + 1 : e;
			continue;
		}
		if (ch == '$' || (!dq && strchr("*?[", ch)))
			odd = true;
		cw_putc(cw, ch);
		s++;
	}
	*sp = s;
	cw_end_word(cw, start, odd);
}

/*
 * Whether the words from `j` on are the pattern's command. `strict`: the
 * word at `j` is surely in command position, so an unreadable one counts
 * as a match (any program could be behind "$x").
 */
static bool words_at(const struct pattern *pat, const struct cmdwords *cw,
                     size_t j, bool strict)
{
	const char *p = pat->arg;
	size_t i = j;

	if (cw->odd[j])
		return strict;
	while (*p) {
		size_t wl = strcspn(p, " ");

		if (i == cw->n)
			return cw->cut;
		if (!cw->odd[i]) {
			const char *w = cw->w[i];
			bool eq = strlen(w) == wl && !memcmp(w, p, wl);

			if (!eq && i == j) {
				w = base_name(w);
				eq = strlen(w) == wl && !memcmp(w, p, wl);
			}
			if (!eq)
				return false;
		}
		i++;
		p += wl;
		if (*p)
			p++;
	}
	return pat->prefix || i == cw->n || cw->cut;
}

/* Scan the words from `from` on as command lines of their own. */
static void scan_words_as_scripts(struct scan *sc, const struct cmdwords *cw,
                                  size_t from, int depth)
{
	for (size_t j = from; j < cw->n && !sc->hit; j++)
		if (!cw->odd[j])
			scan_script(sc, cw->w[j], cw->w[j] + strlen(cw->w[j]),
			            depth + 1);
}

/* ---- env -S ----------------------------------------------------------- */

/*
 * env -S STRING (--split-string, -vS, --split=...; the shebang form)
 * splits STRING into words by rules of its own and parses them as if they
 * had stood on the command line in its place: options first (another -S,
 * -u, -C), then NAME=VALUE words, then the program. A program in there is
 * one word of the outer line, "rm -v x", so the split is done here as env
 * does it and the words are checked as a command of their own.
 */

static bool env_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

/*
 * Split `s` the way GNU env -S does, appending the words to `cw`. Outside
 * single quotes: \_ separates words (a space inside double quotes), \c
 * ends the string (env refuses it inside double quotes), \f \n \r \t \v
 * are those bytes, \# \$ \" \' \\ the character; a word opening with #
 * starts a comment; ${NAME} is expanded, so the word is unreadable. Inside
 * single quotes only \\ and \' are escapes. Whatever env would refuse
 * (another escape, a lone $, an open quote) marks the word unreadable too:
 * when in doubt, the word could be anything.
 */
static void env_split(struct cmdwords *cw, const char *s)
{
	while (*s) {
		bool sq = false, dq = false, odd = false, stop = false;
		size_t start = cw->used;

		while (env_space(*s) || (s[0] == '\\' && s[1] == '_'))
			s += *s == '\\' ? 2 : 1;
		if (!*s || *s == '#')
			return;
		for (; *s; s++) {
			char ch = *s, n = s[1];

			if (!sq && !dq && env_space(ch))
				break;
			if (ch == '\'' && !dq) {
				sq = !sq;
			} else if (ch == '"' && !sq) {
				dq = !dq;
			} else if (ch == '\\' && sq) {
				if (n == '\\' || n == '\'')
					ch = *++s;
				cw_putc(cw, ch);
			} else if (ch == '\\') {
				if (n == '_' && !dq)
					break;
				if (n == 'c') {
					odd |= dq;
					stop = true;
					break;
				}
				s++;
				if (!n || !strchr("_fnrtv#$\"'\\", n)) {
					odd = true;
					if (!n)
						break;
				}
				cw_putc(cw, n == '_'   ? ' '
				            : n == 'f' ? '\f'
				            : n == 'n' ? '\n'
				            : n == 'r' ? '\r'
				            : n == 't' ? '\t'
				            : n == 'v' ? '\v'
				                       : n);
			} else {
				odd |= ch == '$' && !sq;
				cw_putc(cw, ch);
			}
		}
		cw_end_word(cw, start, odd || sq || dq);
		if (stop)
			return;
	}
}

/* Whether long option `w` ("--name[=value]") is env's `opt`, abbreviated
 * or not (getopt takes any unambiguous prefix). */
static bool env_long(const char *w, const char *opt)
{
	size_t n = strcspn(w + 2, "=");

	return n && n <= strlen(opt) && !strncmp(w + 2, opt, n);
}

static void check_command(struct scan *sc, const struct cmdwords *cw,
                          int depth);

/*
 * The command env runs once its split string `arg` is read: "env", the
 * split words (env parses them for options again), then the words of `cw`
 * from `next` on. Checked as a command of its own, one level deeper.
 */
static void env_resplit(struct scan *sc, const struct cmdwords *cw,
                        const char *arg, size_t next, int depth)
{
	struct cmdwords nw;
	size_t len = strlen(arg);

	if (depth >= SCAN_DEPTH || len > sc->budget) {
		sc->hit = true; /* too deep or too much to read: refuse */
		return;
	}
	sc->budget -= len;
	nw.n = 0;
	nw.used = 0;
	nw.cut = cw->cut;
	nw.w[nw.n] = "env";
	nw.odd[nw.n++] = false;
	env_split(&nw, arg);
	for (size_t j = next; j < cw->n; j++) {
		if (nw.n == SCAN_WORDS) {
			nw.cut = true;
			break;
		}
		nw.w[nw.n] = cw->w[j];
		nw.odd[nw.n++] = cw->odd[j];
	}
	check_command(sc, &nw, depth + 1);
}

/*
 * Walk the options of the env at word `k` as getopt does ("+C:iS:u:v0":
 * options end at the first other word) and check what a split string
 * makes of the line. An option word that cannot be read ("$OPTS") could
 * be -S: refused.
 */
static void scan_env(struct scan *sc, const struct cmdwords *cw, size_t k,
                     int depth)
{
	for (size_t j = k + 1; j < cw->n && !sc->hit; j++) {
		const char *w = cw->w[j], *arg = NULL;

		if (cw->odd[j]) {
			if (!skit__policy_is_name_char(w[0], false) &&
			    w[0] != '/' && w[0] != '.')
				sc->hit = true;
			return;
		}
		if (w[0] != '-' || !w[1] || !strcmp(w, "--"))
			return;
		if (w[1] == '-') {
			const char *eq = strchr(w, '=');

			if (env_long(w, "split-string"))
				arg = eq              ? eq + 1
				      : j + 1 < cw->n ? cw->w[++j]
				                      : "";
			else if (!eq &&
			         (env_long(w, "unset") || env_long(w, "chdir")))
				j++;
		} else {
			for (const char *c = w + 1; *c; c++) {
				if (*c == 'u' || *c == 'C') {
					j += !c[1];
					break;
				}
				if (*c == 'S') {
					arg = c[1]            ? c + 1
					      : j + 1 < cw->n ? cw->w[++j]
					                      : "";
					break;
				}
			}
		}
		if (arg) {
			if (j < cw->n && cw->odd[j])
				sc->hit = true; /* -S "$X": any program */
			else
				env_resplit(sc, cw, arg, j + 1, depth);
			return;
		}
	}
	if (cw->cut)
		sc->hit = true; /* the options went on past what was read */
}

/* A program started by a runner may sit at any later word. */
static void scan_suffixes(struct scan *sc, const struct cmdwords *cw,
                          size_t from, int depth)
{
	for (size_t j = from; j < cw->n && !sc->hit; j++) {
		if (words_at(sc->pat, cw, j, false))
			sc->hit = true;
		else if (!cw->odd[j] &&
		         in_list(base_name(cw->w[j]), script_takers,
		                 SKIT_ARRAY_SIZE(script_takers)))
			scan_words_as_scripts(sc, cw, j + 1, depth);
		else if (!cw->odd[j] && !strcmp(base_name(cw->w[j]), "env"))
			scan_env(sc, cw, j, depth);
	}
}

static bool is_assignment(const char *w)
{
	size_t n = 0;

	while (skit__policy_is_name_char(w[n], !n))
		n++;
	return n && w[n] == '=';
}

/* One simple command has been read: does it start what the pattern
 * names, directly or through a runner, a shell or find -exec? */
static void check_command(struct scan *sc, const struct cmdwords *cw, int depth)
{
	static const char *const skip[] = { "!",    "{",     "}",     "if",
		                            "then", "else",  "elif",  "fi",
		                            "do",   "done",  "while", "until",
		                            "esac", "coproc" };
	static const char *const data[] = { "for", "select", "case",
		                            "function" };
	size_t k = 0;
	const char *prog;

	while (k < cw->n && !cw->odd[k] &&
	       in_list(cw->w[k], skip, SKIT_ARRAY_SIZE(skip)))
		k++;
	if (k < cw->n && !cw->odd[k] &&
	    in_list(cw->w[k], data, SKIT_ARRAY_SIZE(data)))
		return; /* names and words, not commands */
	while (k < cw->n && is_assignment(cw->w[k]))
		k++;
	if (k == cw->n) {
		if (cw->cut)
			sc->hit = true; /* the command word was cut off */
		return;
	}
	if (words_at(sc->pat, cw, k, true)) {
		sc->hit = true;
		return;
	}
	if (cw->odd[k])
		return;
	prog = base_name(cw->w[k]);
	if (in_list(prog, script_takers, SKIT_ARRAY_SIZE(script_takers)))
		scan_words_as_scripts(sc, cw, k + 1, depth);
	if (!strcmp(prog, "env"))
		scan_env(sc, cw, k, depth);
	if (in_list(prog, runners, SKIT_ARRAY_SIZE(runners)))
		scan_suffixes(sc, cw, k + 1, depth);
	else if (!strcmp(prog, "find")) {
		for (size_t j = k + 1; j < cw->n; j++)
			if (!strcmp(cw->w[j], "-exec") ||
			    !strcmp(cw->w[j], "-execdir") ||
			    !strcmp(cw->w[j], "-ok") ||
			    !strcmp(cw->w[j], "-okdir"))
				scan_suffixes(sc, cw, j + 1, depth);
	} else if (!strcmp(prog, "git")) {
		/* -c alias.x='!cmd' runs cmd through the shell */
		for (size_t j = k + 1; j < cw->n && !sc->hit; j++) {
			const char *bang = strstr(cw->w[j], "=!");

			if (bang && !cw->odd[j])
				scan_script(sc, bang + 2,
				            bang + 2 + strlen(bang + 2),
				            depth + 1);
		}
	}
}

static void scan_script(struct scan *sc, const char *s, const char *e,
                        int depth)
{
	struct cmdwords cw;

	if (depth > SCAN_DEPTH || (size_t)(e - s) > sc->budget) {
		sc->hit = true; /* too deep or too much to read: refuse */
		return;
	}
	sc->budget -= (size_t)(e - s);
	cw.n = 0;
	cw.used = 0;
	cw.cut = false;
	while (!sc->hit) {
		while (s < e && skit__policy_is_blank(*s))
			s++;
		if (s == e || strchr(";&|()\n\r", *s)) {
			if (cw.n || cw.cut)
				check_command(sc, &cw, depth);
			cw.n = 0;
			cw.used = 0;
			cw.cut = false;
			if (s == e)
				break;
			s++;
			continue;
		}
		if (*s == '<' || *s == '>') {
			/* "2>" : the digits were a descriptor, not a word */
			if (cw.n && !skit__policy_is_blank(s[-1]) &&
			    !cw.odd[cw.n - 1] && cw.w[cw.n - 1][0] &&
			    !cw.w[cw.n - 1]
			         [strspn(cw.w[cw.n - 1], "0123456789")]) {
				cw.n--;
				cw.used = (size_t)(cw.w[cw.n] - cw.buf);
			}
			while (s < e && strchr("<>&|", *s))
				s++;
			if (s < e && *s == '(') { /* <(...) and >(...) */
				const char *close = paren_close(s + 1, e);

				scan_script(sc, s + 1, close, depth + 1);
				s = close < e ? close + 1 : e;
				continue;
			}
			while (s < e && skit__policy_is_blank(*s))
				s++;
			if (s < e && !strchr(";&|()<>\n\r", *s)) {
				size_t n = cw.n, used = cw.used;

				read_word(sc, &s, e, &cw, depth);
				cw.n = n; /* the target is no word */
				cw.used = used;
			}
			continue;
		}
		read_word(sc, &s, e, &cw, depth);
	}
}

/* Whether a restrictive pattern names a program the line may start. */
static bool shell_refuses(const struct pattern *pat, const char *cmd)
{
	struct scan sc;

	sc.pat = pat;
	sc.hit = false;
	sc.budget = SCAN_BUDGET;
	scan_script(&sc, cmd, cmd + strlen(cmd), 0);
	return sc.hit;
}

/* Git's options that run code or load another repository's config. */
static bool git_risky(const struct cmdwords *cw)
{
	static const char *const global[] = { "-c",          "-C",
		                              "--git-dir",   "--work-tree",
		                              "--exec-path", "--config-env",
		                              "--namespace" };
	static const char *const any[] = {
		"--upload-pack",  "--receive-pack", "--exec",
		"--template",     "--extcmd",       "--open-files-in-pager",
		"--sendmail-cmd", "--to-cmd",       "--cc-cmd",
		"--config",       "--tool",         "--ext-diff",
	};
	static const char *const subs[] = { "config",     "filter-branch",
		                            "difftool",   "mergetool",
		                            "daemon",     "instaweb",
		                            "send-email", "credential",
		                            "filter-repo" };
	static const char *const remote[] = { "clone",     "fetch",   "pull",
		                              "ls-remote", "archive", "push",
		                              "submodule" };
	const char *sub = NULL;
	size_t i;

	for (i = 1; i < cw->n && cw->w[i][0] == '-'; i++) {
		for (size_t k = 0; k < SKIT_ARRAY_SIZE(global); k++) {
			size_t n = strlen(global[k]);

			if (!strncmp(cw->w[i], global[k], n) &&
			    (!cw->w[i][n] || cw->w[i][n] == '=' ||
			     (n == 2 && cw->w[i][n])))
				return true;
		}
	}
	if (i < cw->n)
		sub = cw->w[i];
	if (sub && in_list(sub, subs, SKIT_ARRAY_SIZE(subs)))
		return true;
	for (i++; i < cw->n; i++) {
		const char *w = cw->w[i];

		for (size_t k = 0; k < SKIT_ARRAY_SIZE(any); k++) {
			size_t n = strlen(any[k]);

			if (!strncmp(w, any[k], n) && (!w[n] || w[n] == '='))
				return true;
		}
		if (!strncmp(w, "ext::", 5) || !strncmp(w, "fd::", 4))
			return true;
		if (!sub)
			continue;
		if ((!strcmp(sub, "submodule") && !strcmp(w, "foreach")) ||
		    (!strcmp(sub, "bisect") && !strcmp(w, "run")) ||
		    (!strcmp(sub, "rebase") && !strncmp(w, "-x", 2)) ||
		    (!strcmp(sub, "grep") && !strncmp(w, "-O", 2)) ||
		    (!strcmp(sub, "clone") && !strncmp(w, "-c", 2)) ||
		    (in_list(sub, remote, SKIT_ARRAY_SIZE(remote)) &&
		     !strncmp(w, "-u", 2)))
			return true;
	}
	return false;
}

/* Whether word `w` starts with one of `opts` as a whole option. */
static bool has_option(const char *w, const char *const *opts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t len = strlen(opts[k]);

		if (!strncmp(w, opts[k], len) &&
		    (!w[len] || w[len] == '=' ||
		     (opts[k][1] != '-' && len == 2)))
			return true;
	}
	return false;
}

/*
 * Whether a simple command uses an option that makes its program run
 * other code (docs/permissions.md lists them): such a call is never
 * pre-approved by a prefix pattern.
 */
static bool runs_other_code(const struct cmdwords *cw)
{
	static const char *const find_opts[] = {
		"-exec",   "-execdir", "-ok",      "-okdir", "-delete",
		"-fprint", "-fprint0", "-fprintf", "-fls",
	};
	static const char *const tar_opts[] = {
		"--to-command",
		"--use-compress-program",
		"-I",
		"--checkpoint-action",
		"--info-script",
		"-F",
		"--new-volume-script",
		"--rsh-command",
		"--rmt-command",
	};
	static const char *const rsync_opts[] = { "-e", "--rsh",
		                                  "--rsync-path" };
	static const char *const ssh_opts[] = { "-o", "-F", "-S" };
	static const char *const zip_opts[] = { "-TT", "--unzip-command" };
	static const char *const sort_opts[] = { "--compress-program" };
	static const char *const man_opts[] = { "-P", "--pager", "-H",
		                                "--html" };
	const char *prog;

	if (!cw->n || cw->cut)
		return true;
	prog = base_name(cw->w[0]); /* "/usr/bin/env" runs what env does */
	if (in_list(prog, runners, SKIT_ARRAY_SIZE(runners)))
		return true;
	if (!strcmp(prog, "git"))
		return git_risky(cw);
	for (size_t i = 1; i < cw->n; i++) {
		const char *w = cw->w[i];

		if (!strcmp(prog, "find") &&
		    in_list(w, find_opts, SKIT_ARRAY_SIZE(find_opts)))
			return true;
		if (!strcmp(prog, "tar") &&
		    has_option(w, tar_opts, SKIT_ARRAY_SIZE(tar_opts)))
			return true;
		if (!strcmp(prog, "rsync") &&
		    (has_option(w, rsync_opts, SKIT_ARRAY_SIZE(rsync_opts)) ||
		     (w[0] == '-' && w[1] != '-' && strchr(w, 'e'))))
			return true;
		if ((!strcmp(prog, "ssh") || !strcmp(prog, "scp") ||
		     !strcmp(prog, "sftp")) &&
		    has_option(w, ssh_opts, SKIT_ARRAY_SIZE(ssh_opts)))
			return true;
		if (!strcmp(prog, "zip") &&
		    has_option(w, zip_opts, SKIT_ARRAY_SIZE(zip_opts)))
			return true;
		if (!strcmp(prog, "sort") &&
		    has_option(w, sort_opts, SKIT_ARRAY_SIZE(sort_opts)))
			return true;
		if (!strcmp(prog, "man") &&
		    has_option(w, man_opts, SKIT_ARRAY_SIZE(man_opts)))
			return true;
	}
	return false;
}

/*
 * Whether `cmd` is one simple command (no operator, substitution,
 * redirection or newline) using no option that runs other code: the
 * only kind of line an allow pattern with ":*" pre-approves.
 */
bool skit__policy_simple_and_safe(const char *cmd)
{
	struct scan sc;
	struct cmdwords cw;
	const char *s = cmd, *e = cmd + strlen(cmd);

	if (cmd[strcspn(cmd, SHELL_OPERATORS)])
		return false;
	sc.pat = NULL;
	sc.hit = false;
	sc.budget = 0; /* no substitution can be in a simple command */
	cw.n = 0;
	cw.used = 0;
	cw.cut = false;
	while (s < e) {
		while (s < e && skit__policy_is_blank(*s))
			s++;
		if (s < e)
			read_word(&sc, &s, e, &cw, 0);
	}
	return !runs_other_code(&cw);
}

/* ---- command patterns ------------------------------------------------- */

/*
 * Whether the command in [s, e) is the pattern's words (exactly, or as a
 * prefix of whole words when `prefix`). Blank runs count as one space.
 */
static bool words_match(const char *s, const char *e, const char *pat,
                        bool prefix)
{
	while (*pat) {
		size_t wl = strcspn(pat, " ");

		while (s < e && skit__policy_is_blank(*s))
			s++;
		if ((size_t)(e - s) < wl || memcmp(s, pat, wl))
			return false;
		s += wl;
		if (s < e && !skit__policy_is_blank(*s))
			return false;
		pat += wl;
		if (*pat)
			pat++;
	}
	if (prefix)
		return true;
	while (s < e && skit__policy_is_blank(*s))
		s++;
	return s == e;
}

/*
 * An exact shell pattern matches the line as written, blank runs between
 * words counting as one space; inside quotes a blank is part of a word,
 * so a line holding quotes must match byte for byte (trimmed).
 */
static bool exact_line(const struct pattern *pat, const char *cmd)
{
	const char *end = cmd + strlen(cmd);

	if (!cmd[strcspn(cmd, "'\"\\")])
		return words_match(cmd, end, pat->arg, false);
	while (cmd < end && skit__policy_is_blank(*cmd))
		cmd++;
	while (end > cmd && skit__policy_is_blank(end[-1]))
		end--;
	return strlen(pat->arg) == (size_t)(end - cmd) &&
	       !memcmp(pat->arg, cmd, (size_t)(end - cmd));
}

/* A script's arguments go to execve, not to a shell: words only. */
static bool script_match(const struct pattern *pat, const struct call *c,
                         bool restrictive)
{
	const char *cmd = c->target, *end = cmd + strlen(cmd), *s;

	if (pat->skill && (!c->skill || strcmp(pat->skill, c->skill)))
		return restrictive && !c->skill;
	if (words_match(cmd, end, pat->arg, pat->prefix))
		return !pat->prefix || restrictive ||
		       !cmd[strcspn(cmd, SHELL_OPERATORS)];
	if (!restrictive)
		return false;
	for (s = cmd; s < end;) {
		size_t n = strcspn(s, SHELL_SPLIT);

		if (words_match(s, s + n, pat->arg, pat->prefix))
			return true;
		s += n;
		if (s < end)
			s++;
	}
	return false;
}

/*
 * A command pattern against a call. Restrictive (deny, ask): any program
 * the line may start. Permissive (allow): the whole line, which with ":*"
 * must be one simple command using no option that runs other code.
 */
bool skit__policy_command_match(const struct pattern *pat, const struct call *c,
                                bool restrictive)
{
	const char *cmd = c->target;

	if (!strcmp(c->tool->name, RUN_SKILL_SCRIPT) || pat->skill)
		return script_match(pat, c, restrictive);
	if (restrictive)
		return shell_refuses(pat, cmd);
	if (!pat->prefix)
		return exact_line(pat, cmd);
	return words_match(cmd, cmd + strlen(cmd), pat->arg, true) &&
	       skit__policy_simple_and_safe(cmd);
}
