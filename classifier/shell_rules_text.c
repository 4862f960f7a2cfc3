/*
 * shell_rules_text.c: programs that run the text they are given in a
 * language of their own whose commands start programs, delete or write
 * files: m4 (syscmd), gnuplot (system, !, backquotes, "< CMD"), exiftool
 * (-if and ${TAG;EXPR} are Perl), ghostscript (%pipe%, -dNOSAFER) and
 * ImageMagick (|CMD file names, msl:, ephemeral:). They were unknown
 * programs (medium) whatever the text held. Text the call shows is read; a
 * file of such text is exec.script, never low.
 */
#include <string.h>
#include <strings.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* What a program reads from stdin as its program text: known text is
 * scanned by scan, unknown piped text is exec.pipe_to_shell, a file is
 * exec.script. */
static void text_stdin(struct cctx *x, const struct cmdv *c, const char *what,
                       void (*scan)(struct cctx *, const struct word *, const char *, size_t))
{
	struct span sp = shell_span_word(x, &c->w[0]);

	if (c->in_text) /* the scanners' code_scan wants a NUL at the end */
		scan(x, &c->w[0], arena_strndup(x->a, c->in_text, c->in_len), c->in_len);
	else if (c->in == IN_PIPE)
		cls_add(x, TIER_HIGH, "exec.pipe_to_shell", sp, "pipes text into %s, %s", c->prog,
		        what);
	else if (c->in == IN_FILE)
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "%s reads a program airlock cannot see (%s)", c->prog, what);
}

/* The literal word w as a text the tool runs, or unknown at run time. */
static bool text_literal(struct cctx *x, const struct word *w, const char *prog)
{
	if (!(w->flags & (W_DYNAMIC | W_GLOB)))
		return true;
	cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
	        "%s runs text that is only known at run time", prog);
	return false;
}

/* ---- m4 ---- */

/* Past the macro argument list whose '(' is at p: nested parentheses and
 * m4's `quotes' counted. */
static const char *m4_args_end(const char *p, const char *end)
{
	int depth = 0, quote = 0;

	for (; p < end; p++) {
		if (*p == '`')
			quote++;
		else if (*p == '\'' && quote > 0)
			quote--;
		else if (quote == 0 && *p == '(')
			depth++;
		else if (quote == 0 && *p == ')' && --depth == 0)
			return p;
	}
	return NULL;
}

/* The builtins that build text m4 then reads again as macro names:
 * `translit(`xyxcmd', `x', `s')(id)' is syscmd(id). builtin and indir
 * call a macro by such a name, changequote and changeword change how
 * names and quotes are read. */
static const char *const m4_builders[] = {
	"builtin", "indir", "changeword", "changequote", "translit", "patsubst", "regexp",
	"substr", "format", "defn", "eval",
};

/* Occurrences of "syscmd" in t with m4's quote characters dropped:
 * `sys'`cmd' is one name once quotes are removed (a define's body). */
static size_t m4_unquoted_syscmds(const char *t, size_t n)
{
	size_t count = 0, k = 0;
	static const char name[] = "syscmd";

	for (size_t i = 0; i < n; i++) {
		if (t[i] == '`' || t[i] == '\'')
			continue;
		k = t[i] == name[k] ? k + 1 : t[i] == name[0];
		if (k == sizeof(name) - 1) {
			count++;
			k = 0;
		}
	}
	return count;
}

/* syscmd(CMD) and esyscmd(CMD) (also m4_syscmd under -P) run CMD in a
 * shell; a syscmd that only quote removal or a builtin of m4_builders
 * puts together counts as one whose command is unknown. */
