/*
 * shell_exec.c: one parsed simple command -> findings. Redirections become
 * reads and writes, assignments that hijack the loader or the shell are
 * flagged, stdin is traced (pipe, here-doc, file), then wrappers are peeled
 * off until the real program, which the program table judges.
 * A command name that is not a literal word is exec.dynamic_command (high).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "classifier/classifier_internal.h"
#include "core/lazy.h"
#include "core/util.h"

struct span shell_span_words(const struct cctx *x, const struct word *w, size_t n)
{
	size_t end;
	if (n == 0)
		return x->f.exact ? cls_span(x, 0, 0) : x->f.outer;
	end = w[n - 1].off + w[n - 1].rawlen;
	return cls_span(x, w[0].off, end - w[0].off);
}

struct span shell_span_word(const struct cctx *x, const struct word *w)
{
	return shell_span_words(x, w, 1);
}

/* Variables that change what later programs load or run. */
static const char *const inject_vars[] = {
	"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "PROMPT_COMMAND",
	"PATH", "PYTHONPATH", "PYTHONSTARTUP", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB",
	"RUBYOPT", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_CONFIG_GLOBAL",
	"GIT_EXEC_PATH", "IFS", "SHELLOPTS", "BASHOPTS", "GCONV_PATH",
	/* config and startup code read from elsewhere: git's config and hook
	 * templates, rc directories, interpreter and JVM startup options */
	"XDG_CONFIG_HOME", "GIT_TEMPLATE_DIR", "ZDOTDIR", "VIMINIT", "EXINIT", "LUA_INIT",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "RUBYLIB", "PERLLIB",
	"PYTHONHOME", "NODE_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
	"npm_config_script_shell", "NPM_CONFIG_SCRIPT_SHELL",
	/* options from elsewhere: rg's config file (--pre=CMD), man's MANOPT (-P CMD) */
	"RIPGREP_CONFIG_PATH", "MANOPT",
	/* bat's config (--pager=CMD), psql's startup file (\! CMD), zip's
	 * options (-TT CMD) */
	"BAT_CONFIG_PATH", "PSQLRC", "ZIPOPT",
	/* where every rc file is read from (~/.gitconfig's fsmonitor, ~/.bashrc),
	 * and startup code of perl -d, R, vim and python's user site (.pth) */
	"HOME", "PERL5DB", "R_PROFILE_USER", "R_PROFILE", "VIMRUNTIME", "PYTHONUSERBASE",
};

/* Module search paths that, kept in the workdir, add only the project's
 * own modules: what they load is a script of the project (exec.script,
 * medium), as `python3 src/x.py` is. `PYTHONPATH=src pytest` was
 * exec.env_inject (high). */
static const char *const module_path_vars[] = {"PYTHONPATH", "NODE_PATH"};
/* NODE_OPTIONS that only tune the runtime: none loads code (--require,
 * --import, --loader) or opens a port (--inspect). A trailing '=' takes
 * a value. */
static const char *const node_tuning[] = {
	"--max-old-space-size=", "--max-semi-space-size=", "--enable-source-maps",
	"--no-warnings", "--no-deprecation", "--trace-warnings", "--trace-deprecation",
	"--trace-uncaught", "--experimental-vm-modules", "--unhandled-rejections=",
	"--openssl-legacy-provider", "--dns-result-order=", "--use-openssl-ca",
};

/* Whether entry [p, p+n) of a module path is the inherited value
 * ($PYTHONPATH) or a directory in the workdir (empty: the cwd). */
static bool module_entry_local(struct cctx *x, const char *var, const char *p, size_t n)
{
	char rel[CLS_MAX_PATH], abs[CLS_MAX_PATH];
	size_t vl = strlen(var);

	if ((n == vl + 1 && p[0] == '$' && memcmp(p + 1, var, vl) == 0) ||
	    (n == vl + 3 && memcmp(p, "${", 2) == 0 && memcmp(p + 2, var, vl) == 0 && p[n - 1] == '}'))
		return true;
	if (n >= sizeof(rel) || memchr(p, '$', n) || memchr(p, '`', n) || memchr(p, '*', n) ||
	    memchr(p, '?', n) || memchr(p, '[', n) || memchr(p, '\\', n))
		return false;
	memcpy(rel, n ? p : ".", n ? n : 1);
	rel[n ? n : 1] = '\0';
	return paths_resolve(x, rel, abs, sizeof(abs)) && paths_class(x, abs) == PC_WORKDIR;
}

