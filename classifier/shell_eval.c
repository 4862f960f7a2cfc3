/*
 * shell_eval.c: bash builtins that take text and evaluate it later, as a
 * command (trap's action, mapfile -C, hash -p's program) or as arithmetic
 * or a variable name whose array subscript is expanded (let, declare -i,
 * test -v, printf -v, read). One table row per builtin.
 * Rules: a command text is judged as a script; the $( ) and ` ` of text
 * evaluated as arithmetic or a name run, so they are judged as commands;
 * text known only at run time is exec.dynamic_command.
 */
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* Judges w as a script the shell runs later (for who). */
static void eval_script(struct cctx *x, const struct word *w, const char *val, const char *who)
{
	if (w->flags & (W_DYNAMIC | W_GLOB))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
		        "%s runs text that is only known at run time", who);
	else if (val == w->val)
		shell_script_word(x, w);
	else
		shell_script_text(x, val, strlen(val), shell_span_word(x, w));
}

/* A NAME or NAME=VALUE a builtin assigns to: bash evaluates the subscript
 * of NAME[SUBSCRIPT] (its $( ) runs, quoted or not), not VALUE. */
static void eval_name(struct cctx *x, const struct word *w)
{
	const char *eq = strchr(w->val, '=');
	size_t n = eq ? (size_t)(eq - w->val) : w->len;
	struct word name = *w;

	if (memchr(w->val, '[', n) == NULL)
		return;
	shell_var_evaluated(x);
	name.len = n; /* a prefix: shell_expand_word reads len bytes */
	shell_expand_word(x, &name);
}

/* The NAME a builtin assigns to, given as an option's value (wait -p
 * NAME) or as an operand (getopts OPTSTRING NAME, mapfile NAME): its
 * subscript is expanded. */
static void eval_assigned(struct cctx *x, const struct cmdv *c)
{
	static const struct {
		const char *name, *argopts;
		char opt;    /* the option whose value is NAME, or 0 */
		size_t nth;  /* else NAME is this operand (1-based) */
	} rows[] = {{"getopts", "", 0, 2}, {"mapfile", "dnOsuCc", 0, 1},
	            {"readarray", "dnOsuCc", 0, 1}, {"wait", "p", 'p', 0}};
	size_t idx[4], n;
	const char *val;
	const struct word *w;

	for (size_t r = 0; r < nitems(rows); r++) {
		if (strcmp(c->w[0].val, rows[r].name) != 0)
			continue;
		if (rows[r].opt && (w = opt_value(c, rows[r].opt, NULL, rows[r].argopts, &val)) != NULL)
			eval_name(x, w);
		n = rows[r].opt ? 0 : opt_operands(c, 1, rows[r].argopts, idx, nitems(idx));
		if (n >= rows[r].nth && rows[r].nth > 0)
			eval_name(x, &c->w[idx[rows[r].nth - 1]]);
	}
}

/* trap ACTION SIGNAL...: ACTION runs when the signal (or EXIT) comes;
 * `-` and '' reset or ignore; alone, or as a number, it is a signal. */
static void eval_trap(struct cctx *x, const struct cmdv *c)
{
	size_t idx[2];
	const struct word *a;

	if (opt_operands(c, 1, "", idx, 2) < 2 || opt_short(c, 'p', "") || opt_short(c, 'l', ""))
		return;
	a = &c->w[idx[0]];
	if (strcmp(a->val, "-") != 0 && a->len > 0 && strspn(a->val, "0123456789") != a->len)
		eval_script(x, a, a->val, "trap");
}

/* mapfile -C CALLBACK: CALLBACK runs every -c lines. */
static void eval_mapfile(struct cctx *x, const struct cmdv *c)
{
	const char *val;
	const struct word *w = opt_value(c, 'C', NULL, "dnOsuCc", &val);

	if (w)
		eval_script(x, w, val, c->w[0].val);
	eval_assigned(x, c);
}

/* hash -p PATH NAME...: NAME now runs PATH. */
static void eval_hash(struct cctx *x, const struct cmdv *c)
{
	const char *path;
	const struct word *p = opt_value(c, 'p', NULL, "pt", &path);
	size_t idx[16], n;

	if (p == NULL)
		return;
	n = opt_operands(c, 1, "pt", idx, nitems(idx));
	for (size_t i = 0; i < n; i++)
		shell_hash_note(x, &c->w[idx[i]], p, path);
}

/* let EXPR...: arithmetic. */
static void eval_let(struct cctx *x, const struct cmdv *c)
{
	shell_var_evaluated(x);
	for (size_t i = 1; i < c->n; i++)
		shell_expand_word(x, &c->w[i]);
}

/* test -v NAME / [ -v NAME ]: NAME's subscript is expanded. */
static void eval_test(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i + 1 < c->n; i++)
		if (strcmp(c->w[i].val, "-v") == 0)
			shell_expand_word(x, &c->w[i + 1]);
}

/* declare -a|-A NAME='(...)': bash reads a value that starts with ( as an
 * array literal even when it was quoted (or came from a variable), so the
 * $( ) among its elements run as the declare runs. The argument is judged
 * as the assignment it is read as. */