static void m4_scan(struct cctx *x, const struct word *w, const char *t, size_t n)
{
	const char *end = t + n;
	struct span sp = shell_span_word(x, w);
	size_t seen = 0;

	for (const char *p = t; (p = memmem(p, (size_t)(end - p), "syscmd", 6)) != NULL; p += 6) {
		const char *a = p + 6, *e;
		seen++;
		if (a < end && *a == '(' && (e = m4_args_end(a, end)) != NULL) {
			a++;
			if (e - a >= 2 && *a == '`' && e[-1] == '\'') {
				a++;
				e--;
			}
			rules_hook(x, w, a, (size_t)(e - a), "m4's syscmd runs a shell command");
		} else {
			rules_hook(x, w, "", 0, "m4's syscmd runs a shell command");
		}
	}
	if (m4_unquoted_syscmds(t, n) > seen)
		rules_hook(x, w, "", 0, "m4's syscmd, put together by quote removal, runs a shell "
		           "command");
	for (size_t i = 0; i < nitems(m4_builders); i++)
		if (memmem(t, n, m4_builders[i], strlen(m4_builders[i]))) {
			cls_add(x, TIER_HIGH, "exec.dynamic_command", sp,
			        "m4's %s builds text it reads again as macro names (syscmd among them)",
			        m4_builders[i]);
			break;
		}
}

static void rule_m4(struct cctx *x, struct cmdv *c)
{
	static const char ao[] = "DUIoltFRL"; /* -d takes its flags attached only */
	size_t idx[16], nf = opt_operands(c, 1, ao, idx, nitems(idx));
	const char *v;
	bool from_stdin = nf == 0;

	cls_add(x, TIER_MEDIUM, "exec.inline_code", shell_span_words(x, c->w, c->n),
	        "m4 expands macros, whose syscmd runs shell commands");
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const struct word *w = opt_value_at(c, &i, 'D', "--define", ao, &v);
		if (w && text_literal(x, w, "m4"))
			m4_scan(x, w, v, strlen(v));
	}
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const struct word *w = opt_value_at(c, &i, 'o', "--error-output", ao, &v);
		if (w)
			paths_write(x, w, v, shell_span_word(x, w));
	}
	if (opt_value(c, 0, "--debugfile", ao, &v) && v[0])
		paths_write(x, &c->w[0], v, shell_span_word(x, &c->w[0]));
	for (size_t i = 0; i < nf; i++)
		if (strcmp(c->w[idx[i]].val, "-") == 0) {
			from_stdin = true;
		} else {
			paths_read(x, &c->w[idx[i]], c->w[idx[i]].val);
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[idx[i]]),
			        "m4 expands a file airlock cannot see (its syscmd runs commands)");
			shell_files_each(x, &c->w[idx[i]], m4_scan);
		}
	if (from_stdin)
		text_stdin(x, c, "whose syscmd runs shell commands", m4_scan);
}

/* ---- gnuplot ---- */

/* The closing quote of the gnuplot string that opens at p: a backslash
 * escapes the next byte in "..." (not in '...', where '' is a quote), or
 * NULL when it is not closed. */
static const char *gnuplot_string_end(const char *p, const char *end)
{
	for (const char *e = p + 1; e < end; e++) {
		if (*p == '"' && *e == '\\' && e + 1 < end)
			e++;
		else if (*e == *p)
			return e;
	}
	return NULL;
}

/* gnuplot text: system("CMD"), system "CMD" and `CMD` (code_scan reads
 * them), a statement that starts with ! (the rest of its line; after a
 * newline, ; or the { of an if or do block), and a
 * string that starts with < or | (plot "< CMD", set print "| CMD", load
 * "< CMD"): a command whose output is read or that the output is piped
 * into. eval and @macro run text built at run time. */
