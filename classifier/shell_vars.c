/*
 * shell_vars.c: what a script's own variables hold. The first pass keeps
 * every $NAME unknown (a dynamic word, as before) and notes each literal
 * value the script gives a name: NAME=value (alone, or before a command,
 * whose children see it), export/local/declare/readonly NAME=value, and
 * the words of `for NAME in ...`. Later passes read the script again with
 * $NAME standing for those values, one value per name per pass, and a
 * $(echo WORDS) of plain words standing for its output. The arguments a
 * script gives its functions, `set --` or `sh -c SCRIPT NAME ARGS` are
 * values of $1..$9, and together of $@ and $*.
 *
 * Rules: a reading only adds findings (cls_add keeps the strictest), so a
 * value the shell would not actually hold at that point (a branch not
 * taken, an assignment after the use, a reassignment airlock cannot see)
 * can make a call stricter, never laxer; a value that is itself dynamic is
 * not noted, but one made literal by an earlier reading is (A=/; B=$A).
 */
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

#define MAX_READINGS 4 /* extra passes at most: bounded work per call */

static void note(struct cctx *x, const char *name, size_t n, const char *val)
{
	for (size_t i = 0; i < x->nvars; i++)
		if (strlen(x->vars[i].name) == n && memcmp(x->vars[i].name, name, n) == 0 &&
		    strcmp(x->vars[i].val, val) == 0)
			return;
	if (x->nvars < nitems(x->vars)) {
		x->vars[x->nvars].name = arena_strndup(x->a, name, n);
		x->vars[x->nvars].val = arena_strndup(x->a, val, strlen(val));
		x->nvars++;
	}
}

static bool literal(const struct word *w)
{
	return !(w->flags & (W_DYNAMIC | W_SUBST | W_PROCSUB));
}

/* A literal value holding $( ) or ` ` is only text until bash evaluates
 * it (x='a[$(cmd)]'; echo $((x))): noted, and judged once the script
 * evaluates values anywhere, before or after. */
static void note_code(struct cctx *x, const struct word *w, const char *val)
{
	size_t len = strlen(val);
	struct cls_code *k;

	if (!strchr(val, '`') && !strstr(val, "$("))
		return;
	for (size_t i = 0; i < x->ncodes; i++)
		if (x->codes[i].len == len && memcmp(x->codes[i].text, val, len) == 0)
			return;
	x->codes = shell_grow(x->a, x->codes, x->ncodes, &x->capcodes, sizeof(*x->codes));
	k = &x->codes[x->ncodes++];
	k->text = arena_strndup(x->a, val, len);
	k->len = len;
	k->sp = shell_span_word(x, w);
	k->run = false;
	if (x->evaluates)
		shell_var_evaluated(x);
}

void shell_var_evaluated(struct cctx *x)
{
	x->evaluates = true;
	for (size_t i = 0; i < x->ncodes; i++)
		if (!x->codes[i].run) {
			x->codes[i].run = true;
			shell_expand_text(x, x->codes[i].text, x->codes[i].len, x->codes[i].sp);
		}
}

void shell_var_assign(struct cctx *x, const struct word *w)
{
	const char *eq = strchr(w->val, '=');
	size_t n = eq ? (size_t)(eq - w->val) : 0;

	if (n && literal(w))
		note_code(x, w, eq + 1);

	/* NAME+=value appends to a value airlock may not know */
	if (n == 0 || w->val[n - 1] == '+' || !literal(w))
		return;
	for (size_t i = 0; i < n; i++)
		if (!(w->val[i] == '_' || (w->val[i] >= 'A' && w->val[i] <= 'Z') ||
		      (w->val[i] >= 'a' && w->val[i] <= 'z') || (i && w->val[i] >= '0' && w->val[i] <= '9')))
			return;
	note(x, w->val, n, eq + 1);
}

/* A value airlock does not substitute that names a secret: read where it
 * is given, as an argument naming one is (scan_args). */
static void secret_value(struct cctx *x, const struct word *w)
{
	char abs[CLS_MAX_PATH];

	if (literal(w) && paths_resolve(x, w->val, abs, sizeof(abs)) && secrets_path(x, abs))
		paths_read(x, w, w->val);
}

