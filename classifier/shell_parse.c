/*
 * shell_parse.c: tokens -> simple commands, through pipelines, lists,
 * subshells, groups, if/while/until/for/case, functions and [[ ]].
 * Commands are classified a line at a time, after the line's here-document
 * bodies are read. Unbalanced structure or syntax it does not model fails
 * closed with parse.uncertain (high), and what was read is still judged.
 */
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

struct parser {
	struct lexer lx;
	struct cctx *x;
	char stack[64];
	int sp;
	bool subst;       /* ends at an unmatched ')' */
	bool case_pat;    /* reading case patterns up to ')' */
	struct scmd *cur, *pipe_from;
	struct scmd **q;  /* commands of the current line */
	size_t nq, capq;
	/* the function whose body is being read: a call of it there is a
	 * self call (a fork bomb when piped or in the background) */
	const char *defining;
	int def_sp;    /* stack depth outside its body */
	bool def_open; /* its body has been entered */
	const char *outer_func; /* x->in_func when this parse began (eval, $( )) */
	bool in_pipe;           /* a >( ) body: its commands read a pipe */
};

enum step { STEP_GO, STEP_DONE, STEP_ERR };

static struct scmd *cmd_new(struct parser *p, size_t off)
{
	struct scmd *c = arena_alloc(p->x->a, sizeof(*c));
	memset(c, 0, sizeof(*c));
	c->off = c->end = off;
	return c;
}

static struct scmd *cur_cmd(struct parser *p, size_t off)
{
	if (p->cur == NULL) {
		p->cur = cmd_new(p, off);
		p->cur->pipe_from = p->pipe_from;
		p->pipe_from = NULL;
	}
	return p->cur;
}

void *shell_grow(struct arena *a, void *old, size_t n, size_t *cap, size_t size)
{
	void *nw;
	if (n < *cap)
		return old;
	*cap = *cap ? *cap * 2 : 8;
	nw = arena_alloc(a, *cap * size);
	if (n)
		memcpy(nw, old, n * size);
	return nw;
}

static void add_word(struct parser *p, const struct token *t)
{
	struct scmd *c = cur_cmd(p, t->w.off);
	struct word *f;
	size_t n = lex_fields(p->x, t, &f);

	for (size_t i = 0; i < n; i++) {
		c->w = shell_grow(p->x->a, c->w, c->nw, &c->capw, sizeof(*c->w));
		c->w[c->nw++] = f[i];
	}
	c->end = t->w.off + t->w.rawlen;
}

static void add_redir(struct parser *p, const struct token *t)
{
	struct scmd *c = cur_cmd(p, t->off);
	c->r = shell_grow(p->x->a, c->r, c->nr, &c->capr, sizeof(*c->r));
	c->r[c->nr++] = t->r;
	if (t->r->target.off + t->r->target.rawlen > c->end)
		c->end = t->r->target.off + t->r->target.rawlen;
}

static void end_cmd(struct parser *p)
{
	struct scmd *c = p->cur;
	p->cur = NULL;
	if (c == NULL || (c->nw == 0 && c->nr == 0))
		return;
	c->func = p->x->in_func;
	c->in_pipe = p->in_pipe && c->pipe_from == NULL;
	p->q = shell_grow(p->x->a, p->q, p->nq, &p->capq, sizeof(*p->q));
	p->q[p->nq++] = c;
}

/* The function whose body the next command is in: this parse's own
 * definition, else the one whose body holds this whole parse. */
static const char *cur_func(const struct parser *p)
{
	return p->defining && p->def_open ? p->defining : p->outer_func;
}

static void flush(struct parser *p)
{
	for (size_t i = 0; i < p->nq; i++)
		shell_exec_command(p->x, p->q[i]);
	p->nq = 0;
}

static void fail(struct parser *p, const char *msg, size_t pos)
{
	size_t len = pos < p->lx.n ? p->lx.n - pos : 0;
	cls_add(p->x, TIER_HIGH, "parse.uncertain", cls_span(p->x, pos, len),
	        "cannot read the shell command with certainty: %s", msg);
}

static bool push(struct parser *p, char k, size_t off)
{
	if (p->sp == (int)sizeof(p->stack)) {
		fail(p, "nesting too deep", off);
		return false;
	}
	p->stack[p->sp++] = k;
	if (p->defining && p->sp > p->def_sp)
		p->def_open = true;
	return true;
}