static void gnuplot_scan(struct cctx *x, const struct word *w, const char *t, size_t n)
{
	const char *end = t + n;
	struct span sp = shell_span_word(x, w);
	bool start = true;

	code_scan(x, "gnuplot", t, n, sp);
	for (const char *p = t; p < end; p++) {
		if (*p == '"' || *p == '\'') {
			const char *e = gnuplot_string_end(p, end);
			if (e == NULL) { /* unclosed: gnuplot rejects the line; read on */
				start = false;
				continue;
			}
			if (e > p + 1 && (p[1] == '<' || p[1] == '|'))
				rules_hook(x, w, p + 2, (size_t)(e - p - 2),
				           "gnuplot reads from or pipes into a command");
			p = e;
			start = false;
		} else if (*p == '\n' || *p == ';' || *p == '{') {
			start = true;
		} else if (*p == '@' || (start && end - p >= 4 && strncmp(p, "eval", 4) == 0)) {
			cls_add(x, TIER_HIGH, "exec.dynamic_command", sp,
			        "gnuplot runs text built at run time (eval, @macro)");
			start = false;
		} else if (start && *p == '!') {
			size_t l = strcspn(p + 1, "\n");
			rules_hook(x, w, p + 1, l < (size_t)(end - p - 1) ? l : (size_t)(end - p - 1),
			           "gnuplot's ! runs a shell command");
			start = false;
		} else if (*p != ' ' && *p != '\t') {
			start = false;
		}
	}
}

/* A gnuplot script file: read, and its content when the call wrote it. */
static void gnuplot_file(struct cctx *x, const struct word *w)
{
	paths_read(x, w, w->val);
	shell_files_each(x, w, gnuplot_scan);
}

/* gnuplot [-e TEXT] FILE... (- is stdin), or -c FILE ARGS (the rest are
 * the script's arguments). */
static void rule_gnuplot(struct cctx *x, struct cmdv *c)
{
	static const char ao[] = "ec";
	size_t idx[16], nf = opt_operands(c, 1, ao, idx, nitems(idx));
	const struct word *cw;
	const char *v;
	bool files = false, from_stdin = false;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const struct word *w = opt_value_at(c, &i, 'e', NULL, ao, &v);
		if (w && text_literal(x, w, "gnuplot"))
			gnuplot_scan(x, w, v, strlen(v));
	}
	if ((cw = opt_value(c, 'c', NULL, ao, &v)) != NULL) {
		struct word fw = *cw;
		fw.val = v;
		fw.len = strlen(v);
		gnuplot_file(x, &fw);
		files = true;
		nf = 0;
	}
	for (size_t i = 0; i < nf; i++) {
		if (strcmp(c->w[idx[i]].val, "-") == 0) {
			from_stdin = true;
			continue;
		}
		gnuplot_file(x, &c->w[idx[i]]);
		files = true;
	}
	if (files)
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_words(x, c->w, c->n),
		        "gnuplot runs a script file airlock cannot see (its system and ! run "
		        "commands)");
	if (from_stdin || !files)
		text_stdin(x, c, "whose system and ! run shell commands", gnuplot_scan);
}

/* ---- exiftool ---- */

/* exiftool's options that take a value (one dash, any case; -if and -p
 * with a number after them too). */
static const char *const exif_valued[] = {
	"-o",      "-out",    "-p",       "-printformat", "-if",   "-d",        "-dateformat",
	"-w",      "-textout", "-x",      "-exclude",     "-c",    "-coordformat", "-charset",
	"-lang",   "-api",    "-config",  "-@",           "-sep",  "-separator", "-fileorder",
	"-srcfile", "-tagsfromfile", "-ext", "-extension", "-i",   "-ignore",   "-geotag",
	"-userparam", "-globaltimeshift", "-use", "-listx",
};

static bool exif_opt(const char *a, const char *name)
{
	size_t n = strlen(name);

	if (strncasecmp(a, name, n) != 0)
		return false;
	a += n;
	a += strspn(a, "0123456789");
	return *a == '\0';
}

static bool exif_takes_value(const char *a)
{
	for (size_t i = 0; i < nitems(exif_valued); i++)
		if (exif_opt(a, exif_valued[i]))
			return true;
	return false;
}

/* A Perl expression exiftool evaluates: -if EXPR, a ${TAG;EXPR} of -p and
 * of tag copying, and the -api Filter options. */