static void eval_declare_array(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		const char *eq = strchr(w->val, '=');
		/* NAME=(...) and NAME+=(...); a run-time value's known
		 * values come in the later readings */
		if (w->val[0] == '-' || w->val[0] == '+' || eq == NULL || eq[1] != '(' ||
		    (w->flags & W_DYNAMIC))
			continue;
		shell_script_word(x, w);
	}
}

/* declare -i NAME=EXPR (arithmetic) and -n NAME=REF (a name whose
 * subscript is expanded at every use); typeset, local, readonly and
 * export alike, and the NAME[SUBSCRIPT] each of them assigns to
 * (declare 'a[$(cmd)]=1'). */
static void eval_declare(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (c->w[i].val[0] != '-' && c->w[i].val[0] != '+')
			eval_name(x, &c->w[i]);
	if (opt_short(c, 'a', "") || opt_short(c, 'A', ""))
		eval_declare_array(x, c);
	if (!opt_short(c, 'i', "") && !opt_short(c, 'n', ""))
		return;
	shell_var_evaluated(x);
	for (size_t i = 1; i < c->n; i++)
		if (c->w[i].val[0] != '-' && c->w[i].val[0] != '+')
			shell_expand_word(x, &c->w[i]);
}

/* printf -v NAME: NAME's subscript is expanded. */
static void eval_printf(struct cctx *x, const struct cmdv *c)
{
	const char *val;
	const struct word *w = opt_value(c, 'v', NULL, "v", &val);

	if (w) {
		shell_var_evaluated(x);
		shell_expand_word(x, w);
	}
}

/* read NAME... and read -a NAME: each NAME's subscript is expanded. */
static void eval_read(struct cctx *x, const struct cmdv *c)
{
	size_t idx[16], n = opt_operands(c, 1, "adinNptu", idx, nitems(idx));
	const char *val;
	const struct word *a = opt_value(c, 'a', NULL, "adinNptu", &val);

	shell_var_evaluated(x);
	for (size_t i = 0; i < n; i++)
		shell_expand_word(x, &c->w[idx[i]]);
	if (a)
		shell_expand_word(x, a);
}

/* compgen -W WORDLIST expands WORDLIST again (its $( ) and ` ` run, even
 * quoted), and compgen -C COMMAND runs COMMAND for the completions. */
static void eval_compgen(struct cctx *x, const struct cmdv *c)
{
	static const char argopts[] = "oAGWFCXPS";

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const char *v;
		size_t j = i;
		const struct word *w = opt_value_at(c, &j, 'W', NULL, argopts, &v);
		if (w) {
			shell_var_evaluated(x);
			shell_expand_word(x, w);
		} else if ((w = opt_value_at(c, &i, 'C', NULL, argopts, &v)) != NULL) {
			eval_script(x, w, v, "compgen -C");
		}
		i = j > i ? j : i;
	}
}

/* fc [-e EDITOR] [-s] [FIRST]: runs command lines from the history again
 * (after an editor, or with `old=new` replaced), lines `history -s` or
 * `history -r FILE` may have put there; -l only lists them. */
static void eval_fc(struct cctx *x, const struct cmdv *c)
{
	if (!opt_short(c, 'l', "e"))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_words(x, c->w, c->n),
		        "fc runs command lines from the history, known only at run time");
}

/* Whether options words [1, n) turn on history expansion: -H in a cluster
 * or -o histexpand (not +H, which turns it off). */
static bool histexpand_on(const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val;
		if (a[0] != '-' || a[1] == '-' || a[1] == '\0')
			break;
		if (strchr(a, 'H'))
			return true;
		if (strchr(a, 'o') && i + 1 < c->n && strcmp(c->w[++i].val, "histexpand") == 0)
			return true;
	}
	return false;
}

static bool has_word(const struct cmdv *c, const char *w)
{
	for (size_t i = 1; i < c->n; i++)
		if (strcmp(c->w[i].val, w) == 0)
			return true;
	return false;
}

/* set -H, set -o histexpand, shopt -s -o histexpand: with the history on
 * (set -o history), a later `!!`, `!:1` or `!name` word is replaced by
 * words of an earlier command line before it runs, which no reading of
 * the text here sees. */
static void eval_histexpand(struct cctx *x, const struct cmdv *c)
{
	if (strcmp(c->w[0].val, "shopt") == 0 ? opt_short(c, 'o', "") && opt_short(c, 's', "") &&
	                                        has_word(c, "histexpand")
	                                      : histexpand_on(c))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_words(x, c->w, c->n),
		        "turns on history expansion: a later `!` word runs earlier command lines");
}

/* unset 'a[SUBSCRIPT]': the subscript of an array is expanded (its $( )
 * runs, quoted or not). */
static void eval_unset(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (strchr(c->w[i].val, '[')) {
			shell_var_evaluated(x);
			shell_expand_word(x, &c->w[i]);
		}
}