/* Whether NAME=val (name of n bytes) sets an inject variable harmlessly:
 * a module path in the workdir (exec.script added) or runtime tuning. */
static bool inject_local(struct cctx *x, const struct word *w, size_t n, const char *val)
{
	for (size_t i = 0; i < nitems(module_path_vars); i++) {
		const char *v = module_path_vars[i], *p = val, *e;
		if (strlen(v) != n || memcmp(w->val, v, n) != 0)
			continue;
		for (;; p = e + 1) {
			e = p + strcspn(p, ":");
			if (!module_entry_local(x, v, p, (size_t)(e - p)))
				return false;
			if (*e == '\0')
				break;
		}
		cls_add(x, TIER_MEDIUM, "exec.script", shell_span_word(x, w),
		        "sets %s to directories in the workdir: their modules run as the "
		        "project's scripts do", v);
		return true;
	}
	if (n != 12 || memcmp(w->val, "NODE_OPTIONS", 12) != 0 || strpbrk(val, "\"'\\$`"))
		return false;
	for (const char *p = val + strspn(val, " \t"); *p; p += strspn(p, " \t")) {
		size_t len = strcspn(p, " \t"), k;
		for (k = 0; k < nitems(node_tuning); k++) {
			size_t tl = strlen(node_tuning[k]);
			if (node_tuning[k][tl - 1] == '=' ? len > tl && memcmp(p, node_tuning[k], tl) == 0
			                                 : len == tl && memcmp(p, node_tuning[k], tl) == 0)
				break;
		}
		if (k == nitems(node_tuning))
			return false;
		p += len;
	}
	return true;
}

/* BASH_CMDS[NAME]=PATH is `hash -p PATH NAME` (NAME then runs PATH) and
 * BASH_ALIASES[NAME]=VALUE is `alias NAME=VALUE`: both judged so, and any
 * assignment to either table is exec.env_inject (an array literal's
 * entries are not read). */
static void bash_tables(struct cctx *x, const struct word *w, size_t n, const char *val)
{
	bool cmds = n >= 9 && memcmp(w->val, "BASH_CMDS", 9) == 0 && (n == 9 || w->val[9] == '[');
	bool aliases =
	    n >= 12 && memcmp(w->val, "BASH_ALIASES", 12) == 0 && (n == 12 || w->val[12] == '[');
	size_t k = cmds ? 9 : 12;
	struct word name = *w, path = *w;

	if (!cmds && !aliases)
		return;
	path.flags &= ~W_GLOB; /* the [ of the subscript; a value is not globbed */
	cls_add(x, TIER_HIGH, "exec.env_inject", shell_span_word(x, w),
	        "sets %s, which makes a command name run something else",
	        cmds ? "BASH_CMDS" : "BASH_ALIASES");
	if (n < k + 3 || w->val[k] != '[' || w->val[n - 1] != ']')
		return;
	name.val = arena_strndup(x->a, w->val + k + 1, n - k - 2);
	name.len = n - k - 2;
	name.flags &= ~W_GLOB;
	if (cmds)
		shell_hash_note(x, &name, &path, val);
	else if (!(w->flags & W_DYNAMIC)) {
		shell_script_text(x, val, strlen(val), shell_span_word(x, w));
		shell_alias_note(x, name.val, name.len, val);
	}
}

/* Variables whose value bash runs: prompts are expanded ($( ) runs, with
 * set -x for PS4), PROMPT_COMMAND is a command, BASH_FUNC_NAME%% in the
 * environment defines NAME in a child bash, and a child shell sources
 * the file BASH_ENV (ENV for sh) names. */