static void exif_perl(struct cctx *x, const struct word *w, const char *v)
{
	if (text_literal(x, w, "exiftool"))
		code_scan(x, "perl", v, strlen(v), shell_span_word(x, w));
}

/* -FileName=V, -Directory=V and their < forms move the files anywhere. */
static void exif_move(struct cctx *x, const struct word *w, const char *a)
{
	static const char *const movers[] = {"-filename", "-directory", "-testname",
	                                      "-hardlink", "-symlink"};
	for (size_t i = 0; i < nitems(movers); i++) {
		size_t l = strlen(movers[i]);
		const char *v = a + l;
		if (strncasecmp(a, movers[i], l) != 0 || (*v != '=' && *v != '<'))
			continue;
		if (*v == '=' && v[1] && !strpbrk(v + 1, "%$<") && !(w->flags & (W_DYNAMIC | W_GLOB)))
			paths_write(x, w, v + 1, shell_span_word(x, w));
		else
			cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_word(x, w),
			        "exiftool moves files to names built from their tags");
	}
}

static void rule_exiftool(struct cctx *x, struct cmdv *c)
{
	size_t ops[64], nops = 0;
	bool writes = false, over = false;

	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i], *val = i + 1 < c->n ? &c->w[i + 1] : NULL;
		const char *a = w->val;
		if (a[0] != '-' || a[1] == '\0') {
			if (nops < nitems(ops))
				ops[nops++] = i;
			else
				over = true;
			continue;
		}
		if (strchr(a, '=') || strchr(a, '<') || exif_opt(a, "-restore_original") ||
		    exif_opt(a, "-overwrite_original") || exif_opt(a, "-overwrite_original_in_place"))
			writes = true;
		exif_move(x, w, a);
		if (strstr(a, "${") && strchr(a, ';'))
			exif_perl(x, w, a);
		if (exif_opt(a, "-delete_original") || exif_opt(a, "-delete_original!"))
			cls_add(x, TIER_HIGH, "fs.delete", shell_span_word(x, w),
			        "exiftool deletes the original files");
		if (!exif_takes_value(a) || val == NULL)
			continue;
		i++;
		if (exif_opt(a, "-if") || (exif_opt(a, "-api") && strncasecmp(val->val, "filter", 6) == 0))
			exif_perl(x, val, val->val);
		else if ((exif_opt(a, "-p") || exif_opt(a, "-printformat")) && !strchr(val->val, '$'))
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, val),
			        "exiftool reads a format file airlock cannot see (its ${TAG;EXPR} is Perl)");
		else if (strstr(val->val, "${") && strchr(val->val, ';'))
			exif_perl(x, val, val->val);
		if (exif_opt(a, "-config") || exif_opt(a, "-@")) {
			paths_read(x, val, val->val);
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_words(x, c->w, c->n),
			        "exiftool reads %s from a file airlock cannot see (Perl, or options "
			        "such as -if)", exif_opt(a, "-config") ? "a Perl config" : "arguments");
		} else if (exif_opt(a, "-o") || exif_opt(a, "-out") || exif_opt(a, "-w") ||
		           exif_opt(a, "-textout")) {
			if (!strchr(val->val, '%'))
				paths_write(x, val, val->val, shell_span_word(x, val));
			else
				writes = true;
		} else if (exif_opt(a, "-tagsfromfile") || exif_opt(a, "-srcfile")) {
			paths_read(x, val, val->val);
			writes = true;
		}
	}
	for (size_t i = 0; i < nops; i++) {
		const struct word *w = &c->w[ops[i]];
		if (writes)
			paths_write(x, w, w->val, shell_span_word(x, w));
		else
			paths_read(x, w, w->val);
	}
	if (over) /* the files past the 64th are not looked at: any may be a secret */
		cls_add(x, TIER_HIGH, writes ? "fs.write.outside_workdir" : "parse.uncertain",
		        shell_span_words(x, c->w, c->n), "exiftool is given more files than airlock "
		        "reads");
}