/* After a close: the function's body ends where its stack depth returns. */
static void body_closed(struct parser *p)
{
	if (p->defining && p->def_open && p->sp <= p->def_sp) {
		p->defining = NULL;
		p->def_open = false;
	}
}

static bool pop(struct parser *p, char k, const char *word, size_t off)
{
	if (p->sp == 0 || p->stack[p->sp - 1] != k) {
		p->lx.err = NULL;
		fail(p, word, off);
		return false;
	}
	p->sp--;
	body_closed(p);
	return true;
}

/* The offset just past the ')' matching the '(' at s[i] (quotes hold
 * parentheses), or 0 when there is none. *dbl: it closes with "))" right
 * after its inner group closes, as (( ... )) must. */
static size_t arith_end(const char *s, size_t n, size_t i, bool *dbl)
{
	int depth = 0;
	size_t inner = 0;

	for (; i < n; i++) {
		char c = s[i];
		if (c == '\\') {
			i++;
		} else if (c == '\'' || c == '"') {
			const char *q = memchr(s + i + 1, c, n - i - 1);
			if (q == NULL)
				return 0;
			i = (size_t)(q - s);
		} else if (c == '(' || c == ')') {
			depth += c == '(' ? 1 : -1;
			if (depth == 1 && c == ')')
				inner = i;
			if (depth == 0) {
				*dbl = inner + 1 == i;
				return i + 1;
			}
		}
	}
	return 0;
}

/* (( ... )) at lx.pos: its $( ), ` ` and ${ } run. When it does not close
 * with "))" bash reads it as two nested subshells ((rm -rf ~) ), and so
 * does this when subshell: the '(' are then pushed as groups. */
static enum step parse_arith(struct parser *p, size_t off, bool subshell)
{
	bool dbl = false;
	size_t end = arith_end(p->lx.s, p->lx.n, off, &dbl);

	if (end == 0) {
		fail(p, "unterminated (( ))", off);
		return STEP_ERR;
	}
	if (!dbl && subshell) {
		p->lx.pos = off + 1;
		return push(p, '(', off) ? STEP_GO : STEP_ERR;
	}
	shell_var_evaluated(p->x);
	lex_expansions(&p->lx, off + 2, end - 2);
	p->lx.pos = end;
	return STEP_GO;
}

bool shell_is_function(const struct cctx *x, const char *name)
{
	for (size_t i = 0; i < x->nfuncs; i++)
		if (strcmp(x->funcs[i], name) == 0)
			return true;
	return false;
}

/* The list grows (input is capped): a fixed table that drops names would
 * turn a later fork bomb into an unknown program. */
static void add_function(struct cctx *x, const struct word *w)
{
	if (w->flags & (W_DYNAMIC | W_GLOB) || shell_is_function(x, w->val))
		return; /* a later reading defines it again */
	x->funcs = shell_grow(x->a, x->funcs, x->nfuncs, &x->capfuncs, sizeof(*x->funcs));
	x->funcs[x->nfuncs++] = w->val;
}

/* Starts reading the body of the function named w. */
static void define(struct parser *p, const struct word *w)
{
	p->defining = w->val;
	p->def_sp = p->sp;
	p->def_open = false;
}

static void skip_blanks(struct parser *p)
{
	while (p->lx.pos < p->lx.n && (p->lx.s[p->lx.pos] == ' ' || p->lx.s[p->lx.pos] == '\t'))
		p->lx.pos++;
}

/* for NAME [in WORDS] ; / for (( ... )) */
static enum step parse_for(struct parser *p, size_t off)
{
	struct token t;

	if (!push(p, 'w', off))
		return STEP_ERR;
	skip_blanks(p);
	if (p->lx.pos + 1 < p->lx.n && p->lx.s[p->lx.pos] == '(' && p->lx.s[p->lx.pos + 1] == '(')
		return parse_arith(p, p->lx.pos, false);
	struct word name;