static void assign_code(struct cctx *x, const struct word *w, size_t n)
{
	static const char *const prompts[] = {"PS0", "PS1", "PS2", "PS4"};
	const char *val = w->val + n + 1 + (w->val[n] == '+');
	struct word file = *w;

	bash_tables(x, w, n, val);
	if (w->flags & (W_DYNAMIC | W_GLOB))
		return; /* its substitutions ran as it was read; the rest is unknown */
	for (size_t i = 0; i < nitems(prompts); i++)
		if (n == 3 && memcmp(w->val, prompts[i], 3) == 0)
			shell_expand_word(x, w);
	if (n == 14 && memcmp(w->val, "PROMPT_COMMAND", 14) == 0)
		shell_script_text(x, val, strlen(val), shell_span_word(x, w));
	if ((n == 8 && memcmp(w->val, "BASH_ENV", 8) == 0) || (n == 3 && memcmp(w->val, "ENV", 3) == 0)) {
		file.val = val; /* BASH_ENV=x.sh after echo CMD > x.sh */
		file.len = strlen(val);
		file.flags &= ~W_ASSIGN;
		shell_files_run(x, &file, "sh");
	}
	if (n > 10 && memcmp(w->val, "BASH_FUNC_", 10) == 0) {
		cls_add(x, TIER_HIGH, "exec.env_inject", shell_span_word(x, w),
		        "defines a function for a child bash through its environment");
		shell_script_text(x, val, strlen(val), shell_span_word(x, w));
	}
}

void shell_check_assign(struct cctx *x, const struct word *w, bool prefix)
{
	const char *eq = strchr(w->val, '=');
	size_t n = eq ? (size_t)(eq - w->val) : 0;

	if (n && w->val[n - 1] == '+')
		n--;
	/* IFS= before a command (IFS= read -r line) reaches only that command,
	 * and no shell takes IFS from its environment */
	if (prefix && n == 3 && memcmp(w->val, "IFS", 3) == 0)
		return;
	/* PATH=$PATH:dir only appends: the programs found first stay the same */
	if (n == 4 && memcmp(w->val, "PATH", 4) == 0 &&
	    (strncmp(eq + 1, "$PATH:", 6) == 0 || strncmp(eq + 1, "${PATH}:", 8) == 0))
		return;
	assign_code(x, w, n);
	if (inject_local(x, w, n, eq + 1))
		return;
	for (size_t i = 0; i < nitems(inject_vars); i++)
		if (strlen(inject_vars[i]) == n && memcmp(w->val, inject_vars[i], n) == 0) {
			cls_add(x, TIER_HIGH, "exec.env_inject", shell_span_word(x, w),
			        "sets %s, which changes what later programs load or run",
			        inject_vars[i]);
			return;
		}
	/* TF_CLI_ARGS, TF_CLI_ARGS_fmt: arguments added to every (or that)
	 * terraform command, so `TF_CLI_ARGS_fmt=/etc terraform fmt` writes
	 * /etc while the command line shows only the workdir */
	if (n >= 11 && memcmp(w->val, "TF_CLI_ARGS", 11) == 0 && (n == 11 || w->val[11] == '_'))
		cls_add(x, TIER_HIGH, "exec.env_inject", shell_span_word(x, w),
		        "sets %.*s, which adds arguments to later terraform commands", (int)n,
		        w->val);
}

/* $GITHUB_TOKEN and the like in a word the command gets. */
static void env_secret(struct cctx *x, const struct word *w)
{
	const char *name;
	size_t len;

	if ((w->flags & W_DYNAMIC) && secrets_env_ref(w->val, &name, &len))
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_word(x, w),
		        "reads $%.*s, an environment variable that holds a credential", (int)len,
		        name);
}

/* > FILE empties FILE first: a .env or a key overwritten is credentials
 * lost, which no build makes again (>> only adds to it). */
static void redir_truncates_secret(struct cctx *x, const struct word *t, struct span sp)
{
	char abs[CLS_MAX_PATH];
	const char *why;

	if (!(t->flags & (W_DYNAMIC | W_PROCSUB)) && paths_resolve(x, t->val, abs, sizeof(abs)) &&
	    (why = secrets_path(x, abs)) != NULL)
		cls_add(x, TIER_HIGH, "fs.delete", sp, "> %s empties it first, and it holds %s", abs,
		        why);
}

