/*
 * shell_files.c: scripts a call writes and then runs. `cat > x.sh <<EOF`,
 * `echo 'rm -rf /' > x.sh` and `tee x.py <<EOF` leave a file whose content
 * the call itself shows; running it later in the same call (bash x.sh,
 * . x.sh, ./x.sh, python x.py) reads that content as the script.
 * Rules: a reading only adds findings (the write may not have happened, or
 * the file may be changed in between), so exec.script stays as well; when
 * the call writes more scripts than fit, running an unknown file is
 * parse.uncertain rather than a guess.
 */
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static void note(struct cctx *x, const char *abs, const char *text, size_t len)
{
	x->files_late |= x->missed_over;
	for (size_t i = 0; i < x->nmissed; i++)
		x->files_late |= strcmp(x->missed[i], abs) == 0;
	for (size_t i = 0; i < x->nfiles; i++)
		if (strcmp(x->files[i].path, abs) == 0 && x->files[i].len == len &&
		    memcmp(x->files[i].text, text, len) == 0)
			return; /* the same write, seen again in a later reading */
	if (x->nfiles == nitems(x->files)) {
		x->files_over = true;
		return;
	}
	x->files[x->nfiles].path = arena_strndup(x->a, abs, strlen(abs));
	x->files[x->nfiles].text = arena_strndup(x->a, text, len);
	x->files[x->nfiles].len = len;
	x->nfiles++;
}

static void note_path(struct cctx *x, const struct word *w, const struct buf *b)
{
	char abs[CLS_MAX_PATH];

	if (!(w->flags & (W_DYNAMIC | W_GLOB)) && paths_resolve(x, w->val, abs, sizeof(abs)))
		note(x, abs, b->data ? b->data : "", b->len);
}

/* What writes its known stdin to a file unchanged: `sponge FILE`, `dd
 * of=FILE` (no if=, or if=/dev/stdin), `cp|install /dev/stdin FILE`. */
static void note_stdin_copy(struct cctx *x, const struct cmdv *c)
{
	const char *p = c->w[0].val;
	struct buf b;
	const struct word *to = NULL;
	bool from_stdin = true;

	if (c->in_text == NULL || c->n < 2)
		return;
	if (strcmp(p, "sponge") == 0 && c->w[c->n - 1].val[0] != '-') {
		to = &c->w[c->n - 1];
	} else if (strcmp(p, "dd") == 0) {
		for (size_t i = 1; i < c->n; i++)
			if (strncmp(c->w[i].val, "of=", 3) == 0)
				to = &c->w[i];
			else if (strncmp(c->w[i].val, "if=", 3) == 0)
				from_stdin = strcmp(c->w[i].val + 3, "/dev/stdin") == 0;
	} else if ((strcmp(p, "cp") == 0 || strcmp(p, "install") == 0) && c->n == 3 &&
	           strcmp(c->w[1].val, "/dev/stdin") == 0) {
		to = &c->w[2];
	}
	if (to == NULL || !from_stdin)
		return;
	buf_init(&b, c->in_len + 1);
	buf_append(&b, c->in_text, c->in_len);
	if (strcmp(p, "dd") == 0) {
		struct word w = *to;
		w.val = to->val + 3;
		note_path(x, &w, &b);
	} else {
		note_path(x, to, &b);
	}
	buf_free(&b);
}

void shell_files_note(struct cctx *x, const struct cmdv *c)
{
	struct buf b;

	note_stdin_copy(x, c);
	buf_init(&b, CLS_MAX_INPUT);
	if (!shell_cmd_output(x, c->w, c->n, c->in_text, c->in_len, &b))
		goto out;
	for (size_t i = 0; c->sc && i < c->sc->nr; i++) {
		const struct redir *r = c->sc->r[i];
		bool out = r->kind == R_OUT || r->kind == R_CLOBBER || r->kind == R_APPEND ||
		           r->kind == R_OUT_ALL || r->kind == R_APPEND_ALL;
		if (out && (r->fd == -1 || r->fd == 1))
			note_path(x, &r->target, &b);
	}
	for (size_t i = 1; strcmp(c->w[0].val, "tee") == 0 && i < c->n; i++)
		if (c->w[i].val[0] != '-')
			note_path(x, &c->w[i], &b);
out:
	buf_free(&b);
}

/* The language a #! line names; sh when there is none. */
static const char *shebang_lang(const char *text, size_t len)
{
	static const struct {
		const char *word, *lang;
	} langs[] = {{"python", "python"}, {"node", "js"}, {"perl", "perl"}, {"ruby", "ruby"},
	             {"php", "php"}};
	const char *nl = memchr(text, '\n', len);
	size_t n = nl ? (size_t)(nl - text) : len;

	if (n < 2 || text[0] != '#' || text[1] != '!')
		return "sh";
	for (size_t i = 0; i < nitems(langs); i++)
		if (memmem(text, n, langs[i].word, strlen(langs[i].word)))
			return langs[i].lang;
	return "sh";
}

/* The descriptor /dev/stdin, /dev/fd/N or /proc/self/fd/N names, or -1. */
static long fd_of(const char *p)
{
	static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
	char *end;
	long fd;

	if (strcmp(p, "/dev/stdin") == 0)
		return 0;
	for (size_t i = 0; i < nitems(dirs); i++)
		if (strncmp(p, dirs[i], strlen(dirs[i])) == 0) {
			p += strlen(dirs[i]);
			fd = strtol(p, &end, 10);
			return end != p && *end == '\0' && fd >= 0 && fd < 1024 ? fd : -1;
		}
	return -1;
}

/* A written script read as it runs. A script that runs itself or others
 * several times at each level would be read exponentially often (sh p;
 * sh p inside p, 12 levels deep): past CLS_MAX_FILE_RUNS readings the
 * rest is not read, and counts as the worst it could hide. */