	p->lx.cmdpos = false;
	lex_next(&p->lx, &t);
	if (t.kind != TOK_WORD) {
		fail(p, "for without a variable name", off);
		return STEP_ERR;
	}
	name = t.w;
	lex_next(&p->lx, &t);
	if (t.kind == TOK_WORD && strcmp(t.w.val, "in") == 0) {
		for (lex_next(&p->lx, &t); t.kind == TOK_WORD; lex_next(&p->lx, &t)) {
			struct word *f;
			size_t n = lex_fields(p->x, &t, &f);
			for (size_t i = 0; i < n; i++)
				shell_var_value(p->x, &name, &f[i]);
		}
	}
	if (t.kind != TOK_OP || (t.op != OP_SEMI && t.op != OP_NL)) {
		fail(p, "for loop header not understood", t.off);
		return STEP_ERR;
	}
	p->lx.cmdpos = true;
	return STEP_GO;
}

static enum step parse_case(struct parser *p, size_t off)
{
	struct token t;

	if (!push(p, 'c', off))
		return STEP_ERR;
	p->lx.cmdpos = false;
	lex_next(&p->lx, &t);
	if (t.kind == TOK_WORD)
		lex_next(&p->lx, &t);
	if (t.kind != TOK_WORD || strcmp(t.w.val, "in") != 0) {
		fail(p, "case without 'in'", off);
		return STEP_ERR;
	}
	p->case_pat = true;
	return STEP_GO;
}

static bool is_arith_op(const struct token *t)
{
	static const char *const ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"};

	for (size_t i = 0; t->kind == TOK_WORD && !(t->w.flags & W_QUOTED) && i < nitems(ops); i++)
		if (strcmp(t->w.val, ops[i]) == 0)
			return true;
	return false;
}

/* [[ ... ]]: a test; its words are data (substitutions already ran),
 * except the operands of -eq and the like, which bash evaluates as
 * arithmetic, and the name after -v, whose subscript it evaluates: their
 * $( ) run even from quoted text. */
static enum step parse_test(struct parser *p, size_t off)
{
	struct token t;
	struct word prev = {0};
	bool arith = false;

	for (;;) {
		p->lx.cmdpos = false;
		lex_next(&p->lx, &t);
		if (t.kind == TOK_EOF || t.kind == TOK_ERR) {
			fail(p, t.kind == TOK_ERR ? p->lx.err : "[[ without ]]", off);
			return STEP_ERR;
		}
		if (t.kind == TOK_WORD && strcmp(t.w.val, "]]") == 0 && !(t.w.flags & W_QUOTED))
			return STEP_GO;
		if (is_arith_op(&t)) {
			shell_var_evaluated(p->x);
			if (prev.val)
				shell_expand_word(p->x, &prev);
			arith = true;
		} else if (t.kind == TOK_WORD && !(t.w.flags & W_QUOTED) &&
		           strcmp(t.w.val, "-v") == 0) {
			shell_var_evaluated(p->x); /* [[ -v 'a[$(cmd)]' ]] */
			arith = true;
		} else if (t.kind == TOK_WORD && arith) {
			shell_expand_word(p->x, &t.w);
			arith = false;
		}
		prev = t.kind == TOK_WORD ? t.w : (struct word){0};
	}
}

static enum step parse_function(struct parser *p, size_t off)
{
	struct token t;

	p->lx.cmdpos = false;
	lex_next(&p->lx, &t);
	if (t.kind != TOK_WORD) {
		fail(p, "function without a name", off);
		return STEP_ERR;
	}
	add_function(p->x, &t.w);
	define(p, &t.w);
	skip_blanks(p);
	if (p->lx.pos + 1 < p->lx.n && p->lx.s[p->lx.pos] == '(' && p->lx.s[p->lx.pos + 1] == ')')
		p->lx.pos += 2;
	p->lx.cmdpos = true;
	return STEP_GO;
}

static const struct reserved {
	const char *word;
	char push, pop, need; /* stack effects; need: top must be this */
} reserved[] = {
	{"if", 'i', 0, 0},    {"then", 0, 0, 'i'},  {"elif", 0, 0, 'i'}, {"else", 0, 0, 'i'},
	{"fi", 0, 'i', 0},    {"while", 'w', 0, 0}, {"until", 'w', 0, 0}, {"do", 0, 0, 'w'},
	{"done", 0, 'w', 0},  {"{", '{', 0, 0},     {"}", 0, '{', 0},    {"!", 0, 0, 0},
	{"esac", 0, 'c', 0},
};