static void exec_redir(struct cctx *x, struct redir *r, struct cmdv *c)
{
	const struct word *t = &r->target;
	struct span sp = cls_span(x, r->off, t->off + t->rawlen - r->off);

	switch (r->kind) {
	case R_OUT:
	case R_APPEND:
	case R_CLOBBER:
	case R_OUT_ALL:
	case R_APPEND_ALL:
		paths_write(x, t, t->val, sp);
		if (r->kind == R_APPEND || r->kind == R_APPEND_ALL)
			break;
		redir_truncates_secret(x, t, sp);
		break;
	case R_RW:
		paths_write(x, t, t->val, sp);
		paths_read(x, t, t->val);
		break;
	case R_DUP_OUT:
		if (t->len && strspn(t->val, "0123456789-") != t->len)
			paths_write(x, t, t->val, sp);
		break;
	case R_IN:
		if (t->flags & W_PROCSUB) { /* < <(cmd): another command's output */
			c->in = IN_PIPE;
			c->in_text = NULL;
			break;
		}
		paths_read(x, t, t->val);
		if (c->in == IN_NONE || c->in == IN_PIPE)
			c->in = IN_FILE;
		if (c->in == IN_FILE)
			c->in_file = t;
		break;
	case R_DUP_IN:
		break;
	case R_HEREDOC:
		c->in = IN_DOC;
		c->in_text = r->body ? r->body : "";
		c->in_len = r->bodylen;
		c->in_span = sp;
		break;
	case R_HERESTR:
		env_secret(x, t);
		c->in = IN_DOC;
		c->in_text = t->val;
		c->in_len = t->len;
		c->in_span = shell_span_word(x, t);
		break;
	}
}

/* A here-document or here-string of s: its text (the last one wins, as
 * in the shell). */
static bool stage_doc(const struct scmd *s, const char **text, size_t *len, size_t *off)
{
	bool found = false;

	for (size_t k = 0; k < s->nr; k++)
		if (s->r[k]->kind == R_HEREDOC || s->r[k]->kind == R_HERESTR) {
			const struct redir *r = s->r[k];
			*text = r->kind == R_HEREDOC ? (r->body ? r->body : "") : r->target.val;
			*len = r->kind == R_HEREDOC ? r->bodylen : r->target.len;
			*off = r->off;
			found = true;
		}
	return found;
}

/* base64 -d of text into out; false when it is not base64 or libcrypto
 * is missing (the pipe then stays unknown). */
static bool base64_decode(struct cctx *x, const char *text, size_t len, struct buf *out)
{
	const struct lazy_crypto *lc;
	char *err = NULL, *clean = arena_alloc(x->a, len + 1);
	unsigned char *dec;
	size_t n = 0, pad = 0;
	int got;

	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", text[i]))
			clean[n++] = text[i];
	if (n == 0 || n % 4 != 0 || (lc = lazy_crypto(&err)) == NULL) {
		free(err);
		return false;
	}
	pad = (clean[n - 1] == '=') + (clean[n - 2] == '=');
	dec = arena_alloc(x->a, n / 4 * 3 + 1);
	if ((got = lc->EVP_DecodeBlock(dec, (const unsigned char *)clean, (int)n)) < 0 ||
	    (size_t)got < pad)
		return false;
	buf_append(out, (const char *)dec, (size_t)got - pad);
	return true;
}

/* How a backslash escape is read: in printf's format (\NNN), in echo -e
 * (\0NNN), or in printf's %b argument (either). */
enum esc_mode { ESC_FORMAT, ESC_ECHO, ESC_B };

/* Up to max octal digits at f: their value; *used: how many. */
static int octal(const char *f, int max, size_t *used)
{
	int v = 0;

	for (*used = 0; (int)*used < max && f[*used] >= '0' && f[*used] <= '7'; (*used)++)
		v = v * 8 + (f[*used] - '0');
	return v;
}

/* Decodes the escape after a backslash at f into b, as printf or echo -e
 * do, so `printf '\162\155 -rf ~'` writes rm; returns the bytes read. */
static size_t put_escape(struct buf *b, const char *f, enum esc_mode mode)
{
	static const char from[] = "abefnrtv\\\"", to[] = "\a\b\033\f\n\r\t\v\\\"";
	const char *k = f[0] ? strchr(from, f[0]) : NULL;
	size_t used = 0;
	char c;

	if (k) {
		buf_append(b, to + (k - from), 1);
		return 1;
	}
	if (f[0] == 'x' && isxdigit((unsigned char)f[1])) {
		used = isxdigit((unsigned char)f[2]) ? 2 : 1;
		c = (char)(used == 2 ? hex_digit((unsigned char)f[1]) * 16 + hex_digit((unsigned char)f[2])
		                      : hex_digit((unsigned char)f[1]));
		buf_append(b, &c, 1);
		return used + 1;
	}
	if (f[0] == '0' && mode != ESC_FORMAT) {
		c = (char)octal(f + 1, 3, &used);
		buf_append(b, &c, 1);
		return used + 1;
	}
	if (f[0] >= '0' && f[0] <= '7' && mode != ESC_ECHO) {
		c = (char)octal(f, 3, &used);
		buf_append(b, &c, 1);
		return used;
	}
	buf_puts(b, "\\"); /* not an escape: the backslash stays */
	return 0;
}