void shell_var_value(struct cctx *x, const struct word *name, const struct word *val)
{
	if (literal(val))
		note_code(x, val, val->val);
	if (literal(name) && literal(val) && !(val->flags & W_GLOB))
		note(x, name->val, name->len, val->val);
	/* a glob's files are no value airlock knows, but one that reaches a
	 * secret is read by the loop's body as surely as by cat GLOB: `for f
	 * in ~/.ssh/id_*; do cat "$f"; done` and `for f in .env*` were low */
	else if (val->flags & W_GLOB)
		secret_value(x, val);
}

void shell_var_element(struct cctx *x, const struct word *w)
{
	secret_value(x, w);
}

void shell_var_args(struct cctx *x, const struct word *w, size_t n)
{
	struct buf all;

	buf_init(&all, 0);
	for (size_t i = 0; i < n; i++) {
		if (!literal(&w[i]) || (w[i].flags & W_GLOB))
			continue;
		if (i < 9)
			note(x, &"123456789"[i], 1, w[i].val);
		if (all.len)
			buf_puts(&all, " ");
		buf_puts(&all, w[i].val);
	}
	if (all.len) {
		note(x, "@", 1, all.data);
		note(x, "*", 1, all.data);
	}
	buf_free(&all);
}

const char *shell_var_lookup(const struct cctx *x, const char *name, size_t n)
{
	const char *found = NULL;
	int k = 0;

	if (x->reading <= 0)
		return NULL;
	for (size_t i = 0; i < x->nvars; i++)
		if (strlen(x->vars[i].name) == n && memcmp(x->vars[i].name, name, n) == 0) {
			found = x->vars[i].val; /* past its last value, a name keeps it */
			if (++k == x->reading)
				break;
		}
	return found;
}

/* The most values any one name has. */
static int most_values(const struct cctx *x)
{
	int most = 0;

	for (size_t i = 0; i < x->nvars; i++) {
		int k = 0;
		for (size_t j = 0; j <= i; j++)
			k += strcmp(x->vars[j].name, x->vars[i].name) == 0;
		if (k > most)
			most = k;
	}
	return most;
}

/* Characters of a word whose echo is itself: no quoting, expansion or
 * operator can hide in it. */
static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                            "/._~+,:=@-";

bool shell_var_subst(struct cctx *x, const char *body, size_t n, struct buf *out)
{
	static const char *const ws = " \t";
	char text[256];
	const char *p, *prog;
	size_t words = 0;

	if (n >= sizeof(text))
		return false;
	memcpy(text, body, n);
	text[n] = '\0';
	p = text + strspn(text, ws);
	prog = p;
	p += strcspn(p, ws);
	if (!((size_t)(p - prog) == 4 && strncmp(prog, "echo", 4) == 0) &&
	    !((size_t)(p - prog) == 6 && strncmp(prog, "printf", 6) == 0))
		return false;
	for (const char *q = p; *q; q++)
		if (!strchr(plain, *q) && !strchr(ws, *q) && *q != '\n')
			return false;
	if (x->reading <= 0) {
		x->substs = true;
		return false;
	}
	for (p += strspn(p, ws); *p; p += strspn(p, " \t\n")) {
		size_t len = strcspn(p, " \t\n");
		bool tilde = p[0] == '~' && (len == 1 || p[1] == '/') && x->home[0];
		if (prog[0] == 'p' && words > 0)
			break; /* printf prints its format; the rest are its arguments */
		if (words++)
			buf_puts(out, " ");
		if (tilde) {
			buf_puts(out, x->home);
			buf_append(out, p + 1, len - 1);
		} else {
			buf_append(out, p, len);
		}
		p += len;
	}
	return true;
}

void shell_var_readings(struct cctx *x)
{
	size_t before = 0;

	for (int r = 1; r <= MAX_READINGS && (x->nvars > 0 || x->substs || x->defaults); r++) {
		/* done once every value was read and the last pass found no new one */
		if (r > 1 && r > most_values(x) && x->nvars == before)
			break;
		before = x->nvars;
		x->reading = r;
		shell_script(x, &x->f);
	}
	x->reading = 0;
}