/* A reserved word in command position; returns STEP_GO when not one. */
static enum step parse_reserved(struct parser *p, const struct token *t, bool *used)
{
	const char *w = t->w.val;

	/* each reserved word is short and starts with one of these: most
	 * command names are ruled out before a strcmp() */
	if (w[0] == '\0' || strchr("fsc[itewud{}!", w[0]) == NULL || strnlen(w, 9) > 8) {
		*used = false;
		return STEP_GO;
	}
	*used = true;
	if (strcmp(w, "for") == 0 || strcmp(w, "select") == 0)
		return parse_for(p, t->off);
	if (strcmp(w, "case") == 0)
		return parse_case(p, t->off);
	if (strcmp(w, "[[") == 0)
		return parse_test(p, t->off);
	if (strcmp(w, "function") == 0)
		return parse_function(p, t->off);
	for (size_t i = 0; i < nitems(reserved); i++) {
		const struct reserved *r = &reserved[i];
		if (r->word[0] != w[0] || strcmp(r->word, w) != 0)
			continue;
		p->lx.cmdpos = true;
		if (r->need && (p->sp == 0 || p->stack[p->sp - 1] != r->need)) {
			fail(p, "a reserved word out of place", t->off);
			return STEP_ERR;
		}
		if (r->pop && !pop(p, r->pop, "a closing word without its opening", t->off))
			return STEP_ERR;
		if (r->push && !push(p, r->push, t->off))
			return STEP_ERR;
		return STEP_GO;
	}
	*used = false;
	return STEP_GO;
}

/* Tokens of a case pattern up to its ')'. */
static enum step parse_case_pattern(struct parser *p, const struct token *t)
{
	if (t->kind == TOK_OP && t->op == OP_RPAREN) {
		p->case_pat = false;
		p->lx.cmdpos = true;
		return STEP_GO;
	}
	if (t->kind == TOK_WORD && strcmp(t->w.val, "esac") == 0) {
		p->case_pat = false;
		return pop(p, 'c', "esac without case", t->off) ? STEP_GO : STEP_ERR;
	}
	if (t->kind == TOK_WORD || (t->kind == TOK_OP && (t->op == OP_NL || t->op == OP_PIPE ||
	                                                  t->op == OP_LPAREN)))
		return STEP_GO;
	fail(p, "case pattern not understood", t->off);
	return STEP_ERR;
}

static enum step parse_lparen(struct parser *p, const struct token *t)
{
	struct token n;

	if (p->cur && p->cur->nw == 1 && p->cur->nr == 0) {
		/* NAME ( ) BODY: a definition; the body is judged as if it ran */
		lex_next(&p->lx, &n);
		if (n.kind != TOK_OP || n.op != OP_RPAREN) {
			fail(p, "unexpected '('", t->off);
			return STEP_ERR;
		}
		add_function(p->x, &p->cur->w[0]);
		define(p, &p->cur->w[0]);
		p->cur = NULL;
		p->lx.cmdpos = true;
		return STEP_GO;
	}
	if (p->cur) {
		fail(p, "unexpected '('", t->off);
		return STEP_ERR;
	}
	if (t->off + 1 < p->lx.n && p->lx.s[t->off + 1] == '(')
		return parse_arith(p, t->off, true);
	return push(p, '(', t->off) ? STEP_GO : STEP_ERR;
}

