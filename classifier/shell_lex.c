/*
 * shell_lex.c: POSIX/bash tokenizer. Words are decoded the way the shell
 * would (quotes, backslashes, $'...', concatenation); expansions whose value
 * is unknown mark the word W_DYNAMIC; $( ), ` ` and <( ) bodies are parsed
 * and classified recursively as they are met. Anything it cannot read ends
 * in TOK_ERR with a static message, never a guess.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static void lex_word(struct lexer *lx, struct token *t);
static void lex_procsub(struct lexer *lx, struct token *t);

static void sb_put(struct lexer *lx, const char *p, size_t n)
{
	if (lx->sblen + n + 1 > lx->sbcap) {
		size_t cap = (lx->sblen + n + 1) * 2;
		if (lx->sbheap) {
			lx->sb = xrealloc(lx->sb, cap);
		} else {
			char *h = xmalloc(cap);
			memcpy(h, lx->sb, lx->sblen);
			lx->sb = h;
			lx->sbheap = true;
		}
		lx->sbcap = cap;
	}
	memcpy(lx->sb + lx->sblen, p, n);
	lx->sblen += n;
}

static void sb_putc(struct lexer *lx, char c)
{
	if (lx->sblen + 2 > lx->sbcap) { /* sb_put() grows it */
		sb_put(lx, &c, 1);
		return;
	}
	lx->sb[lx->sblen++] = c; /* most words go a byte at a time: no memcpy() each */
}

static void sb_puts(struct lexer *lx, const char *s)
{
	sb_put(lx, s, strlen(s));
}

void lex_init(struct lexer *lx, struct cctx *x, const char *s, size_t n, size_t pos)
{
	memset(lx, 0, sizeof(*lx));
	lx->x = x;
	lx->s = s;
	lx->n = n;
	lx->pos = pos;
	lx->cmdpos = true;
	lx->sbcap = (n - pos < 512 ? n - pos : 512) + 64; /* then grows on the heap */
	lx->sb = arena_alloc(x->a, lx->sbcap);
}

void lex_fini(struct lexer *lx)
{
	if (lx->sbheap)
		free(lx->sb);
	lx->sb = NULL;
}