/* ---- ghostscript ---- */

/* -sOutputFile=%pipe%CMD (or |CMD) pipes the output into CMD, -dSAFER
 * off lets the PostScript run %pipe% files, delete and write any file;
 * any other output file is a write. The PostScript itself is a program
 * airlock does not read. */
static void gs_output(struct cctx *x, const struct word *w, const char *v)
{
	if (strncmp(v, "%pipe%", 6) == 0 || v[0] == '|')
		rules_hook(x, w, v + (v[0] == '|' ? 1 : 6), strlen(v) - (v[0] == '|' ? 1 : 6),
		           "ghostscript pipes its output into a command");
	else if (v[0] && strcmp(v, "-") != 0 && strncmp(v, "%stdout", 7) != 0 &&
	         strncmp(v, "%stderr", 7) != 0)
		paths_write(x, w, v, shell_span_word(x, w));
}

static void rule_gs(struct cctx *x, struct cmdv *c)
{
	static const char *const unsafe[] = {"-dNOSAFER", "-dDELAYSAFER", "-dSAFER=false",
	                                     "-dSAFER=0", "-dWRITESYSTEMDICT"};

	cls_add(x, x->o->unknown_program, "exec.script", shell_span_words(x, c->w, c->n),
	        "ghostscript runs PostScript programs airlock cannot see");
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		const char *a = w->val;
		for (size_t k = 0; k < nitems(unsafe); k++)
			if (strncmp(a, unsafe[k], strlen(unsafe[k])) == 0)
				cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_word(x, w),
				        "without -dSAFER the PostScript ghostscript runs may start commands "
				        "(%%pipe%%), delete and write any file");
		if (strncasecmp(a, "-sOutputFile=", 13) == 0)
			gs_output(x, w, a + 13);
		else if (strcmp(a, "-o") == 0 && i + 1 < c->n) {
			i++;
			gs_output(x, &c->w[i], c->w[i].val);
		}
		else if (strstr(a, "%pipe%"))
			rules_hook(x, w, "", 0, "the PostScript opens a %pipe% file, a command");
		else if (a[0] != '-' && a[0] != '@')
			paths_read(x, w, a);
	}
}

/* ps2pdf, ps2ps, pdf2ps and eps2eps run gs (with -dSAFER) on INPUT [OUTPUT]:
 * their options reach gs, and the second operand is written. */
static void rule_ps2pdf(struct cctx *x, struct cmdv *c)
{
	size_t idx[3], n = opt_operands(c, 1, "", idx, nitems(idx));

	rule_gs(x, c);
	if (n == 2 && strcmp(c->w[idx[1]].val, "-") != 0)
		paths_write(x, &c->w[idx[1]], c->w[idx[1]].val, shell_span_word(x, &c->w[idx[1]]));
}

/* ---- ImageMagick ---- */

/* A file operand of an ImageMagick tool: |CMD reads from or writes to a
 * command, msl: is a script (its <write> goes anywhere), ephemeral: deletes
 * the file once read, a URL is fetched, @FILE reads FILE; out: a write. */
