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
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static void note(struct cctx *x, const char *abs, const char *text, size_t len)
{
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

void shell_printf_text(struct buf *b, const char *fmt)
{
	for (; *fmt; fmt++) {
		if (fmt[0] == '\\' && fmt[1] && strchr("nt\\", fmt[1])) {
			fmt++;
			buf_puts(b, *fmt == 'n' ? "\n" : *fmt == 't' ? "\t" : "\\");
		} else {
			buf_append(b, fmt, 1);
		}
	}
}

/* What cat, tee, echo or printf writes to stdout, when the call shows it. */
static bool output_text(const struct cmdv *c, struct buf *b)
{
	const char *p = c->w[0].val;
	size_t i = 1;

	if (strcmp(p, "cat") == 0 || strcmp(p, "tee") == 0) {
		if (c->in_text == NULL || (strcmp(p, "cat") == 0 && c->n > 1))
			return false;
		buf_append(b, c->in_text, c->in_len);
		return true;
	}
	if (strcmp(p, "echo") != 0 && strcmp(p, "printf") != 0)
		return false;
	for (size_t k = 1; k < c->n; k++)
		if (c->w[k].flags & (W_DYNAMIC | W_GLOB))
			return false;
	if (p[0] == 'p') {
		if (c->n > 1)
			shell_printf_text(b, c->w[1].val);
		return true;
	}
	while (i < c->n && strcmp(c->w[i].val, "-n") == 0)
		i++;
	for (size_t k = i; k < c->n; k++) {
		if (k > i)
			buf_puts(b, " ");
		buf_puts(b, c->w[k].val);
	}
	buf_puts(b, "\n");
	return true;
}

static void note_path(struct cctx *x, const struct word *w, const struct buf *b)
{
	char abs[CLS_MAX_PATH];

	if (!(w->flags & (W_DYNAMIC | W_GLOB)) && paths_resolve(x, w->val, abs, sizeof(abs)))
		note(x, abs, b->data ? b->data : "", b->len);
}

void shell_files_note(struct cctx *x, const struct cmdv *c)
{
	struct buf b;

	if (c->n == 0 || (c->w[0].flags & (W_DYNAMIC | W_GLOB)))
		return;
	buf_init(&b, CLS_MAX_INPUT);
	if (!output_text(c, &b))
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

void shell_files_run(struct cctx *x, const struct word *w, const char *lang)
{
	char abs[CLS_MAX_PATH];
	struct span sp = shell_span_word(x, w);
	bool found = false;

	if ((w->flags & (W_DYNAMIC | W_GLOB)) || !paths_resolve(x, w->val, abs, sizeof(abs)))
		return;
	for (size_t i = 0; i < x->nfiles; i++) {
		const char *l = lang;
		if (strcmp(x->files[i].path, abs) != 0)
			continue;
		found = true;
		if (l == NULL)
			l = shebang_lang(x->files[i].text, x->files[i].len);
		if (strcmp(l, "sh") == 0)
			shell_script_text(x, x->files[i].text, x->files[i].len, sp);
		else
			code_scan(x, l, x->files[i].text, x->files[i].len, sp);
	}
	if (!found && x->files_over)
		cls_add(x, TIER_HIGH, "parse.uncertain", sp,
		        "the call writes more scripts than airlock keeps; %s may be one of them",
		        w->val);
}