static enum step parse_op(struct parser *p, const struct token *t)
{
	switch (t->op) {
	case OP_PIPE:
	case OP_PIPE_ERR: {
		struct scmd *c = p->cur ? p->cur : cmd_new(p, t->off);
		c->pipe_to = true;
		end_cmd(p);
		p->pipe_from = c;
		return STEP_GO;
	}
	case OP_LPAREN:
		return parse_lparen(p, t);
	case OP_RPAREN:
		end_cmd(p);
		p->pipe_from = NULL;
		if (p->sp > 0 && p->stack[p->sp - 1] == '(') {
			p->sp--;
			body_closed(p);
			return STEP_GO;
		}
		if (p->subst && p->sp == 0)
			return STEP_DONE;
		fail(p, "unbalanced ')'", t->off);
		return STEP_ERR;
	case OP_DSEMI:
		end_cmd(p);
		p->pipe_from = NULL;
		if (p->sp == 0 || p->stack[p->sp - 1] != 'c') {
			fail(p, "';;' outside case", t->off);
			return STEP_ERR;
		}
		p->case_pat = true;
		return STEP_GO;
	case OP_NL:
		end_cmd(p);
		p->pipe_from = NULL;
		flush(p);
		return STEP_GO;
	case OP_BG:
		/* the command just ended, and the pipeline it closes, run apart */
		if (p->cur)
			p->cur->bg = true;
		else if (p->nq)
			p->q[p->nq - 1]->bg = true;
		end_cmd(p);
		p->pipe_from = NULL;
		return STEP_GO;
	case OP_SEMI:
	case OP_AND:
	case OP_OR:
		end_cmd(p);
		p->pipe_from = NULL;
		return STEP_GO;
	}
	return STEP_ERR; /* fail safe */
}

/* The command so far is bash's `time` keyword (with -p) and nothing else. */
static bool after_time(const struct parser *p)
{
	const struct scmd *c = p->cur;

	return c && c->nr == 0 && (c->nw == 1 || (c->nw == 2 && strcmp(c->w[1].val, "-p") == 0)) &&
	       c->w[0].flags == 0 && strcmp(c->w[0].val, "time") == 0;
}

/* coproc [NAME] before a compound command ({, (, while, if, ...): bash
 * runs the compound in the background, and the prefix is no command of
 * its own, so it is set aside. Before a simple command coproc is a
 * wrapper (shell_unwrap.c) and NAME the program. */
static void coproc_compound(struct parser *p, const struct token *t)
{
	static const char *const opens[] = {"{", "while", "until", "if", "for", "select", "case", "[["};
	struct scmd *c = p->cur;
	bool open = t->kind == TOK_OP && t->op == OP_LPAREN;

	if (c == NULL || c->nr || (c->nw != 1 && c->nw != 2) || c->w[0].flags ||
	    strcmp(c->w[0].val, "coproc") != 0 || (c->nw == 2 && c->w[1].flags))
		return;
	for (size_t k = 0; t->kind == TOK_WORD && t->w.flags == 0 && k < nitems(opens); k++)
		open |= strcmp(t->w.val, opens[k]) == 0;
	if (!open)
		return;
	p->pipe_from = c->pipe_from;
	p->cur = NULL;
}

static enum step parse_token(struct parser *p, const struct token *t)
{
	bool used = false;
	enum step s;

	if (p->case_pat)
		return parse_case_pattern(p, t);
	coproc_compound(p, t);
	switch (t->kind) {
	case TOK_WORD:
		if (after_time(p) && t->w.flags == 0 && strcmp(t->w.val, "!") == 0)
			return STEP_GO; /* time ! CMD: the pipeline is negated, CMD runs */
		if ((p->cur == NULL || p->cur->nw == 0) && t->w.flags == 0) {
			s = parse_reserved(p, t, &used);
			if (used || s != STEP_GO)
				return s;
		}
		add_word(p, t);
		return STEP_GO;
	case TOK_REDIR:
		add_redir(p, t);
		return STEP_GO;
	case TOK_OP:
		return parse_op(p, t);
	case TOK_ERR:
		fail(p, p->lx.err ? p->lx.err : "unreadable input", p->lx.errpos);
		return STEP_ERR;
	case TOK_EOF:
		break;
	}
	end_cmd(p);
	if (p->subst) {
		fail(p, "$( ) without its ')'", t->off);
		return STEP_ERR;
	}
	if (p->sp) {
		fail(p, "a compound command is not closed", t->off);
		return STEP_ERR;
	}
	return STEP_DONE;
}

/* Parses from pos; returns the offset where it stopped or -1 on error. */
static long parse_run(struct cctx *x, const char *s, size_t n, size_t pos, bool subst)
{
	struct parser p;
	struct token t;
	enum step st = STEP_GO;
	long end = -1;

	memset(&p, 0, sizeof(p));
	p.x = x;
	p.subst = subst;
	p.outer_func = x->in_func;
	p.in_pipe = x->procsub_out;
	x->procsub_out = false;
	lex_init(&p.lx, x, s, n, pos);
	while (st == STEP_GO) {
		x->in_func = cur_func(&p); /* what $( ) met by the lexer is inside */
		lex_next(&p.lx, &t);
		x->in_func = cur_func(&p);
		st = parse_token(&p, &t);
		end = (long)t.off;
	}
	x->in_func = cur_func(&p);
	end_cmd(&p);
	x->in_func = p.outer_func;
	flush(&p);
	lex_fini(&p.lx);
	return st == STEP_DONE ? end : -1;
}