/* In name order, for bsearch. */
static const struct evaluator {
	const char *name;
	void (*fn)(struct cctx *x, const struct cmdv *c);
} evaluators[] = {
	{"[", eval_test},         {"compgen", eval_compgen}, {"declare", eval_declare},
	{"export", eval_declare}, {"fc", eval_fc},           {"getopts", eval_assigned},
	{"hash", eval_hash},
	{"let", eval_let},        {"local", eval_declare},   {"mapfile", eval_mapfile},
	{"printf", eval_printf},  {"read", eval_read},       {"readarray", eval_mapfile},
	{"readonly", eval_declare}, {"set", eval_histexpand}, {"shopt", eval_histexpand},
	{"test", eval_test},      {"trap", eval_trap},       {"typeset", eval_declare},
	{"unset", eval_unset},    {"wait", eval_assigned},
};

static int evaluator_cmp(const void *k, const void *e)
{
	return strcmp(k, ((const struct evaluator *)e)->name);
}

void shell_eval_builtin(struct cctx *x, const struct cmdv *c, const char *name)
{
	const struct evaluator *e =
	    bsearch(name, evaluators, nitems(evaluators), sizeof(*evaluators), evaluator_cmp);

	if (e)
		e->fn(x, c);
}

void shell_hash_note(struct cctx *x, const struct word *name, const struct word *pw,
                     const char *path)
{
	const char *known = (pw->flags & (W_DYNAMIC | W_GLOB)) ? NULL : path;

	if (name->flags & (W_DYNAMIC | W_GLOB))
		return;
	for (size_t i = 0; i < x->nhashes; i++) {
		const struct cls_hash *h = &x->hashes[i];
		if (strcmp(h->name, name->val) == 0 &&
		    (h->path == known || (h->path && known && strcmp(h->path, known) == 0)))
			return; /* seen in an earlier reading */
	}
	x->hashes = shell_grow(x->a, x->hashes, x->nhashes, &x->caphashes, sizeof(*x->hashes));
	x->hashes[x->nhashes].name = name->val;
	x->hashes[x->nhashes].path = known;
	x->nhashes++;
}

void shell_alias_note(struct cctx *x, const char *name, size_t n, const char *val)
{
	for (size_t i = 0; i < x->naliases; i++)
		if (strlen(x->aliases[i].name) == n && strncmp(x->aliases[i].name, name, n) == 0 &&
		    strcmp(x->aliases[i].val, val) == 0)
			return; /* seen in an earlier reading */
	x->aliases = shell_grow(x->a, x->aliases, x->naliases, &x->capaliases, sizeof(*x->aliases));
	x->aliases[x->naliases].name = arena_strndup(x->a, name, n);
	x->aliases[x->naliases].val = arena_strndup(x->a, val, strlen(val));
	x->aliases[x->naliases].busy = false;
	x->naliases++;
}

/* `alias k=kubectl` then `k delete ns prod`: the alias's value alone was
 * judged (kubectl, net.fetch) and k was an unknown program, so the
 * command was high where `kubectl delete ns prod` is critical. The
 * arguments are quoted back as the words they were. Every alias counts
 * wherever it was defined (bash expands one only with expand_aliases and
 * on later lines): the strictest reading. */
void shell_alias_run(struct cctx *x, const struct cmdv *c)
{
	const struct word *w0 = &c->w[0];

	if (w0->flags & (W_QUOTED | W_DYNAMIC | W_GLOB))
		return; /* a quoted name is never an alias */
	for (size_t i = 0; i < x->naliases; i++) {
		struct cls_alias *al = &x->aliases[i];
		struct buf b;
		if (al->busy || strcmp(al->name, w0->val) != 0)
			continue;
		buf_init(&b, CLS_MAX_INPUT);
		buf_puts(&b, al->val);
		for (size_t k = 1; k < c->n; k++) {
			buf_puts(&b, " '");
			for (const char *p = c->w[k].val; *p; p++) {
				if (*p == '\'')
					buf_puts(&b, "'\\''");
				else
					buf_append(&b, p, 1);
			}
			buf_puts(&b, "'");
		}
		al->busy = true;
		shell_script_text(x, b.data, b.len, shell_span_words(x, c->w, c->n));
		al->busy = false;
		buf_free(&b);
	}
}

void shell_hash_run(struct cctx *x, const struct cmdv *c, const char *name)
{
	for (size_t i = 0; i < x->nhashes && !x->hashing; i++) {
		struct cmdv h = *c;
		struct word w0;
		if (strcmp(x->hashes[i].name, name) != 0)
			continue;
		if (x->hashes[i].path == NULL) {
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, &c->w[0]),
			        "hash -p made %s run a program known only at run time", name);
			continue;
		}
		w0 = c->w[0];
		w0.val = x->hashes[i].path;
		w0.len = strlen(w0.val);
		w0.verbatim = false;
		h.w = arena_alloc(x->a, c->n * sizeof(*h.w));
		memcpy(h.w, c->w, c->n * sizeof(*h.w));
		h.w[0] = w0;
		x->hashing = true; /* hash -p /bin/ls ls: once, not forever */
		shell_exec_argv(x, &h);
		x->hashing = false;
	}
}