/* Appends s with its escapes decoded in mode. */
static void put_escaped(struct buf *b, const char *s, enum esc_mode mode)
{
	for (; *s; s++)
		if (s[0] == '\\' && s[1])
			s += put_escape(b, s + 1, mode);
		else
			buf_append(b, s, 1);
}

/* printf FORMAT ARGS...: %s-style conversions take the next argument (%b
 * with its escapes decoded), escapes and %% are decoded, and the format
 * is reused while arguments remain, as printf does. */
static void printf_out(struct buf *b, const struct word *w, size_t n)
{
	size_t a = 1;

	for (int round = 0; round < 16; round++) {
		size_t used = a;
		for (const char *f = w[0].val; *f; f++) {
			if (f[0] == '\\' && f[1]) {
				f += put_escape(b, f + 1, ESC_FORMAT);
			} else if (f[0] == '%' && f[1] == '%') {
				buf_puts(b, "%");
				f++;
			} else if (f[0] == '%' && f[1]) {
				f += 1 + strspn(f + 1, "-+ #0123456789.");
				if (*f == '\0')
					break;
				if (a < n && *f == 'b')
					put_escaped(b, w[a++].val, ESC_B);
				else if (a < n)
					buf_puts(b, w[a++].val);
			} else {
				buf_append(b, f, 1);
			}
		}
		if (a >= n || a == used)
			break; /* all arguments printed, or a format that takes none */
	}
}

/* echo's leading options (-n, -e, -E and their clusters); *newline is
 * false after -n, *esc true after -e (unless a later -E). Returns the
 * index of the first word it prints. */
static size_t echo_opts(const struct word *w, size_t n, bool *newline, bool *esc)
{
	size_t i = 1;

	*newline = true;
	*esc = false;
	for (; i < n && w[i].val[0] == '-' && w[i].val[1] &&
	       strspn(w[i].val + 1, "neE") == w[i].len - 1; i++)
		for (const char *o = w[i].val + 1; *o; o++) {
			*newline &= *o != 'n';
			*esc = *o == 'e' || (*esc && *o != 'E');
		}
	return i;
}

bool shell_cmd_output(struct cctx *x, const struct word *w, size_t n, const char *in,
                      size_t inlen, struct buf *out)
{
	const char *p = w[0].val;
	bool newline, esc;

	if (n == 0 || (w[0].flags & (W_DYNAMIC | W_GLOB)))
		return false;
	if (strcmp(p, "cat") == 0 || strcmp(p, "tee") == 0) {
		if (in == NULL || (p[0] == 'c' && n > 1))
			return false; /* cat FILE: a file airlock does not read */
		buf_append(out, in, inlen);
		return true;
	}
	if (strcmp(p, "base64") == 0)
		return in && n == 2 && (strcmp(w[1].val, "-d") == 0 || strcmp(w[1].val, "-D") == 0 ||
		                        strcmp(w[1].val, "--decode") == 0) &&
		       base64_decode(x, in, inlen, out);
	if (strcmp(p, "echo") != 0 && strcmp(p, "printf") != 0)
		return false;
	for (size_t k = 1; k < n; k++)
		if (w[k].flags & (W_DYNAMIC | W_GLOB))
			return false;
	if (p[0] == 'p') {
		if (n > 1)
			printf_out(out, w + 1, n - 1);
		return true;
	}
	for (size_t k = echo_opts(w, n, &newline, &esc), first = k; k < n; k++) {
		if (k > first)
			buf_puts(out, " ");
		if (esc)
			put_escaped(out, w[k].val, ESC_ECHO);
		else
			buf_puts(out, w[k].val);
	}
	if (newline)
		buf_puts(out, "\n");
	return true;
}

/* What stage s of a pipeline writes to its stdout, when the call shows it:
 * its words' output given its stdin (a here-document, or the stage before
 * it, recursively). *off: where the text that shows it starts. */