static void magick_file(struct cctx *x, const struct word *w, bool out)
{
	const char *a = w->val, *p = a + strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-");
	struct span sp = shell_span_word(x, w);

	if (*p == ':' && p > a && p[1] == '/' && p[2] == '/') {
		cls_add(x, TIER_HIGH, "net.fetch", sp, "ImageMagick fetches a URL");
		net_add_fetch_url(x, a);
		return;
	}
	if (*p == ':' && p > a + 1) { /* a coder prefix; one letter is a drive */
		size_t l = (size_t)(p - a);
		if ((l == 3 && strncasecmp(a, "msl", 3) == 0) || (l == 3 && strncasecmp(a, "mvg", 3) == 0))
			cls_add(x, x->o->unknown_program, "exec.script", sp,
			        "ImageMagick runs a %.*s script airlock cannot see", (int)l, a);
		if (l == 9 && strncasecmp(a, "ephemeral", 9) == 0) {
			cls_add(x, TIER_HIGH, "fs.delete", sp, "ImageMagick deletes an ephemeral: file "
			        "once it has read it");
			paths_write(x, w, p + 1, sp);
		}
		a = p + 1;
	}
	if (a[0] == '|')
		rules_hook(x, w, a + 1, strlen(a + 1), "ImageMagick reads from or writes to a command");
	else if (a[0] == '@')
		paths_read(x, w, a + 1);
	else if (out)
		paths_write(x, w, a, sp);
	else if (a[0])
		paths_read(x, w, a);
}

static void rule_magick(struct cctx *x, struct cmdv *c)
{
	/* tools whose last operand is the image they write; mogrify writes
	 * every file after its last option */
	static const char writers[] = " convert magick montage composite compare import stream ";
	static const char tools[] = " convert mogrify montage composite compare identify stream "
	                            "import conjure animate display ";
	const char *p = c->prog;
	size_t at = 1, last_opt = 0;
	char key[32];
	bool inplace;

	/* magick TOOL ARGS (ImageMagick 7) and gm TOOL ARGS (GraphicsMagick)
	 * are the tool; gm without one is unknown */
	snprintf(key, sizeof(key), " %s ", c->n > 1 ? c->w[1].val : "");
	if ((strcmp(p, "magick") == 0 || strcmp(p, "gm") == 0) && c->n > 1 &&
	    !strchr(c->w[1].val, ' ') && strstr(tools, key))
		p = c->w[at++].val;
	else if (strcmp(p, "gm") == 0) {
		cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_words(x, c->w, c->n),
		        "gm runs a command airlock does not know");
		return;
	}
	snprintf(key, sizeof(key), " %s ", p);
	inplace = strcmp(p, "mogrify") == 0;
	if (strcmp(p, "conjure") == 0)
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_words(x, c->w, c->n),
		        "conjure runs an MSL script airlock cannot see");
	for (size_t i = at; i < c->n; i++) {
		const char *a = c->w[i].val;
		if ((a[0] == '-' || a[0] == '+') && a[1] && !(a[1] >= '0' && a[1] <= '9'))
			last_opt = i;
		if (strcmp(a, "-script") == 0 && i + 1 < c->n)
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[i + 1]),
			        "ImageMagick runs a script file airlock cannot see");
		if (strcmp(a, "-write") == 0 && i + 1 < c->n)
			magick_file(x, &c->w[i + 1], true);
	}
	for (size_t i = at; i < c->n; i++) {
		const char *a = c->w[i].val;
		bool out = (inplace && i > last_opt) ||
		           (i == c->n - 1 && i > last_opt && strstr(writers, key) &&
		            (i > at || strcmp(p, "import") == 0));
		if ((a[0] == '-' || a[0] == '+') && a[1])
			continue;
		magick_file(x, &c->w[i], out);
	}
}

/* ---- document tools ---- */

/* pandoc: --filter CMD runs a program on the document and --pdf-engine
 * another (judged as commands, as the environment's command variables
 * are: `--pdf-engine=xelatex` stays medium), a --lua-filter or --defaults
 * file (which may name filters) is a script, -o and --extract-media
 * write, a URL input is fetched. */
enum pandoc_val { PD_COMMAND, PD_SCRIPT, PD_WRITE };
static const struct {
	char letter;
	const char *lname;
	enum pandoc_val kind;
} pandoc_opts[] = {
	{'F', "--filter", PD_COMMAND}, {0, "--pdf-engine", PD_COMMAND},
	{'L', "--lua-filter", PD_SCRIPT}, {'d', "--defaults", PD_SCRIPT},
	{'o', "--output", PD_WRITE}, {0, "--extract-media", PD_WRITE},
};