static void lex_fail(struct lexer *lx, const char *msg, size_t pos)
{
	if (lx->err == NULL) {
		lx->err = msg;
		lx->errpos = pos;
	}
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_meta(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '(' || c == ')' || c == '<' || c == '>';
}

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* An expansion's value: outside double quotes the shell splits it into
 * fields at the bytes of IFS (the script's own, when it set one), so
 * `f="-rf /"; rm $f` is rm with two arguments. The split points are noted
 * for the parser; the value keeps its bytes for every other reader. */
static void sb_put_split(struct lexer *lx, const char *v, size_t n, const char *ifs)
{
	for (size_t i = 0; *ifs && i < n; i++) {
		if (v[i] == '\0' || strchr(ifs, v[i]) == NULL)
			continue;
		if (lx->nsplit == nitems(lx->split))
			lx->split_over = true;
		else
			lx->split[lx->nsplit++] = (unsigned)(lx->sblen + i);
	}
	sb_put(lx, v, n);
}

static void sb_put_expanded(struct lexer *lx, const char *v, size_t n)
{
	const char *ifs = lx->in_dq ? "" : shell_var_lookup(lx->x, "IFS", 3);

	sb_put_split(lx, v, n, ifs ? ifs : " \t\n");
}

/* $1..$9, $@ and $* in a later reading: the arguments the script gives its
 * functions or itself (shell_var_args). $@ and $* are each argument a field,
 * even inside double quotes ("$*" is one, but more fields are only stricter). */
static bool lex_positional(struct lexer *lx, char c)
{
	const char *v = strchr("123456789@*", c) ? shell_var_lookup(lx->x, &c, 1) : NULL;

	if (v == NULL)
		return false;
	if (c == '@' || c == '*')
		sb_put_split(lx, v, strlen(v), " ");
	else
		sb_put_expanded(lx, v, strlen(v));
	return true;
}

/* The value of a variable airlock knows: HOME, PWD, and in a later
 * reading the script's own literal values; NULL when unknown. */
static const char *lex_var_value(const struct lexer *lx, const char *name, size_t n)
{
	const char *v = shell_var_lookup(lx->x, name, n);

	if (v == NULL && n == 4 && memcmp(name, "HOME", 4) == 0 && lx->x->home[0])
		v = lx->x->home;
	if (v == NULL && n == 3 && memcmp(name, "PWD", 3) == 0 && lx->x->cwd)
		v = lx->x->cwd;
	return v;
}

/* Known variables expand to their value; the rest stay raw and dynamic.
 * In a later reading, the script's own literal values count as known. */
static bool lex_known_var(struct lexer *lx, const char *name, size_t n)
{
	const char *v = lex_var_value(lx, name, n);

	if (v == NULL)
		return false;
	sb_put_expanded(lx, v, strlen(v));
	return true;
}

/* A substitution whose output is known, in a later reading: its output. */
static bool lex_subst_known(struct lexer *lx, const char *body, size_t n)
{
	struct buf out;
	bool known;

	buf_init(&out, 0);
	known = shell_var_subst(lx->x, body, n, &out);
	if (known)
		sb_put_expanded(lx, out.data ? out.data : "", out.len);
	buf_free(&out);
	return known;
}

/* ` ... `: unescapes the body and classifies it as a script. */
static void lex_backtick(struct lexer *lx, unsigned *flags)
{
	size_t start = lx->pos, i = lx->pos + 1;
	struct buf b;

	buf_init(&b, 0);
	for (; i < lx->n && lx->s[i] != '`'; i++) {
		if (lx->s[i] == '\\' && i + 1 < lx->n && strchr("`\\$", lx->s[i + 1]))
			i++;
		buf_append(&b, lx->s + i, 1);
	}
	if (i >= lx->n) {
		lex_fail(lx, "unbalanced backquote", start);
		buf_free(&b);
		lx->pos = lx->n;
		return;
	}
	lx->pos = i + 1;
	shell_script_text(lx->x, b.data ? b.data : "", b.len,
	                  cls_span(lx->x, start, lx->pos - start));
	if (!lex_subst_known(lx, b.data ? b.data : "", b.len)) {
		sb_put(lx, lx->s + start, lx->pos - start);
		*flags |= W_DYNAMIC | W_SUBST;
	}
	buf_free(&b);
}

/* '...' at i where bash's quotes do not stop expansion (an array
 * subscript, arithmetic: `${a['$(cmd)']}`, `$(( '$(cmd)' ))`): its $( )
 * and ` ` run. Returns the offset past the closing quote. */
static size_t lex_quote_runs(struct lexer *lx, size_t i)
{
	const char *q = memchr(lx->s + i + 1, '\'', lx->n - i - 1);
	size_t e = q ? (size_t)(q - lx->s) : lx->n;

	if (memchr(lx->s + i + 1, '$', e - i - 1) || memchr(lx->s + i + 1, '`', e - i - 1))
		lex_expansions(lx, i + 1, e);
	return q ? e + 1 : lx->n;
}

/* $(( ... )): arithmetic; returns false when it is really $( ( ... ) ). */
static bool lex_arith(struct lexer *lx, unsigned *flags)
{
	size_t start = lx->pos, i = lx->pos + 3;
	int depth = 2;

	for (; i < lx->n && depth > 0; i++) {
		char c = lx->s[i];
		if (c == '\'') {
			i = lex_quote_runs(lx, i) - 1;
			continue;
		}
		/* $(cmd) and `cmd` inside: read (and judged) whole, so
		 * $(( $(date +%s) - t )) stays arithmetic */
		if (c == '$' && i + 2 < lx->n && lx->s[i + 1] == '(' && lx->s[i + 2] != '(') {
			long end = shell_parse_subst(lx->x, lx->s, lx->n, i + 2);
			if (end < 0)
				return false;
			i = (size_t)end;
			*flags |= W_SUBST;
			continue;
		}
		if (c == '`') {
			const char *q = memchr(lx->s + i + 1, '`', lx->n - i - 1);
			if (q == NULL)
				return false;
			lex_expansions(lx, i, (size_t)(q - lx->s) + 1);
			i = (size_t)(q - lx->s);
			*flags |= W_SUBST;
			continue;
		}
		if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		if (depth == 1 && c == ')' && (i + 1 >= lx->n || lx->s[i + 1] != ')'))
			return false;
	}
	if (depth != 0) {
		lex_fail(lx, "unterminated $(( ))", start);
		lx->pos = lx->n;
		return true;
	}
	lx->pos = i;
	sb_put(lx, lx->s + start, i - start);
	*flags |= W_DYNAMIC;
	shell_var_evaluated(lx->x);
	return true;
}

/* A $( ) or ` ` at i inside a larger expansion: read (and judged) whole.
 * Returns the offset past it, or 0 when the $( ) cannot be read. */
static size_t lex_inner_subst(struct lexer *lx, size_t i, unsigned *flags)
{
	size_t save = lx->pos, savelen = lx->sblen;

	if (lx->s[i] == '$') {
		long end = shell_parse_subst(lx->x, lx->s, lx->n, i + 2);
		if (end < 0)
			return 0;
		*flags |= W_SUBST;
		return (size_t)end + 1;
	}
	lx->pos = i;
	lex_backtick(lx, flags);
	i = lx->pos;
	lx->pos = save;
	lx->sblen = savelen;
	return i;
}

/* $[ ... ]: bash's old arithmetic, read as $(( )) is (its quotes do not
 * stop $( ), and its names are evaluated). */
static void lex_old_arith(struct lexer *lx, unsigned *flags)
{
	size_t start = lx->pos, i = lx->pos + 2;
	int depth = 1;

	while (i < lx->n && depth > 0) {
		char c = lx->s[i];
		if (c == '\\') {
			i += 2;
		} else if (c == '\'') {
			i = lex_quote_runs(lx, i);
		} else if ((c == '$' && i + 1 < lx->n && lx->s[i + 1] == '(') || c == '`') {
			if ((i = lex_inner_subst(lx, i, flags)) == 0)
				break;
		} else {
			depth += (c == '[') - (c == ']');
			i++;
		}
	}
	if (depth != 0) {
		lex_fail(lx, "unterminated $[ ]", start);
		lx->pos = lx->n;
		return;
	}
	lx->pos = i;
	sb_put(lx, lx->s + start, i - start);
	*flags |= W_DYNAMIC;
	shell_var_evaluated(lx->x);
}

static void lex_subst(struct lexer *lx, unsigned *flags)
{
	size_t start = lx->pos;
	long end = shell_parse_subst(lx->x, lx->s, lx->n, lx->pos + 2);

	if (end < 0) {
		lex_fail(lx, "unterminated or unreadable $( )", start);
		lx->pos = lx->n;
		return;
	}
	lx->pos = (size_t)end + 1;
	if (lex_subst_known(lx, lx->s + start + 2, (size_t)end - start - 2))
		return;
	sb_put(lx, lx->s + start, lx->pos - start);
	*flags |= W_DYNAMIC | W_SUBST;
}

static void lex_dq(struct lexer *lx, unsigned *flags, bool heredoc);

/* ${NAME-WORD} / ${NAME:=WORD} of a NAME the script gives no value: WORD
 * when it is literal, in a later reading (the variable may be unset, and
 * rm -rf "${DIR:-/}" then deletes /); the first reading notes that one is
 * there. NULL otherwise. */
static const char *lex_param_default(const struct lexer *lx, const char *op)
{
	const char *end = lx->s + lx->n, *e = op + 1;

	while (e < end && *e != '}' && !strchr("$`'\"\\{", *e))
		e++;
	if (e >= end || *e != '}' || e == op + 1)
		return NULL; /* no closing brace in the frame, empty, or not literal */
	if (lx->x->reading == 0) {
		lx->x->defaults = true;
		return NULL;
	}
	return arena_strndup(lx->x->a, op + 1, (size_t)(e - op - 1));
}

/* ${NAME:?msg}, ${NAME-word}, ${NAME:=word}...: with NAME set these are
 * NAME's value; returns it when NAME is known, else NULL (or the default
 * word, see lex_param_default). */
static const char *lex_param_set(const struct lexer *lx, size_t name, size_t e)
{
	const char *op = lx->s + e, *v;

	if (e >= lx->n || e == name)
		return NULL;
	if (op[0] == ':' && e + 1 < lx->n)
		op++;
	if (!op[0] || !strchr("?-=", op[0]))
		return NULL;
	v = lex_var_value(lx, lx->s + name, e - name);
	if (v == NULL && op[0] != '?')
		return lex_param_default(lx, op);
	return v && (v[0] || op == lx->s + e) ? v : NULL; /* ${x:-w} of "" is w */
}

/* Whether zsh's parameter flags at s, "(...)", hold e (the value's $( )
 * run) or P (the value is a name). */
static bool zsh_flags_evaluate(const char *s, size_t n)
{
	for (size_t i = 1; i < n && s[i] != ')'; i++)
		if (s[i] == 'e' || s[i] == 'P')
			return true;
	return false;
}

/* The ':' of ${NAME:OFFSET[:LENGTH]} (NAME a variable, a positional or
 * special parameter, or an array element: ${@:2}, ${a[@]:1:n}), whose
 * OFFSET and LENGTH bash evaluates as arithmetic; 0 when it has none
 * (${x:-w} and the like). */
static size_t lex_param_offset(const struct lexer *lx, size_t name)
{
	size_t e = name + (name < lx->n && lx->s[name] == '!');

	if (e < lx->n && strchr("@*#?$!-", lx->s[e]))
		e++;
	else
		while (e < lx->n && is_name_char(lx->s[e]))
			e++;
	if (e < lx->n && lx->s[e] == '[') {
		const char *q = memchr(lx->s + e, ']', lx->n - e);
		e = q ? (size_t)(q - lx->s) + 1 : lx->n;
	}
	if (e + 1 < lx->n && lx->s[e] == ':' && !strchr("-=?+", lx->s[e + 1]))
		return e;
	return 0;
}

/* ${ ... }: HOME and PWD expand; command substitutions inside run. Inside
 * double quotes (and unquoted here-documents) single quotes are literal
 * there, so a $( ) between them runs too. */
static void lex_param(struct lexer *lx, unsigned *flags)
{
	size_t start = lx->pos, i = lx->pos + 2, name = i, sub, off;
	const char *set;
	int depth = 1, bdepth = 0;

	while (i < lx->n && is_name_char(lx->s[i]))
		i++;
	if (i < lx->n && lx->s[i] == '}' && lex_known_var(lx, lx->s + name, i - name)) {
		lx->pos = i + 1;
		return;
	}
	/* ${!x}, ${a[x]}, ${x@P}: the value of x is a name, arithmetic or
	 * a prompt, evaluated; zsh's ${(e)x} and ${(P)x} flags likewise */
	if ((name < lx->n && lx->s[name] == '!') || (i < lx->n && lx->s[i] == '[') ||
	    (i + 1 < lx->n && lx->s[i] == '@' && lx->s[i + 1] == 'P') ||
	    (name < lx->n && lx->s[name] == '(' && zsh_flags_evaluate(lx->s + name, lx->n - name)))
		shell_var_evaluated(lx->x);
	set = lex_param_set(lx, name, i);
	/* the subscript of ${a[...]}, ${#a[...]} or ${!a[...]} */
	sub = name < lx->n && (lx->s[name] == '#' || lx->s[name] == '!') ? name + 1 : name;
	while (sub < lx->n && is_name_char(lx->s[sub]))
		sub++;
	sub = sub < lx->n && lx->s[sub] == '[' ? sub : 0;
	if ((off = lex_param_offset(lx, name)) != 0)
		shell_var_evaluated(lx->x);
	for (i = start + 2; i < lx->n && depth > 0;) {
		char c = lx->s[i];
		if (sub && i == sub)
			bdepth = 1; /* the subscript: quotes there do not stop $( ) */
		else if (bdepth && (c == '[' || c == ']'))
			bdepth += c == '[' ? 1 : -1;
		if (c == '\\') {
			i += 2;
		} else if (c == '\'' && !lx->in_dq && (bdepth || (off && i > off && depth == 1))) {
			i = lex_quote_runs(lx, i);
		} else if (c == '\'' && !lx->in_dq) {
			const char *q = memchr(lx->s + i + 1, '\'', lx->n - i - 1);
			i = q ? (size_t)(q - lx->s) + 1 : lx->n;
		} else if ((c == '$' && i + 1 < lx->n && lx->s[i + 1] == '(') || c == '`') {
			if ((i = lex_inner_subst(lx, i, flags)) == 0)
				break;
		} else {
			depth += (c == '{') - (c == '}');
			i++;
		}
	}
	if (depth != 0) {
		lex_fail(lx, "unterminated ${ }", start);
		lx->pos = lx->n;
		return;
	}
	lx->pos = i;
	if (set) {
		sb_put_expanded(lx, set, strlen(set));
		return;
	}
	sb_put(lx, lx->s + start, i - start);
	*flags |= W_DYNAMIC;
}

/* $'...': ANSI-C quoting. */
static void lex_ansi(struct lexer *lx, unsigned *flags)
{
	static const char from[] = "abeEfnrtv\\'\"?", to[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
	size_t i = lx->pos + 2;

	*flags |= W_QUOTED;
	for (; i < lx->n && lx->s[i] != '\''; i++) {
		const char *k;
		if (lx->s[i] != '\\' || i + 1 >= lx->n) {
			sb_putc(lx, lx->s[i]);
			continue;
		}
		i++;
		if ((k = strchr(from, lx->s[i])) != NULL && lx->s[i]) {
			sb_putc(lx, to[k - from]);
		} else if (lx->s[i] == 'x' && i + 1 < lx->n &&
		           hex_digit((unsigned char)lx->s[i + 1]) >= 0) {
			int v = hex_digit((unsigned char)lx->s[++i]);
			if (i + 1 < lx->n && hex_digit((unsigned char)lx->s[i + 1]) >= 0)
				v = v * 16 + hex_digit((unsigned char)lx->s[++i]);
			sb_putc(lx, (char)v);
		} else if (lx->s[i] >= '0' && lx->s[i] <= '7') {
			int v = 0, k2 = 0;
			for (; k2 < 3 && i < lx->n && lx->s[i] >= '0' && lx->s[i] <= '7'; k2++)
				v = v * 8 + (lx->s[i++] - '0');
			i--;
			sb_putc(lx, (char)v);
		} else {
			/* \u, \c and friends: not modelled, so the value is unknown */
			*flags |= W_DYNAMIC;
			sb_putc(lx, '\\');
			sb_putc(lx, lx->s[i]);
		}
	}
	if (i >= lx->n) {
		lex_fail(lx, "unbalanced $' quote", lx->pos);
		lx->pos = lx->n;
		return;
	}
	lx->pos = i + 1;
}

static void lex_dollar(struct lexer *lx, unsigned *flags, bool in_dq)
{
	const char *s = lx->s;
	size_t p = lx->pos;
	char c = p + 1 < lx->n ? s[p + 1] : 0;

	if (c == '(' && p + 2 < lx->n && s[p + 2] == '(' && lex_arith(lx, flags))
		return;
	if (c == '[') {
		lex_old_arith(lx, flags);
	} else if (c == '(') {
		lex_subst(lx, flags);
	} else if (c == '{') {
		lex_param(lx, flags);
	} else if (is_name_start(c)) {
		size_t e = p + 1;
		while (e < lx->n && is_name_char(s[e]))
			e++;
		if (!lex_known_var(lx, s + p + 1, e - p - 1)) {
			sb_put(lx, s + p, e - p);
			*flags |= W_DYNAMIC;
		}
		lx->pos = e;
	} else if (c && (isdigit((unsigned char)c) || strchr("@*#?$!-", c))) {
		if (!lex_positional(lx, c)) {
			sb_put(lx, s + p, 2);
			*flags |= W_DYNAMIC;
		}
		lx->pos = p + 2;
	} else if (c == '\'' && !in_dq) {
		lex_ansi(lx, flags);
	} else if (c == '"' && !in_dq) {
		lx->pos = p + 1;
		lex_dq(lx, flags, false);
	} else {
		sb_putc(lx, '$');
		lx->pos = p + 1;
	}
}

/* "..." (or a here-document body when heredoc: no closing quote). */
static void lex_dq_body(struct lexer *lx, unsigned *flags, bool heredoc)
{
	size_t start = lx->pos;

	*flags |= W_QUOTED;
	if (!heredoc)
		lx->pos++;
	while (lx->pos < lx->n && lx->err == NULL) {
		char c = lx->s[lx->pos];
		if (c == '"' && !heredoc) {
			lx->pos++;
			return;
		}
		if (c == '\\' && lx->pos + 1 < lx->n &&
		    strchr(heredoc ? "$`\\\n" : "$`\"\\\n", lx->s[lx->pos + 1])) {
			if (lx->s[lx->pos + 1] != '\n')
				sb_putc(lx, lx->s[lx->pos + 1]);
			lx->pos += 2;
		} else if (c == '$') {
			lex_dollar(lx, flags, true);
		} else if (c == '`') {
			lex_backtick(lx, flags);
		} else {
			sb_putc(lx, c);
			lx->pos++;
		}
	}
	if (!heredoc)
		lex_fail(lx, "unbalanced double quote", start);
}

static void lex_dq(struct lexer *lx, unsigned *flags, bool heredoc)
{
	lx->in_dq++;
	lex_dq_body(lx, flags, heredoc);
	lx->in_dq--;
}

/* How far lex_is_brace and lex_is_bracket look ahead; past it they answer
 * "glob", which only ever raises the tier. Keeps lexing linear. */
#define LOOKAHEAD 256

/* Unquoted {a,b} or {1..3}: brace expansion makes the value unknown. */
static bool lex_is_brace(const struct lexer *lx)
{
	for (size_t i = lx->pos + 1; i < lx->n && !is_meta(lx->s[i]); i++) {
		if (i - lx->pos > LOOKAHEAD)
			return true;
		if (lx->s[i] == '}')
			return false;
		if (lx->s[i] == ',' || (lx->s[i] == '.' && i + 1 < lx->n && lx->s[i + 1] == '.'))
			return true;
	}
	return false;
}

/* [ starts a glob only when a ] closes it within the word. */
static bool lex_is_bracket(const struct lexer *lx)
{
	for (size_t i = lx->pos + 1; i < lx->n && !is_meta(lx->s[i]); i++)
		if (lx->s[i] == ']' || i - lx->pos > LOOKAHEAD)
			return true;
	return false;
}

static void lex_tilde(struct lexer *lx, unsigned *flags)
{
	size_t e = lx->pos + 1;

	/* at '{' too: brace expansion comes first (~{a,b} is ~a ~b) */
	while (e < lx->n && !is_meta(lx->s[e]) && !strchr("/:{", lx->s[e]))
		e++;
	if (e == lx->pos + 1 && lx->x->home[0]) {
		sb_puts(lx, lx->x->home);
	} else if (e == lx->pos + 2 && lx->s[lx->pos + 1] == '+') {
		/* ~+ is $PWD where the command runs, which a cd earlier on the
		 * same line changes after this word is read: "." follows it */
		sb_putc(lx, '.');
	} else if (e == lx->pos + 2 && strchr("+-", lx->s[lx->pos + 1])) {
		sb_put(lx, lx->s + lx->pos, 2); /* ~- is $OLDPWD: unknown */
		*flags |= W_DYNAMIC;
	} else if (e - lx->pos == 5 && memcmp(lx->s + lx->pos + 1, "root", 4) == 0) {
		sb_puts(lx, "/root");
	} else if (e > lx->pos + 1) {
		sb_puts(lx, "/home/");
		sb_put(lx, lx->s + lx->pos + 1, e - lx->pos - 1);
	} else {
		sb_putc(lx, '~');
	}
	lx->pos = e;
}

/* One element of an array literal at lx->pos: a word (its $( ) and ` `
 * run) or <( ); false at its ')' or on an error. */
static bool lex_array_elem(struct lexer *lx)
{
	struct token t;
	char c;

	while (lx->pos < lx->n && (is_blank(lx->s[lx->pos]) || lx->s[lx->pos] == '\n'))
		lx->pos++;
	if (lx->pos < lx->n && lx->s[lx->pos] == '#') {
		const char *nl = memchr(lx->s + lx->pos, '\n', lx->n - lx->pos);
		lx->pos = nl ? (size_t)(nl - lx->s) : lx->n;
		return true;
	}
	if (lx->pos >= lx->n || lx->err)
		return false;
	c = lx->s[lx->pos];
	memset(&t, 0, offsetof(struct token, split));
	if ((c == '<' || c == '>') && lx->pos + 1 < lx->n && lx->s[lx->pos + 1] == '(')
		lex_procsub(lx, &t);
	else if (!is_meta(c)) {
		lex_word(lx, &t);
		shell_var_element(lx->x, &t.w); /* a=(.env); cat "${a[0]}" was low */
	} else if (c != ')')
		lex_fail(lx, "unexpected operator in an array assignment", lx->pos);
	return c != ')' && lx->err == NULL;
}

/* a=( ... ): an array assignment. Its elements are words as anywhere
 * else (quotes hold parentheses; substitutions in them run); the value is
 * unknown. */
static void lex_array(struct lexer *lx, unsigned *flags)
{
	size_t start = lx->pos, plen = lx->sblen;
	char *prefix = arena_strndup(lx->x->a, lx->sb, lx->sblen);
	bool cmdpos = lx->cmdpos;

	lx->cmdpos = false;
	for (lx->pos++; lex_array_elem(lx);)
		;
	lx->cmdpos = cmdpos;
	lx->sblen = 0;
	lx->nsplit = 0;
	lx->brace = false;
	sb_put(lx, prefix, plen);
	if (lx->err)
		return;
	if (lx->pos >= lx->n) {
		lex_fail(lx, "unterminated array assignment", start);
		return;
	}
	lx->pos++;
	sb_put(lx, lx->s + start, lx->pos - start);
	*flags |= W_DYNAMIC;
}

static size_t assign_len(const char *s, size_t n)
{
	size_t i = 0;
	if (n == 0 || !is_name_start(s[0]))
		return 0;
	while (i < n && is_name_char(s[i]))
		i++;
	if (i < n && s[i] == '[') { /* NAME[SUBSCRIPT]=value: an array element */
		size_t e = i + 1;
		int paren = 0;
		/* quotes, blanks and $( ) may be in the subscript, as bash reads
		 * it: a[ '$(cmd)' ]=1 is an assignment, and cmd runs */
		while (e < n && s[e] != ']' && s[e] != '\n' &&
		       (paren > 0 || !is_meta(s[e]) || s[e] == ' ' || s[e] == '\t' || s[e] == '(')) {
			const char *q;
			if ((s[e] == '\'' || s[e] == '"') && (q = memchr(s + e + 1, s[e], n - e - 1)))
				e = (size_t)(q - s);
			paren += (s[e] == '(') - (s[e] == ')' && paren > 0);
			e++;
		}
		if (e < n && s[e] == ']')
			i = e + 1;
	}
	if (i + 1 < n && s[i] == '+' && s[i + 1] == '=')
		return i + 2;
	return i < n && s[i] == '=' ? i + 1 : 0;
}

static void lex_single(struct lexer *lx, unsigned *flags)
{
	const char *q = memchr(lx->s + lx->pos + 1, '\'', lx->n - lx->pos - 1);

	*flags |= W_QUOTED;
	if (q == NULL) {
		lex_fail(lx, "unbalanced single quote", lx->pos);
		lx->pos = lx->n;
		return;
	}
	sb_put(lx, lx->s + lx->pos + 1, (size_t)(q - lx->s) - lx->pos - 1);
	lx->pos = (size_t)(q - lx->s) + 1;
}

/* One character of an unquoted word. */
static void lex_word_char(struct lexer *lx, unsigned *flags, size_t start, size_t alen)
{
	char c = lx->s[lx->pos];

	switch (c) {
	case '\\':
		if (lx->pos + 1 < lx->n && lx->s[lx->pos + 1] == '\n') {
			lx->pos += 2;
			return;
		}
		*flags |= W_QUOTED;
		if (lx->pos + 1 < lx->n)
			lx->pos++;
		sb_putc(lx, lx->s[lx->pos++]);
		return;
	case '\'': lex_single(lx, flags); return;
	case '"': lex_dq(lx, flags, false); return;
	case '$': lex_dollar(lx, flags, false); return;
	case '`': lex_backtick(lx, flags); return;
	case '*': case '?': *flags |= W_GLOB; break;
	case '[': if (lex_is_bracket(lx)) *flags |= W_GLOB; break;
	case '{':
		if (lex_is_brace(lx)) {
			*flags |= W_GLOB;
			lx->brace = true;
		}
		break;
	case '~':
		if (lx->pos == start || (alen && lx->pos == start + alen)) {
			lex_tilde(lx, flags);
			return;
		}
		break;
	default: break;
	}
	sb_putc(lx, c);
	lx->pos++;
}

static void lex_verbatim(struct lexer *lx, struct word *w)
{
	const char *raw = lx->s + w->off;

	if (w->flags & W_DYNAMIC)
		return;
	if (w->rawlen == w->len && memcmp(raw, w->val, w->len) == 0) {
		w->verbatim = true;
		w->voff = w->off;
	} else if (w->rawlen == w->len + 2 && (raw[0] == '\'' || raw[0] == '"') &&
	           raw[w->rawlen - 1] == raw[0] && memcmp(raw + 1, w->val, w->len) == 0) {
		w->verbatim = true;
		w->voff = w->off + 1;
	}
}

#define MAX_BRACE 16 /* words one brace expansion makes; past it the word is unknown */

/* The offset after the quoted, escaped or ${ } part that starts at t[i]:
 * braces and commas in it are not brace expansion. */
static size_t brace_skip(const char *t, size_t n, size_t i)
{
	int depth = 0;

	if (t[i] == '\\')
		return i + 2 < n ? i + 2 : n;
	if (t[i] == '\'') {
		const char *q = memchr(t + i + 1, '\'', n - i - 1);
		return q ? (size_t)(q - t) + 1 : n;
	}
	if (t[i] == '"') {
		for (i++; i < n && t[i] != '"'; i++)
			i += t[i] == '\\';
		return i < n ? i + 1 : n;
	}
	if (t[i] != '$' || i + 1 >= n || t[i + 1] != '{')
		return i + 1;
	for (i++; i < n; i++) {
		depth += (t[i] == '{') - (t[i] == '}');
		if (depth == 0)
			return i + 1;
	}
	return n;
}

/* The first brace group {a,b} of t[0..n): its braces (*open, *close) and
 * commas (cut[], at most MAX_BRACE). Returns the number of commas; 0 when
 * there is none; -1 for forms not modelled ({1..3}, too many commas). */
static int brace_group(const char *t, size_t n, size_t *open, size_t *close, size_t *cut)
{
	for (size_t i = 0; i < n; i = brace_skip(t, n, i)) {
		int depth = 0, ncut = 0;
		size_t j = i;
		if (t[i] != '{')
			continue;
		for (; j < n; j = t[j] && strchr("{},", t[j]) ? j + 1 : brace_skip(t, n, j)) {
			depth += (t[j] == '{') - (t[j] == '}');
			if (depth == 1 && t[j] == ',' && ncut == MAX_BRACE)
				return -1;
			if (depth == 1 && t[j] == ',')
				cut[ncut++] = j;
			if (depth == 1 && t[j] == '.' && j + 1 < n && t[j + 1] == '.')
				return -1;
			if (depth == 0)
				break;
		}
		if (j < n && ncut > 0) {
			*open = i;
			*close = j;
			return ncut;
		}
	}
	return 0;
}

/* Brace-expands t[0..n) as the shell does before any other expansion,
 * appending the words to out; false when they are too many or the form
 * is not modelled. */
static bool brace_expand(struct cctx *x, const char *t, size_t n, const char **out,
                         size_t *nout, int depth)
{
	size_t open, close, cut[MAX_BRACE + 2];
	int ncut = brace_group(t, n, &open, &close, cut + 1);

	if (ncut < 0 || depth > 8)
		return false;
	if (ncut == 0) {
		if (*nout == MAX_BRACE)
			return false;
		out[(*nout)++] = arena_strndup(x->a, t, n);
		return true;
	}
	cut[0] = open;
	cut[ncut + 1] = close;
	for (int k = 0; k <= ncut; k++) {
		size_t alen = cut[k + 1] - cut[k] - 1, len = open + alen + (n - close - 1);
		char *w = arena_alloc(x->a, len + 1);
		memcpy(w, t, open);
		memcpy(w + open, t + cut[k] + 1, alen);
		memcpy(w + open + alen, t + close + 1, n - close - 1);
		if (!brace_expand(x, w, len, out, nout, depth + 1))
			return false;
	}
	return true;
}

/* rm -rf {~,x} is rm -rf ~ x: each word of the expansion is read as a
 * word of its own (tilde and all); empty unquoted ones are dropped, as the
 * shell drops them. When it cannot, the word stays unknown (W_GLOB). */
static void lex_brace_words(struct lexer *lx, struct token *t)
{
	const char *alt[MAX_BRACE];
	size_t nalt = 0, n = 0;
	struct word *w;

	if (!brace_expand(lx->x, lx->s + t->w.off, t->w.rawlen, alt, &nalt, 0))
		return;
	w = arena_alloc(lx->x->a, (nalt ? nalt : 1) * sizeof(*w));
	for (size_t i = 0; i < nalt; i++) {
		struct lexer sub;
		struct token st;
		lex_init(&sub, lx->x, alt[i], strlen(alt[i]), 0);
		sub.cmdpos = false;
		sub.no_brace = true;
		memset(&st, 0, offsetof(struct token, split));
		lex_word(&sub, &st);
		lex_fini(&sub);
		if (st.kind != TOK_WORD || sub.pos != sub.n)
			return;
		if (st.w.len == 0 && !(st.w.flags & W_QUOTED))
			continue;
		w[n] = st.w;
		w[n].off = t->w.off;
		w[n].rawlen = t->w.rawlen;
		w[n++].verbatim = false;
	}
	t->alts = w;
	t->nalts = n;
}

/* Builtins whose NAME=value arguments bash reads as assignments: arrays
 * a=( ... ), a tilde after '=', no field splitting. */
static bool is_decl(const char *w)
{
	static const char *const decl[] = {"declare", "export", "local", "readonly", "typeset"};

	for (size_t i = 0; i < nitems(decl); i++)
		if (w[0] == decl[i][0] && strcmp(w, decl[i]) == 0)
			return true;
	return false;
}

static void lex_word(struct lexer *lx, struct token *t)
{
	size_t start = lx->pos, alen = 0;
	unsigned flags = 0;

	lx->sblen = 0;
	lx->nsplit = 0;
	lx->split_over = false;
	lx->brace = false;
	if (lx->cmdpos || lx->decl)
		alen = assign_len(lx->s + start, lx->n - start);
	/* NAME['$(cmd)']=v: the subscript is arithmetic, its quotes do not
	 * stop the $( ) */
	for (size_t k = start; alen && k < start + alen; k++) {
		const char *q;
		if (lx->s[k] == '"' && (q = memchr(lx->s + k + 1, '"', start + alen - k - 1)))
			k = (size_t)(q - lx->s);
		else if (lx->s[k] == '\'')
			k = lex_quote_runs(lx, k) - 1;
	}
	while (lx->pos < lx->n && lx->err == NULL) {
		if (is_meta(lx->s[lx->pos]) && lx->pos >= start + alen) {
			if (alen && lx->s[lx->pos] == '(' && lx->pos == start + alen) {
				lex_array(lx, &flags);
				continue;
			}
			break;
		}
		lex_word_char(lx, &flags, start, alen);
	}
	if (alen)
		flags |= W_ASSIGN; /* assignments are not split */
	else if (lx->split_over)
		flags |= W_DYNAMIC;
	else
		memcpy(t->split, lx->split, (t->nsplit = lx->nsplit) * sizeof(*t->split));
	t->kind = lx->err ? TOK_ERR : TOK_WORD;
	t->w.val = arena_strndup(lx->x->a, lx->sb, lx->sblen);
	t->w.len = lx->sblen;
	t->w.off = start;
	t->w.rawlen = lx->pos - start;
	t->w.flags = flags;
	t->w.verbatim = false;
	lex_verbatim(lx, &t->w);
	if (lx->cmdpos && !alen)
		lx->decl = flags == 0 && is_decl(t->w.val);
	if (!alen)
		lx->cmdpos = false;
	if (lx->brace && !lx->no_brace && !alen && !(flags & W_SUBST) && t->kind == TOK_WORD)
		lex_brace_words(lx, t);
}

/* <( ... ) and >( ... ): the body runs; the word is a /dev/fd path. */
static void lex_procsub(struct lexer *lx, struct token *t)
{
	size_t start = lx->pos;
	long end;

	lx->x->procsub_out = lx->s[start] == '>';
	end = shell_parse_subst(lx->x, lx->s, lx->n, lx->pos + 2);
	lx->x->procsub_out = false;
	memset(&t->w, 0, sizeof(t->w));
	if (end < 0) {
		lex_fail(lx, "unterminated process substitution", start);
		t->kind = TOK_ERR;
		return;
	}
	lx->pos = (size_t)end + 1;
	t->kind = TOK_WORD;
	t->w.val = "/dev/fd/63";
	t->w.len = 10;
	t->w.off = start;
	t->w.rawlen = lx->pos - start;
	t->w.flags = W_PROCSUB | W_SUBST;
	lx->cmdpos = false;
}

/* Operators, longest first. */
static const struct {
	const char *text;
	enum op op;
} ops[] = {
	{";;&", OP_DSEMI}, {";;", OP_DSEMI}, {";&", OP_DSEMI}, {"&&", OP_AND},
	{"||", OP_OR},     {"|&", OP_PIPE_ERR}, {";", OP_SEMI}, {"&", OP_BG},
	{"|", OP_PIPE},    {"\n", OP_NL},       {"(", OP_LPAREN}, {")", OP_RPAREN},
};

/* Redirection operators, longest first. */
static const struct {
	const char *text;
	enum redir_kind kind;
} redirs[] = {
	{"&>>", R_APPEND_ALL}, {"<<<", R_HERESTR}, {"<<-", R_HEREDOC}, {"&>", R_OUT_ALL},
	{"<<", R_HEREDOC},     {"<&", R_DUP_IN},   {"<>", R_RW},       {">>", R_APPEND},
	{">&", R_DUP_OUT},     {">|", R_CLOBBER},  {"<", R_IN},        {">", R_OUT},
};

void lex_expansions(struct lexer *lx, size_t from, size_t to)
{
	size_t n = lx->n, pos = lx->pos, savelen = lx->sblen;
	unsigned fl = 0;

	lx->n = to;
	lx->pos = from;
	lex_dq(lx, &fl, true);
	lx->n = n;
	lx->pos = pos;
	lx->sblen = savelen;
}

/* Reads the bodies of pending here-documents after a newline at lx->pos. */
static void lex_heredocs(struct lexer *lx)
{
	for (int k = 0; k < lx->npending && lx->err == NULL; k++) {
		struct redir *r = lx->pending[k];
		size_t dl = r->target.len, p = lx->pos, body = p;
		bool done = false;
		struct buf b;

		buf_init(&b, 0);
		while (p < lx->n && !done) {
			const char *nl = memchr(lx->s + p, '\n', lx->n - p);
			size_t e = nl ? (size_t)(nl - lx->s) : lx->n, ls = p;
			if (r->strip_tabs)
				while (ls < e && lx->s[ls] == '\t')
					ls++;
			if (e - ls == dl && memcmp(lx->s + ls, r->target.val, dl) == 0)
				done = true;
			else
				buf_append(&b, lx->s + ls, e - ls + (nl != NULL));
			p = nl ? e + 1 : e;
		}
		if (!done) {
			lex_fail(lx, "here-document without its end line", r->off);
			buf_free(&b);
			return;
		}
		r->body = arena_strndup(lx->x->a, b.data ? b.data : "", b.len);
		r->bodylen = b.len;
		buf_free(&b);
		if (!r->quoted_delim)
			lex_expansions(lx, body, p); /* its $( ) and ` ` run */
		lx->pos = p;
	}
	lx->npending = 0;
}

static bool lex_redir(struct lexer *lx, struct token *t)
{
	size_t p = lx->pos, i;
	int fd = -1;
	struct redir *r;

	while (p < lx->n && isdigit((unsigned char)lx->s[p]) && p - lx->pos < 4)
		p++;
	if (p > lx->pos) {
		if (p >= lx->n || (lx->s[p] != '<' && lx->s[p] != '>'))
			return false;
		fd = (int)strtol(lx->s + lx->pos, NULL, 10);
	}
	for (i = 0; i < nitems(redirs); i++)
		if (strncmp(lx->s + p, redirs[i].text, strlen(redirs[i].text)) == 0)
			break;
	if (i == nitems(redirs))
		return false;
	r = arena_alloc(lx->x->a, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->kind = redirs[i].kind;
	r->fd = fd;
	r->off = lx->pos;
	r->strip_tabs = strcmp(redirs[i].text, "<<-") == 0;
	lx->pos = p + strlen(redirs[i].text);
	while (lx->pos < lx->n && is_blank(lx->s[lx->pos]))
		lx->pos++;
	/* done < <(cmd), exec > >(tee log): a file redirection (the kinds
	 * before R_DUP_IN) onto a process substitution, whose body runs */
	bool procsub = r->kind < R_DUP_IN && lx->pos + 1 < lx->n &&
	               (lx->s[lx->pos] == '<' || lx->s[lx->pos] == '>') && lx->s[lx->pos + 1] == '(';
	if (!procsub && (lx->pos >= lx->n || is_meta(lx->s[lx->pos]))) {
		lex_fail(lx, "redirection without a target", r->off);
		t->kind = TOK_ERR;
		return true;
	}
	{
		bool save = lx->cmdpos;
		lx->cmdpos = false;
		if (procsub)
			lex_procsub(lx, t);
		else
			lex_word(lx, t);
		lx->cmdpos = save;
	}
	r->target = t->w;
	r->quoted_delim = (t->w.flags & W_QUOTED) != 0;
	if (r->kind == R_HEREDOC) {
		if (lx->npending == (int)nitems(lx->pending))
			lex_fail(lx, "too many here-documents on one line", r->off);
		else
			lx->pending[lx->npending++] = r;
	}
	t->kind = lx->err ? TOK_ERR : TOK_REDIR;
	t->r = r;
	t->off = r->off;
	return true;
}

static bool lex_op(struct lexer *lx, struct token *t)
{
	for (size_t i = 0; i < nitems(ops); i++) {
		size_t l = strlen(ops[i].text);
		if (strncmp(lx->s + lx->pos, ops[i].text, l) != 0)
			continue;
		t->kind = TOK_OP;
		t->op = ops[i].op;
		t->off = lx->pos;
		lx->pos += l;
		lx->decl = false;
		if (t->op == OP_NL && lx->npending)
			lex_heredocs(lx);
		if (t->op != OP_RPAREN)
			lx->cmdpos = true;
		if (lx->err)
			t->kind = TOK_ERR;
		return true;
	}
	return false;
}

void lex_next(struct lexer *lx, struct token *t)
{
	/* split[] is read only below nsplit: clearing it would cost every token */
	memset(t, 0, offsetof(struct token, split));
	t->nsplit = 0;
	for (;;) {
		while (lx->pos < lx->n && is_blank(lx->s[lx->pos]))
			lx->pos++;
		if (lx->pos + 1 < lx->n && lx->s[lx->pos] == '\\' && lx->s[lx->pos + 1] == '\n') {
			lx->pos += 2;
			continue;
		}
		if (lx->pos < lx->n && lx->s[lx->pos] == '#') {
			const char *nl = memchr(lx->s + lx->pos, '\n', lx->n - lx->pos);
			lx->pos = nl ? (size_t)(nl - lx->s) : lx->n;
			continue;
		}
		break;
	}
	t->off = lx->pos;
	if (lx->err) {
		t->kind = TOK_ERR;
		return;
	}
	if (lx->pos >= lx->n) {
		if (lx->npending)
			lex_fail(lx, "here-document without its end line", lx->pending[0]->off);
		t->kind = lx->err ? TOK_ERR : TOK_EOF;
		return;
	}
	if ((lx->s[lx->pos] == '<' || lx->s[lx->pos] == '>') && lx->pos + 1 < lx->n &&
	    lx->s[lx->pos + 1] == '(') {
		lex_procsub(lx, t);
		return;
	}
	{
		char c = lx->s[lx->pos];
		bool maybe_redir = c == '<' || c == '>' || c == '&' ||
		                   (c >= '0' && c <= '9' && lx->pos + 1 < lx->n);
		if (maybe_redir && lex_redir(lx, t))
			return;
		if (strchr(";&|()\n", c) && c && lex_op(lx, t))
			return;
	}
	lex_word(lx, t);
}

size_t lex_fields(struct cctx *x, const struct token *t, struct word **out)
{
	struct word *f;
	size_t n = 0, from = 0;

	if (t->alts) {
		*out = t->alts;
		return t->nalts;
	}
	if (t->nsplit == 0) {
		*out = (struct word *)&t->w;
		return 1;
	}
	f = arena_alloc(x->a, (t->nsplit + 1) * sizeof(*f));
	for (size_t i = 0; i <= t->nsplit; i++) {
		size_t to = i < t->nsplit && t->split[i] < t->w.len ? t->split[i] : t->w.len;
		if (to > from) { /* runs of IFS bytes make no empty fields */
			f[n] = t->w;
			f[n].val = arena_strndup(x->a, t->w.val + from, to - from);
			f[n].len = to - from;
			f[n].verbatim = false;
			n++;
		}
		if (to == t->w.len)
			break;
		from = to + 1;
	}
	*out = f;
	return n;
}