static bool stage_output(struct cctx *x, const struct scmd *s, struct buf *out, size_t *off,
                         int depth)
{
	const char *text = NULL;
	size_t i = 0, len = 0;
	struct buf in;
	bool ok;

	while (i < s->nw && (s->w[i].flags & W_ASSIGN))
		i++;
	if (i >= s->nw || depth > 4)
		return false;
	*off = s->off;
	buf_init(&in, CLS_MAX_INPUT);
	if (!stage_doc(s, &text, &len, off) && s->pipe_from &&
	    stage_output(x, s->pipe_from, &in, off, depth + 1)) {
		text = in.data ? in.data : "";
		len = in.len;
	}
	ok = shell_cmd_output(x, s->w + i, s->nw - i, text, len, out);
	buf_free(&in);
	return ok;
}

/* Where a piped command's stdin comes from, and its text when known. */
static void piped_text(struct cctx *x, struct cmdv *c, const struct scmd *from)
{
	struct buf b;
	size_t off;

	c->in = IN_PIPE;
	buf_init(&b, CLS_MAX_INPUT);
	if (stage_output(x, from, &b, &off, 0)) {
		c->in_text = arena_strndup(x->a, b.data ? b.data : "", b.len);
		c->in_len = b.len;
		c->in_span = cls_span(x, off, from->end - off);
	}
	buf_free(&b);
}

void shell_exec_command(struct cctx *x, const struct scmd *sc)
{
	struct cmdv c;
	size_t i = 0;
	const char *in_func = x->in_func;

	memset(&c, 0, sizeof(c));
	c.sc = sc;
	x->in_func = sc->func; /* eval and $( ) it runs are in the same body */
	if (sc->pipe_from)
		piped_text(x, &c, sc->pipe_from);
	else if (sc->in_pipe)
		c.in = IN_PIPE; /* tee >(sh): what tee writes, unknown here */
	for (size_t k = 0; k < sc->nr; k++)
		exec_redir(x, sc->r[k], &c);
	for (; i < sc->nw && (sc->w[i].flags & W_ASSIGN); i++)
		;
	for (size_t k = 0; k < i; k++) {
		shell_check_assign(x, &sc->w[k], i < sc->nw);
		shell_var_assign(x, &sc->w[k]); /* before a command: its children see it */
	}
	if (i < sc->nw) { /* else redirections or assignments only (`>o`) */
		const struct cmdv *cur = x->cur;
		c.w = sc->w + i;
		c.n = sc->nw - i;
		shell_files_note(x, &c);
		x->cur = &c; /* bash /dev/stdin, . /dev/fd/3: what they read */
		shell_exec_argv(x, &c);
		x->cur = cur;
	}
	x->in_func = in_func;
}

static void record(struct cctx *x, const struct cmdv *c)
{
	char **argv = xcalloc(c->n + 1, sizeof(*argv));
	for (size_t i = 0; i < c->n; i++)
		argv[i] = xstrndup(c->w[i].val, c->w[i].len);
	cls_add_command(x, argv, shell_span_words(x, c->w, c->n));
}

/* test and [ print nothing and only stat their operands, as [[ ]] does:
 * `[ -f .env ]` reads no secret and passes no name on (echo .env may,
 * into xargs cat); `[ -n "$GITHUB_TOKEN" ]` says only whether it is
 * set, as `[[ -n $GITHUB_TOKEN ]]` does. Not once the name may run
 * something else: a function of that name, or after alias, enable or a
 * program named at run time (`alias test=cat; test .env`). */
static bool stat_only(struct cctx *x, const struct cmdv *c, bool func)
{
	const char *p = c->w[0].val;

	if (strcmp(p, "alias") == 0 || strcmp(p, "enable") == 0)
		x->renames = true;
	return !func && !x->renames && (strcmp(p, "test") == 0 || strcmp(p, "[") == 0);
}

/* A secret path glued to other text in one word: httpie's `f=@.env`, gh
 * api's `-F f=@.env`, socat's `FILE:.env,rdonly`, docker's `-v ~/.ssh:/k`
 * and `--secret id=x,src=.env`, aws's `file://.env`, curl's `-T
 * {.env,.npmrc}`. Each piece between = : , { } (a leading @ dropped) is
 * tried, and one that resolves to a secret is a read of it (the whole
 * word was read as one path, which names none). Not @ inside a piece:
 * `curl -d user@.env` sends that text (httpie's `f@.env` is its rule's).
 * A URL's pieces are its host and remote path, not local files. */