static void pandoc_value(struct cctx *x, const struct word *w, const char *v,
                         enum pandoc_val kind)
{
	struct span sp = shell_span_word(x, w);

	if (kind == PD_COMMAND && text_literal(x, w, "pandoc"))
		shell_script_text(x, v, strlen(v), sp);
	else if (kind == PD_SCRIPT) {
		paths_read(x, w, v);
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "pandoc runs a Lua filter or defaults file airlock cannot see");
	} else if (kind == PD_WRITE && strcmp(v, "-") != 0) {
		paths_write(x, w, v, sp);
	}
}

static void rule_pandoc(struct cctx *x, struct cmdv *c)
{
	static const char ao[] = "ofFLdtrwMVAHBcDT"; /* -C (citeproc), -s, -N take none */
	size_t idx[32], n = opt_operands(c, 1, ao, idx, nitems(idx));

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		for (size_t k = 0; k < nitems(pandoc_opts); k++) {
			size_t j = i;
			const char *v;
			const struct word *w = opt_value_at(c, &j, pandoc_opts[k].letter,
			                                    pandoc_opts[k].lname, ao, &v);
			if (w) {
				pandoc_value(x, w, v, pandoc_opts[k].kind);
				i = j;
				break;
			}
		}
	for (size_t k = 0; k < n; k++) {
		const struct word *w = &c->w[idx[k]];
		if (strstr(w->val, "://")) {
			cls_add(x, TIER_HIGH, "net.fetch", shell_span_word(x, w), "pandoc fetches a URL");
			net_add_fetch_url(x, w->val);
		} else {
			paths_read(x, w, w->val);
		}
	}
}

/* TeX: the document runs \write18 commands with -shell-escape (or
 * -enable-write18), unseen; latexmk's -e is Perl and -r a Perl rc file,
 * and its -pdflatex=CMD (and the like) a command. A document build is
 * exec.build. */
/* latexmk -e CODE: Perl, and an assignment to a command variable
 * ($pdflatex = 'CMD', q/CMD/) sets a command a build step runs: judged
 * as one, as -pdflatex=CMD is (`-pdflatex='lualatex %O %S'` stays a
 * build). A value that is not a literal is a hook whose command is
 * unknown. */
static void latexmk_code(struct cctx *x, const struct word *w)
{
	static const char *const vars[] = {"$pdflatex", "$latex", "$xelatex", "$lualatex",
	                                   "$dvipdf", "$ps2pdf", "$bibtex", "$biber",
	                                   "$makeindex", "$pdf_previewer", "$print_cmd"};
	const char *code = w->val;

	code_scan(x, "perl", code, w->len, shell_span_word(x, w));
	for (size_t k = 0; k < nitems(vars); k++)
		for (const char *p = code; (p = strstr(p, vars[k])) != NULL; p++) {
			const char *v = p + strlen(vars[k]), *e;
			char close;
			v += strspn(v, " \t");
			if (*v != '=' || v[1] == '=' || v[1] == '~')
				continue;
			v += 1 + strspn(v + 1, " \t");
			if (v[0] == 'q' && v[1] && strchr("/|{(!#", v[1]))
				v++;
			close = *v == '{' ? '}' : *v == '(' ? ')' : *v;
			if (!*v || !strchr("'\"/|{(!#", *v) || (e = strchr(v + 1, close)) == NULL)
				rules_hook(x, w, "", 0, "latexmk -e sets a command a build step runs");
			else
				shell_script_text(x, v + 1, (size_t)(e - v - 1), shell_span_word(x, w));
		}
}