static bool run_counted(struct cctx *x, struct span sp)
{
	if (++x->file_runs > CLS_MAX_FILE_RUNS) {
		if (x->file_runs == CLS_MAX_FILE_RUNS + 1)
			cls_add(x, TIER_CRITICAL, "parse.too_deep", sp,
			        "scripts the call writes are run more than %d times over: what "
			        "is past that is not read, so it counts as the worst it could hide",
			        CLS_MAX_FILE_RUNS);
		return false;
	}
	return true;
}

static void run_text(struct cctx *x, const char *lang, const char *text, size_t len,
                     struct span sp)
{
	if (!run_counted(x, sp))
		return;
	if (lang == NULL)
		lang = shebang_lang(text, len);
	if (strcmp(lang, "sh") == 0)
		shell_script_text(x, text, len, sp);
	else
		code_scan(x, lang, text, len, sp);
}

/* The script a command reads from descriptor fd: its here-document or
 * here-string (the last for that fd wins, as in the shell), or for stdin
 * the text piped in. NULL when unknown; a pipe whose text is unknown is
 * code airlock cannot see. */
static const char *fd_text(struct cctx *x, long fd, struct span *sp, size_t *len)
{
	const struct cmdv *c = x->cur;
	const struct redir *doc = NULL;

	for (size_t i = 0; c && c->sc && i < c->sc->nr; i++) {
		const struct redir *r = c->sc->r[i];
		if ((r->fd == fd || (r->fd == -1 && fd == 0)) &&
		    (r->kind == R_HEREDOC || r->kind == R_HERESTR))
			doc = r;
		else if (r->fd == fd || (r->fd == -1 && fd == 0 && r->kind == R_IN))
			doc = NULL; /* a later redirection of it wins */
	}
	if (doc && doc->kind == R_HEREDOC) {
		*len = doc->bodylen;
		return doc->body ? doc->body : "";
	}
	if (doc) {
		*sp = shell_span_word(x, &doc->target);
		*len = doc->target.len;
		return doc->target.val;
	}
	if (c && fd == 0 && c->in == IN_PIPE && c->in_text) {
		*sp = c->in_span;
		*len = c->in_len;
		return c->in_text;
	}
	if (c && fd == 0 && c->in == IN_PIPE)
		cls_add(x, TIER_HIGH, "exec.pipe_to_shell", *sp,
		        "runs a script piped from another command");
	return NULL;
}

static void run_fd(struct cctx *x, long fd, const char *lang, struct span sp)
{
	size_t len;
	const char *text = fd_text(x, fd, &sp, &len);

	if (text)
		run_text(x, lang, text, len, sp);
}

bool shell_files_is_stdin(const char *v)
{
	return strcmp(v, "-") == 0 || fd_of(v) == 0;
}

const char *shell_files_stdin_text(struct cctx *x, const struct word *w, const char *v, size_t *len)
{
	struct span sp = shell_span_word(x, w);
	const char *text;

	if ((w->flags & (W_DYNAMIC | W_GLOB)) || !shell_files_is_stdin(v))
		return NULL;
	text = fd_text(x, 0, &sp, len);
	return text ? arena_strndup(x->a, text, *len) : NULL;
}

/* The writes the call made to the file w names, each read with fn or,
 * without fn, as a script in lang; a file run that the call writes only
 * later is noted for shell_files_late(). */
static void files_each(struct cctx *x, const struct word *w, const char *lang,
                       shell_files_fn fn)
{
	char abs[CLS_MAX_PATH];
	struct span sp = shell_span_word(x, w);
	bool found = false;

	if (!paths_resolve(x, w->val, abs, sizeof(abs)))
		return;
	for (size_t i = 0; i < x->nfiles; i++) {
		if (strcmp(x->files[i].path, abs) != 0)
			continue;
		found = true;
		if (fn == NULL)
			run_text(x, lang, x->files[i].text, x->files[i].len, sp);
		else if (run_counted(x, sp))
			fn(x, w, x->files[i].text, x->files[i].len);
	}
	if (!found && x->files_over)
		cls_add(x, TIER_HIGH, "parse.uncertain", sp,
		        "the call writes more scripts than airlock keeps; %s may be one of them",
		        w->val);
	if (!found && x->nmissed < nitems(x->missed))
		x->missed[x->nmissed++] = arena_strndup(x->a, abs, strlen(abs));
	else if (!found)
		x->missed_over = true;
}

void shell_files_run(struct cctx *x, const struct word *w, const char *lang)
{
	long fd;

	if (w->flags & (W_DYNAMIC | W_GLOB))
		return;
	if ((fd = fd_of(w->val)) >= 0) {
		run_fd(x, fd, lang, shell_span_word(x, w));
		return;
	}
	files_each(x, w, lang, NULL);
}

void shell_files_each(struct cctx *x, const struct word *w, shell_files_fn fn)
{
	if (!(w->flags & (W_DYNAMIC | W_GLOB)) && fd_of(w->val) < 0)
		files_each(x, w, NULL, fn);
}

void shell_files_run_name(struct cctx *x, const struct word *w)
{
	if (w->flags & (W_DYNAMIC | W_GLOB))
		return;
	for (size_t i = 0; i < x->nfiles; i++) {
		const char *base = strrchr(x->files[i].path, '/');
		if (base && strcmp(base + 1, w->val) == 0)
			run_text(x, NULL, x->files[i].text, x->files[i].len, shell_span_word(x, w));
	}
}

void shell_files_late(struct cctx *x)
{
	if (!x->files_late)
		return;
	x->files_late = x->missed_over = false;
	x->nmissed = 0;
	shell_script(x, &x->f);
}