static void scan_pieces(struct cctx *x, const struct word *w, const char *s)
{
	static const char *const schemes[] = {"file://", "fileb://"};
	char piece[CLS_MAX_PATH], abs[CLS_MAX_PATH];
	bool scheme = false;

	for (size_t i = 0; i < nitems(schemes) && !scheme; i++)
		if (strncasecmp(s, schemes[i], strlen(schemes[i])) == 0) {
			s += strlen(schemes[i]); /* file://.env, file:///etc/shadow */
			scheme = true;
		}
	if (strstr(s, "://") || (!scheme && s[strcspn(s, "=:,{}")] == '\0'))
		return;
	for (const char *p = s;; p++) {
		size_t n = strcspn(p, "=:,{}"), at = n && p[0] == '@';
		if (n > at && n - at < sizeof(piece)) {
			memcpy(piece, p + at, n - at);
			piece[n - at] = '\0';
			if (paths_resolve(x, piece, abs, sizeof(abs)) && secrets_path(x, abs))
				paths_read(x, w, piece);
		}
		p += n;
		if (*p == '\0')
			break;
	}
}

/* Secret paths, credential variables and /dev/tcp among the arguments of
 * any program. */
static void scan_args(struct cctx *x, const struct cmdv *c, bool func)
{
	bool stat = stat_only(x, c, func);

	for (size_t i = 1; i < c->n; i++) {
		const char *s = c->w[i].val, *eq;
		if (!stat)
			env_secret(x, &c->w[i]);
		if (stat && strstr(s, "/dev/tcp/") == NULL &&
		    strstr(s, "/dev/udp/") == NULL)
			continue;
		if (!secrets_maybe_path(s) && strstr(s, "/dev/tcp/") == NULL &&
		    strstr(s, "/dev/udp/") == NULL)
			continue;
		if (s[0] == '-' && (eq = strchr(s, '=')) != NULL)
			s = eq + 1;
		else if (s[0] == '-' && s[1] != '-' && s[1] && s[2])
			s += 2; /* -d@file */
		if (s[0] == '@' || s[0] == '<')
			s++;
		if (s[0] == '-')
			continue;
		paths_read(x, &c->w[i], s);
		if (!(c->w[i].flags & (W_DYNAMIC | W_PROCSUB)))
			scan_pieces(x, &c->w[i], s);
	}
}

/* A program airlock does not know may read any operand it is given:
 * each is reported as a read, so path rules see `./tool secrets/a` (a
 * secret name was read by scan_args already; options and URLs are not
 * paths). */
static void unknown_reads(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		const char *v = w->val, *eq = strchr(v, '=');
		if (v[0] == '-' && v[1] == '-' && eq) /* --in=FILE */
			v = eq + 1;
		if (v[0] == '-' || v[0] == '\0' || strstr(v, "://") ||
		    (w->flags & (W_DYNAMIC | W_PROCSUB | W_ASSIGN)) || secrets_maybe_path(v))
			continue;
		paths_read(x, w, v);
	}
}

/* True when a path of calls leads from function `from` to `to` (the
 * same name counts) with an edge that spawns copies on it, or without
 * one when spawned already. seen[]: per edge, the spawned states (1, 2)
 * it was followed in, so each edge is walked at most twice. */
static bool calls_reach(const struct cctx *x, const char *from, const char *to, bool spawned,
                        unsigned char *seen)
{
	if (spawned && strcmp(from, to) == 0)
		return true;
	for (size_t i = 0; i < x->ncalls; i++) {
		bool s = spawned || x->calls[i].spawn;
		unsigned char bit = s ? 2 : 1;
		if ((seen[i] & bit) || strcmp(x->calls[i].from, from) != 0)
			continue;
		seen[i] |= bit;
		if (calls_reach(x, x->calls[i].to, to, s, seen))
			return true;
	}
	return false;
}

/* Notes that the function whose body holds c calls name; when that call
 * leads back to the caller and a call on the way starts copies at once
 * (a pipe, the background), the copies multiply: a fork bomb, also through
 * other functions (f calls g|g&, g calls f). */