static void rule_tex(struct cctx *x, struct cmdv *c)
{
	static const char *const escapes[] = {"-shell-escape", "--shell-escape", "-enable-write18",
	                                      "--enable-write18"};
	static const char *const engines[] = {"-pdflatex=", "-latex=", "-xelatex=", "-lualatex=",
	                                      "-dvipdf=", "-ps2pdf=", "-bibtex=", "-biber=",
	                                      "-makeindex="};
	bool latexmk = strcmp(c->prog, "latexmk") == 0;

	cls_add(x, TIER_MEDIUM, "exec.build", shell_span_words(x, c->w, c->n),
	        "builds a TeX document (its packages may write files)");
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		for (size_t k = 0; k < nitems(escapes); k++)
			if (strcmp(w->val, escapes[k]) == 0)
				cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_word(x, w),
				        "the document's \\write18 runs shell commands airlock cannot see");
		for (size_t k = 0; latexmk && k < nitems(engines); k++)
			if (strncmp(w->val, engines[k], strlen(engines[k])) == 0 &&
			    text_literal(x, w, "latexmk"))
				shell_script_text(x, w->val + strlen(engines[k]),
				                  strlen(w->val + strlen(engines[k])), shell_span_word(x, w));
		if (latexmk && strcmp(w->val, "-e") == 0 && i + 1 < c->n &&
		    text_literal(x, &c->w[i + 1], "latexmk"))
			latexmk_code(x, &c->w[i + 1]);
		if (latexmk && strcmp(w->val, "-r") == 0 && i + 1 < c->n)
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[i + 1]),
			        "latexmk runs a Perl rc file airlock cannot see");
	}
}

/* groff -U (and troff's) is unsafe mode: the document's .sy and .pso
 * requests run commands. */
static void rule_groff(struct cctx *x, struct cmdv *c)
{
	if (opt_short(c, 'U', "dDfFIKLmMnoPrTwW"))
		cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_words(x, c->w, c->n),
		        "%s -U lets the document run shell commands (.sy, .pso)", c->prog);
}

/* xsltproc: -o writes; the stylesheet may write any file (exsl:document)
 * and read any (document()), so it is exec.script. */
static void rule_xsltproc(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 'o', "--output", "o", &v);

	cls_add(x, x->o->unknown_program, "exec.script", shell_span_words(x, c->w, c->n),
	        "xsltproc runs a stylesheet, which may read and write any file");
	if (w)
		paths_write(x, w, v, shell_span_word(x, w));
}

#define FN(n, fn) {n, 0, NULL, TIER_LOW, NULL, NULL, fn}

const struct prog rules_text[] = {
	FN("m4", rule_m4), FN("gnuplot", rule_gnuplot), FN("exiftool", rule_exiftool),
	FN("gs", rule_gs), FN("gsc", rule_gs), FN("gsx", rule_gs), FN("ghostscript", rule_gs),
	FN("convert", rule_magick), FN("magick", rule_magick), FN("mogrify", rule_magick),
	FN("montage", rule_magick), FN("composite", rule_magick), FN("compare", rule_magick),
	FN("identify", rule_magick), FN("stream", rule_magick), FN("import", rule_magick),
	FN("conjure", rule_magick), FN("animate", rule_magick), FN("display", rule_magick),
	FN("pandoc", rule_pandoc), FN("latex", rule_tex), FN("pdflatex", rule_tex),
	FN("xelatex", rule_tex), FN("lualatex", rule_tex), FN("tex", rule_tex), FN("pdftex", rule_tex),
	FN("latexmk", rule_tex), FN("groff", rule_groff), FN("troff", rule_groff),
	FN("xsltproc", rule_xsltproc), FN("gm", rule_magick), FN("gnuplot-qt", rule_gnuplot),
	FN("gnuplot-x11", rule_gnuplot), FN("gnuplot-nox", rule_gnuplot), FN("gsnd", rule_gs),
	FN("ps2pdf", rule_ps2pdf), FN("ps2ps", rule_ps2pdf), FN("pdf2ps", rule_ps2pdf),
	FN("eps2eps", rule_ps2pdf),
};
const size_t rules_text_n = nitems(rules_text);