/* What lies past the depth limit is not read, so it is judged as the worst
 * it could hide: critical. Otherwise one more wrapping (bash -c around a
 * command nested just short of the limit) would lower rm -rf / to high, and
 * nesting this deep is obfuscation, not routine. */
static bool depth_ok(struct cctx *x)
{
	if (x->depth < CLS_MAX_DEPTH)
		return true;
	cls_add(x, TIER_CRITICAL, "parse.too_deep",
	        x->f.exact ? cls_span(x, 0, x->f.len) : x->f.outer,
	        "nesting of -c scripts, eval and substitutions is deeper than %d levels: "
	        "what is past it is not read, so it counts as the worst it could hide",
	        CLS_MAX_DEPTH);
	return false;
}

long shell_parse_subst(struct cctx *x, const char *s, size_t n, size_t pos)
{
	const char *cwd = x->cwd;
	long end;

	if (!depth_ok(x))
		return -1;
	x->depth++;
	end = parse_run(x, s, n, pos, true);
	x->depth--;
	x->cwd = cwd;
	return end;
}

void shell_script(struct cctx *x, const struct frame *f)
{
	struct frame save = x->f;
	const char *cwd = x->cwd;

	if (!depth_ok(x))
		return;
	x->f = *f;
	x->depth++;
	parse_run(x, f->text, f->len, 0, false);
	x->depth--;
	x->f = save;
	x->cwd = cwd;
}

void shell_script_text(struct cctx *x, const char *text, size_t len, struct span sp)
{
	struct frame f = {text, len, 0, false, sp};
	shell_script(x, &f);
}

/* The frame of word w's text: exact (spans point into it) when w is a
 * verbatim slice of an exact frame, else mapped to w's span. */
static struct frame word_frame(const struct cctx *x, const struct word *w)
{
	struct frame f = {w->val, w->len, 0, false, shell_span_word(x, w)};

	if (w->verbatim && x->f.exact) {
		f.text = x->f.text + w->voff;
		f.base = x->f.base + w->voff;
		f.exact = true;
		f.outer = cls_span(x, w->voff, w->len);
	}
	return f;
}

void shell_script_word(struct cctx *x, const struct word *w)
{
	struct frame f = word_frame(x, w);

	shell_script(x, &f);
}

/* Runs the substitutions of frame f's text, read as a here-document body;
 * one it cannot read fails closed. */
static void expand_frame(struct cctx *x, const struct frame *f)
{
	struct frame save = x->f;
	const char *cwd = x->cwd;
	struct lexer lx;

	if (!depth_ok(x))
		return;
	x->f = *f;
	x->depth++;
	lex_init(&lx, x, f->text, f->len, 0);
	lex_expansions(&lx, 0, f->len);
	if (lx.err)
		cls_add(x, TIER_HIGH, "parse.uncertain", cls_span(x, lx.errpos, f->len - lx.errpos),
		        "cannot read text the shell evaluates: %s", lx.err);
	lex_fini(&lx);
	x->depth--;
	x->f = save;
	x->cwd = cwd;
}

static bool has_subst(const char *text, size_t len)
{
	return memchr(text, '`', len) || memmem(text, len, "$(", 2);
}

void shell_expand_text(struct cctx *x, const char *text, size_t len, struct span sp)
{
	struct frame f = {text, len, 0, false, sp};

	if (has_subst(text, len))
		expand_frame(x, &f);
}

void shell_expand_word(struct cctx *x, const struct word *w)
{
	struct frame f;

	if (!has_subst(w->val, w->len))
		return;
	/* its substitutions ran as it was read, unless quotes kept them text */
	if ((w->flags & W_SUBST) && w->off + w->rawlen <= x->f.len &&
	    !memchr(x->f.text + w->off, '\'', w->rawlen))
		return;
	f = word_frame(x, w);
	expand_frame(x, &f);
}