static void note_call(struct cctx *x, const struct cmdv *c, const char *name)
{
	const struct scmd *sc = c->sc;
	bool spawn = sc && (sc->bg || sc->pipe_to || sc->pipe_from);
	const char *from = x->in_func;

	if (from == NULL)
		return;
	for (size_t i = 0; i < x->ncalls; i++)
		if (strcmp(x->calls[i].from, from) == 0 && strcmp(x->calls[i].to, name) == 0 &&
		    x->calls[i].spawn == spawn)
			goto check; /* seen in an earlier reading */
	x->calls = shell_grow(x->a, x->calls, x->ncalls, &x->capcalls, sizeof(*x->calls));
	x->calls[x->ncalls].from = from;
	x->calls[x->ncalls].to = arena_strndup(x->a, name, strlen(name));
	x->calls[x->ncalls++].spawn = spawn;
check:
	/* a cycle closes at a call of a function defined already */
	if (shell_is_function(x, name) &&
	    calls_reach(x, name, from, spawn, memset(arena_alloc(x->a, x->ncalls), 0, x->ncalls)))
		cls_add(x, TIER_CRITICAL, "sys.fork_bomb", shell_span_words(x, c->w, c->n),
		        "function %s starts copies of itself in a pipe or the background, "
		        "directly or through other functions: a fork bomb", from);
}
/* A program named by a relative path (../../bin/rm from the workdir) or
 * through a symlink (./ls -> /bin/rm, made by an earlier call) is the
 * program the kernel reaches: its table name, or name itself. */
static const char *prog_resolved(struct cctx *x, const char *name, char *buf, size_t sz)
{
	char abs[CLS_MAX_PATH];
	const char *r;

	if (!paths_resolve(x, name, abs, sizeof(abs)))
		return name;
	r = rules_prog_name(abs, buf, sz);
	return r == abs ? name : r;
}


void shell_exec_argv(struct cctx *x, struct cmdv *c)
{
	char pbuf[CLS_MAX_PATH]; /* a program's folded path, for one hop */
	bool func = false;

	for (int hop = 0; c->n > 0; hop++) {
		const struct word *w0 = &c->w[0];
		const char *name;
		long k;

		if (hop > 16) { /* unread, so the worst it could hide (see depth_ok) */
			cls_add(x, TIER_CRITICAL, "parse.too_deep", shell_span_words(x, c->w, c->n),
			        "more than 16 wrapper programs around one command: what they wrap "
			        "is not read, so it counts as the worst it could hide");
			return;
		}
		if (w0->flags & (W_DYNAMIC | W_GLOB | W_PROCSUB)) {
			record(x, c);
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w0),
			        "the program name '%s' is only known at run time", w0->val);
			x->renames = true; /* it may be alias */
			scan_args(x, c, true);
			return;
		}
		name = rules_prog_name(w0->val, pbuf, sizeof(pbuf)); /* /bin//rm is rm */
		if (name == w0->val && strchr(name, '/'))
			name = prog_resolved(x, name, pbuf, sizeof(pbuf));
		if (hop == 0)
			note_call(x, c, name);
		/* A function's body was judged where it was defined; the program
		 * of its name is judged too, as the function may be gone (unset
		 * -f) or never defined (a branch not taken, a subshell). */
		func = func || shell_is_function(x, name);
		if (hop == 0 && func)
			shell_var_args(x, c->w + 1, c->n - 1); /* the body's $1... */
		shell_hash_run(x, c, name);
		if (hop == 0)
			shell_alias_run(x, c);
		k = unwrap_step(x, c, name);
		if (k < 0)
			return;
		if (k == 0) {
			record(x, c);
			scan_args(x, c, func);
			shell_eval_builtin(x, c, name);
			if (!rules_apply(x, c, name) && !func) {
				cls_add(x, x->o->unknown_program, "exec.unknown_program",
				        shell_span_word(x, w0),
				        "runs '%s', a program airlock does not know", w0->val);
				unknown_reads(x, c);
				if (!strchr(w0->val, '/') && x->nfiles) /* x.sh, by PATH=$PATH:. */
					shell_files_run_name(x, w0);
				if (strchr(w0->val, '/'))
					rules_binstub(x, c);
			}
			if (strchr(w0->val, '/'))
				shell_files_run(x, w0, NULL); /* ./x.sh the call wrote */
			return;
		}
		c->w += k;
		c->n -= (size_t)k;
		c->hops++;
	}
}
