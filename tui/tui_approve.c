/*
 * tui_approve.c: the approval screen: one call held in the browser's detail
 * view until a person approves, denies, edits, or the timeout denies.
 * Rules it keeps:
 *  - nothing but an explicit key approves: timeouts, signals, a lost
 *    terminal and unknown keys all end in a denial or nothing;
 *  - every agent-supplied string (tool, id, command, pattern, diff) goes
 *    through doc.c, so it is shown escaped, never interpreted;
 *  - the terminal is closed on every return path.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/tui.h"
#include "tui/tui_internal.h"


/* How long a call must have been on screen, with no approving key pressed
 * too soon and no unknown key, before a key approves it: a second `a`
 * typed for the call before (a double tap) reached the next queued call's
 * screen milliseconds after it appeared, and approved what nobody had
 * read; a key held down for over a second, or a sentence typed for the
 * agent, went on past the second and approved all the same. Denying works
 * at once. */
#define APPROVE_ARM_NS (1000 * 1000000LL)

enum approve_cmd { AC_APPROVE = 100, AC_DENY, AC_QUIT, AC_REMEMBER, AC_SAVE, AC_EDIT };
enum approve_prompt { AP_REASON = 1, AP_REMEMBER, AP_SAVE };

static const struct keybind approve_keys[] = {
	{'a', TK_NONE, AC_APPROVE, "approve", "a: approve this call once"},
	{'d', TK_NONE, AC_DENY, "deny", "d: deny, with an optional one-line reason for the agent"},
	{'A', TK_NONE, AC_REMEMBER, "session",
	 "A: approve, and approve calls matching the shown pattern for this session"},
	{'s', TK_NONE, AC_SAVE, "save", "s: approve and save the rule to the project or user policy"},
	{'e', TK_NONE, AC_EDIT, "edit", "e: edit the call in $EDITOR; it is checked again"},
	{'v', TK_NONE, 0, "view", NULL},
	{'?', TK_NONE, 0, "help", NULL},
	{'q', TK_NONE, AC_QUIT, NULL, "q/Esc: deny"},
	{0, TK_NONE, 0, NULL, NULL},
};

static const char *const choice_names[] = {
	[TUI_APPROVE] = "approve", [TUI_DENY] = "deny",       [TUI_REMEMBER] = "remember",
	[TUI_SAVE_PROJECT] = "save-project", [TUI_SAVE_USER] = "save-user",
	[TUI_EDIT] = "edit",       [TUI_TIMEOUT] = "timeout", [TUI_SIGNAL] = "signal",
	[TUI_HANGUP] = "hangup",       [TUI_GONE] = "gone",
};

const char *tui_choice_name(enum tui_choice c)
{
	return (size_t)c < nitems(choice_names) ? choice_names[c] : "unknown";
}

void tui_answer_clear(struct tui_answer *a)
{
	free(a->reason);
	free(a->edited);
	a->reason = a->edited = NULL;
}

struct approve_screen {
	const struct tui_ask *ask;
	struct tui_answer *ans;
	struct browser *b;
	struct term *t;
	long long deadline; /* clock_ns(); 0: none */
	long long shown;    /* io clock when the first frame was drawn; 0: not yet */
	const struct screen_io *io;
	size_t hidden;      /* escapes shown in the subject */
	bool not_applied;   /* the preview is shown, not applied: the call runs */
	size_t must_see;    /* the review's rows up to the preview's first summary line */
	int seen_width;     /* the width those rows were wrapped to */
	size_t seen;        /* the review's rows seen from the top, at seen_width */
	bool whole;         /* the last frame showed the screen whole (no header cut) */
	bool done;
	char status[40];
};

#define HEADER_FIELD_MAX 32 /* bytes of the tool name and the id in the header */

/* An agent's word in the header, cut, on one row: a long id or tool name
 * wrapped the header past its rows and hid the tier and the warning below
 * it; an id of 30 newlines did the same within the cut (and hid how many
 * calls wait behind this one), so a newline shows as a \n mark. */
static void put_capped(struct doc *d, const char *text, enum tattr a)
{
	size_t n = strlen(text), k = n > HEADER_FIELD_MAX ? HEADER_FIELD_MAX : n;

	while (k < n && k > 0 && ((unsigned char)text[k] & 0xc0) == 0x80)
		k--; /* never half a character: it showed as \xe4\xb8 marks */
	d->oneline = true;
	doc_put(d, text, k, a);
	d->oneline = false;
	if (k < n)
		doc_printf(d, TA_MARK, "...(+%zu bytes)", n - k);
}

/* "tier" and its name on one row: at 40 columns the header wrapped in the
 * middle of the name, " cr" ending one row and "itical " starting the
 * next, which with NO_COLOR read as two words, neither a tier. */
static void put_tier(struct doc *d, enum tier t)
{
	const char *name = tier_name(t);
	int cells = (int)(strlen("  tier ") + strlen(name) + 2);

	if (d->ccells > 0 && d->ccells + cells > d->width)
		doc_newline(d);
	doc_puts(d, d->ccells > 0 ? "  tier " : "tier ", TA_DIM);
	doc_printf(d, TA_TIER(t), " %s ", name);
}

/* The header: tool, tier, id, queue; a warning when the subject hides text,
 * and when approval runs the call instead of applying its preview. */
static void approve_header(void *arg, struct browser *b, struct doc *d)
{
	struct approve_screen *s = arg;
	const struct tui_ask *a = s->ask;
	size_t waiting = a->pending ? a->pending(a->pending_arg) : 0;

	(void)b;
	doc_puts(d, " airlock: approve? ", TA_TITLE);
	doc_puts(d, " tool ", TA_DIM);
	put_capped(d, a->tool ? a->tool : "?", TA_BOLD);
	put_tier(d, a->tier);
	doc_puts(d, "  id ", TA_DIM);
	put_capped(d, a->call_id && *a->call_id ? a->call_id : "-", TA_NORMAL);
	doc_printf(d, TA_NORMAL, "  waiting behind: %zu\n", waiting);
	if (a->tier == TIER_CRITICAL) /* an ask-critical rule asks: the tier only showed */
		doc_puts(d, "CRITICAL: its tier alone would deny it\n", TA_CRITICAL);
	if (s->hidden)
		doc_printf(d, TA_MARK,
		           "WARNING: the %s holds %zu hidden part%s, shown marked\n",
		           a->subject_label ? a->subject_label : "input", s->hidden,
		           s->hidden == 1 ? "" : "s");
	if (s->not_applied)
		/* the header may be cut to a third of the rows: cut after
		 * "itself, not", its first row read as the opposite */
		doc_puts(d, "NOTE: approval runs the call itself; the preview is only shown (why: "
		            "under Preview)\n", TA_MARK);
	if (a->applies == TUI_APPLIES_REFUSED)
		doc_puts(d, "NOTE: the preview failed: approval runs nothing "
		            "(see why under Preview)\n", TA_MARK);
}

/* A reason on one row: it quotes the agent's words (a script's name, a
 * path), and a name holding newlines posed as the screen's own rows
 * ("policy: tier low: allow", "Preview:") and pushed the real ones below
 * the fold with empty lines; blanks are squeezed as in the command. */
static void put_reason(struct doc *d, const char *text)
{
	d->oneline = d->squeeze = true;
	doc_puts(d, text ? text : "", TA_NORMAL);
	d->oneline = d->squeeze = false;
	doc_newline(d);
}

static void put_findings(struct doc *d, const struct tui_ask *a)
{
	const struct verdict *v = a->verdict;

	doc_puts(d, "\nWhy it asks:\n", TA_BOLD);
	for (size_t i = 0; v && i < v->nfindings; i++) {
		doc_puts(d, "  ", TA_NORMAL);
		doc_printf(d, TA_TIER(v->findings[i].tier), "[%s]", tier_name(v->findings[i].tier));
		doc_puts(d, " ", TA_NORMAL);
		d->oneline = true;
		doc_puts(d, v->findings[i].rule ? v->findings[i].rule : "?", TA_NORMAL);
		d->oneline = false;
		doc_puts(d, ": ", TA_NORMAL);
		put_reason(d, v->findings[i].reason);
	}
	if (v == NULL || v->nfindings == 0)
		doc_puts(d, "  (no rule fired)\n", TA_DIM);
	if (a->policy_reason) {
		doc_puts(d, "  policy: ", TA_DIM);
		put_reason(d, a->policy_reason);
	}
}

/* The subject's rows start with a gutter, so nothing in it can pass for
 * the screen's own labels ("Why it asks:"), and long runs of spaces or
 * empty lines are squeezed into one mark, so its end is never pushed past
 * the edge or below the fold behind what looks like nothing. */
static void subject_mode(struct doc *d, bool on)
{
	d->gutter = on ? "| " : NULL;
	d->squeeze = on;
}

/* "The command:", with its length in rows when it has more than one: the
 * first screen says how much of it there is, even when the rest (and the
 * findings after it) is below the fold. */
static void put_subject_label(struct doc *d, const struct tui_ask *a)
{
	const char *label = a->subject_label ? a->subject_label : "input";
	struct doc t;

	doc_init(&t, d->width, d->ascii);
	subject_mode(&t, true);
	doc_puts(&t, a->subject ? a->subject : "", TA_NORMAL);
	if (t.open)
		doc_newline(&t);
	if (t.nrows > 1)
		doc_printf(d, TA_BOLD, "The %s (%zu rows; space scrolls):\n", label, t.nrows);
	else
		doc_printf(d, TA_BOLD, "The %s:\n", label);
	doc_clear(&t);
}

/* The input field by field, long runs of blanks and empty lines squeezed:
 * a field of 60 newlines ("description") pushed an HTTP call's method and
 * body below the fold behind what looked like the end of the input. */
static void put_input(struct doc *d, const struct tui_ask *a)
{
	d->squeeze = true;
	doc_puts(d, a->input_text ? a->input_text : "(none)", TA_NORMAL);
	d->squeeze = false;
}

/*
 * The preview's head: its lines up to and including the first summary
 * line (diff/render.c starts those with a space: the total "3 files
 * changed (..., 2 deleted)", "DELETE would remove 48,213 of 48,213 rows
 * in users", "no changes"), or up to its first diff. A command whose rows and
 * findings filled the first screen put that line below the fold, and `a`
 * applied "src | deleted directory", which a script the command ran had
 * done in the dry run, unseen. Returns its length in bytes.
 */
static size_t preview_head_len(const char *p)
{
	const char *l = p, *nl;

	while (*l && strncmp(l, "diff ", 5) != 0) {
		nl = strchr(l, '\n');
		if (*l == ' ' || nl == NULL)
			return nl ? (size_t)(nl + 1 - p) : strlen(p);
		l = nl + 1;
	}
	return (size_t)(l - p);
}

#define TITLE_SHOWN 160 /* bytes of a shell preview's title: it repeats the command */

/* The preview, its head counted in what must be seen before `a`; a shell
 * preview's title, which repeats the command shown whole above it, cut to
 * two rows so the summary after it is not a page further down (a SQL
 * preview's names the database, which is not above: kept whole). */
static void put_preview(struct approve_screen *s, struct doc *d, const char *preview)
{
	static const char shell[] = "preview: shell ";
	const char *body = preview, *nl = strchr(preview, '\n');
	size_t tlen = nl ? (size_t)(nl - preview) : strlen(preview), head, k = TITLE_SHOWN;
	char *h;

	if (tlen > TITLE_SHOWN && strncmp(preview, shell, sizeof(shell) - 1) == 0 &&
	    s->ask->subject_label && strcmp(s->ask->subject_label, "command") == 0) {
		while (k > 0 && ((unsigned char)preview[k] & 0xc0) == 0x80)
			k--; /* never half a character */
		doc_put(d, preview, k, TA_NORMAL);
		doc_printf(d, TA_MARK, "...(+%zu bytes)", tlen - k);
		doc_newline(d);
		body = nl ? nl + 1 : preview + tlen;
	}
	head = preview_head_len(body);
	h = xstrndup(body, head);
	doc_put_diff(d, h);
	s->must_see = d->nrows;
	doc_put_diff(d, body + head);
	free(h);
}

/* View 0: the call, why, the preview; view 1: the raw input. */
static int approve_detail(void *arg, int64_t key, int view, struct doc *d, char **errstr)
{
	struct approve_screen *s = arg;
	const struct tui_ask *a = s->ask;
	struct span *sp = NULL;
	size_t nsp = 0;

	(void)key, (void)errstr;
	if (view == 1) {
		doc_puts(d, "Input, field by field (v: back to the review):\n", TA_BOLD);
		put_input(d, a);
		return 0;
	}
	put_subject_label(d, a);
	for (size_t i = 0; a->verdict && i < a->verdict->nfindings; i++) {
		sp = xreallocarray(sp, nsp + 1, sizeof(*sp));
		sp[nsp++] = a->verdict->findings[i].span;
	}
	subject_mode(d, true);
	doc_put_spans(d, a->subject ? a->subject : "", sp, nsp);
	subject_mode(d, false);
	free(sp);
	doc_newline(d);
	put_findings(d, a);
	if (d->width != s->seen_width) /* wrapped anew: rows are not the ones seen */
		s->seen = 0;
	s->seen_width = d->width;
	s->must_see = d->nrows;
	if (a->preview && *a->preview) {
		doc_puts(d, "\nPreview (n/N: next/previous file, /: search):\n", TA_BOLD);
		put_preview(s, d, a->preview);
	} else {
		doc_puts(d, "\nNo preview for this call. The input:\n", TA_BOLD);
		put_input(d, a);
	}
	return 0;
}

static int approve_page(void *arg, struct browser *b, int64_t key, int dir, size_t limit,
                        char **errstr)
{
	(void)arg, (void)limit, (void)errstr;
	if (key != 0 || dir < 0)
		return 0;
	browser_add(b, 1, "", -1, 0, 0);
	return 1;
}

static const char *approve_status(void *arg)
{
	struct approve_screen *s = arg;
	long long left;

	if (s->deadline == 0)
		return NULL;
	left = (s->deadline - clock_ns()) / 1000000000LL;
	if (left < 0)
		left = 0;
	snprintf(s->status, sizeof(s->status), "timeout %lld:%02lld", left / 60, left % 60);
	return s->status;
}

/* Counts the review's rows seen, from the top without a gap: a jump to
 * the end (G, a search) does not count the rows it skipped. */
static void approve_drawn(void *arg, struct browser *b, size_t top, size_t bottom)
{
	struct approve_screen *s = arg;

	s->whole = true;
	if (browser_view(b) == 0 && browser_doc(b)->width == s->seen_width && top <= s->seen &&
	    bottom > s->seen)
		s->seen = bottom;
}

static const struct browser_ops approve_ops = {
	.drawn = approve_drawn,
	.page = approve_page,
	.detail = approve_detail,
	.header = approve_header,
	.status = approve_status,
	.keys = approve_keys,
	.nviews = 2,
};

static void finish(struct approve_screen *s, enum tui_choice c)
{
	s->ans->choice = c;
	s->done = true;
}

/* `e`: the editor, then the edited call goes back for a new decision. */
static void do_edit(struct approve_screen *s)
{
	char *out = NULL, *err = NULL;
	size_t n;

	if (s->ask->edit_text == NULL || s->t == NULL) {
		browser_message(s->b, "this call cannot be edited here");
		return;
	}
	if (term_edit(s->t, s->ask->edit_text, s->ask->edit_suffix, &out, &err) < 0) {
		browser_message(s->b, "%s", err);
		free(err);
		return;
	}
	n = strlen(out);
	if (n > 0 && out[n - 1] == '\n') /* editors add a final newline */
		out[--n] = '\0';
	if (strcmp(out, s->ask->edit_text) == 0 || n == 0) {
		browser_message(s->b, n ? "unchanged: nothing to check again" : "empty: ignored");
		free(out);
		return;
	}
	s->ans->edited = out;
	finish(s, TUI_EDIT);
}

static long long io_now(const struct screen_io *io)
{
	return io->now ? io->now(io->arg) : clock_ns();
}

/* True when an approving key comes too soon after the call appeared or
 * after a stray key; it starts the second again, so key repeat never
 * outlasts it. */
static bool too_soon(struct approve_screen *s)
{
	long long now = io_now(s->io);

	if (now - s->shown >= APPROVE_ARM_NS)
		return false;
	s->shown = now;
	browser_message(s->b, "under %lld s since the call or a key: read it, then press the "
	                      "key again", APPROVE_ARM_NS / 1000000000LL);
	return true;
}

/* True when an approving key comes before the whole command and why it
 * asks were on screen: a command of 3,000 bytes showed 'echo xxx...' on
 * the first screen, and `a` ran its '; rm -rf' tail and approved past the
 * findings, none of it seen. The person scrolls (space) to its end first. */
static bool unseen(struct approve_screen *s)
{
	if (!s->whole) { /* a header cut to fit: its warning or NOTE unseen */
		browser_message(s->b, "header cut: enlarge terminal");
		return true;
	}
	if (s->seen >= s->must_see)
		return false;
	browser_message(s->b, "not seen yet: rows %zu-%zu of the %s, why, what it changes; "
	                      "scroll (space)",
	                s->seen + 1, s->must_see,
	                s->ask->subject_label ? s->ask->subject_label : "input");
	return true;
}

static void do_cmd(struct approve_screen *s, int cmd)
{
	char *label;

	if ((cmd == AC_APPROVE || cmd == AC_REMEMBER || cmd == AC_SAVE) && too_soon(s))
		return;
	if (cmd == AC_APPROVE && unseen(s)) /* A and s: at their answer */
		return;
	switch (cmd) {
	case AC_APPROVE:
		finish(s, TUI_APPROVE);
		break;
	case AC_QUIT:
		finish(s, TUI_DENY);
		break;
	case AC_DENY:
		browser_prompt(s->b, AP_REASON, "deny; reason for the agent (Enter sends, Esc cancels): ",
		               NULL);
		break;
	case AC_REMEMBER:
	case AC_SAVE:
		if (s->ask->pattern == NULL || (cmd == AC_SAVE && !s->ask->can_save)) {
			browser_message(s->b, "%s is not available for this call%s%s",
			                cmd == AC_SAVE ? "saving a rule" : "remembering",
			                s->ask->no_pattern ? ": " : "",
			                s->ask->no_pattern ? s->ask->no_pattern : "");
			break;
		}
		label = cmd == AC_SAVE
		            ? xasprintf("approve and save %s to the (p)roject or (u)ser policy? ",
		                        s->ask->pattern)
		            : xasprintf("approve and remember %s for this session? (y/n) ",
		                        s->ask->pattern);
		browser_choice(s->b, cmd == AC_SAVE ? AP_SAVE : AP_REMEMBER, label);
		free(label);
		break;
	case AC_EDIT:
		do_edit(s);
		break;
	}
}

static void do_prompt(struct approve_screen *s)
{
	const char *txt = browser_prompt_text(s->b);

	switch (browser_prompt_id(s->b)) {
	case AP_REASON:
		s->ans->reason = txt && *txt ? xstrdup(txt) : NULL;
		finish(s, TUI_DENY);
		break;
	case AP_REMEMBER:
		if (txt && (*txt == 'y' || *txt == 'Y') && !unseen(s))
			finish(s, TUI_REMEMBER);
		else if (!txt || (*txt != 'y' && *txt != 'Y'))
			browser_message(s->b, "not remembered; still waiting");
		break;
	case AP_SAVE:
		if (txt && (*txt == 'p' || *txt == 'u') && !unseen(s))
			finish(s, *txt == 'p' ? TUI_SAVE_PROJECT : TUI_SAVE_USER);
		else if (!txt || (*txt != 'p' && *txt != 'u'))
			browser_message(s->b, "not saved; still waiting");
		break;
	}
}

/* Draws, reads a key, acts; until a decision, the timeout or a signal. */
static void approve_loop(struct approve_screen *s, const struct screen_io *io)
{
	const struct trow **rows = NULL;
	int cmd = 0;

	while (!s->done) {
		if ((s->ans->signal = tui_signal_caught()) != 0) {
			finish(s, TUI_SIGNAL);
			break;
		}
		if (s->deadline && clock_ns() >= s->deadline) {
			finish(s, TUI_TIMEOUT);
			break;
		}
		if (s->ask->gone && s->ask->gone(s->ask->gone_arg)) { /* checked each tick */
			finish(s, TUI_GONE);
			break;
		}
		if (s->shown == 0) /* browser_step draws before it reads a key */
			s->shown = io_now(io);
		s->whole = false; /* approve_drawn says when the frame was */
		switch (browser_step(s->b, io, &rows, &cmd, &s->ans->first_frame_ns)) {
		case BA_CMD: do_cmd(s, cmd); break;
		case BA_PROMPT: do_prompt(s); break;
		case BA_QUIT: finish(s, TUI_DENY); break;
		case BA_GONE: finish(s, TUI_HANGUP); break;
		case BA_UNKNOWN: s->shown = io_now(io); break; /* typing meant elsewhere */
		case BA_NONE: break;
		}
		if (browser_too_small(s->b)) /* not seen: the second starts when it is */
			s->shown = 0;
	}
	free(rows);
}

/* Counts what the subject would show escaped. */
static size_t hidden_count(const char *subject, bool ascii)
{
	struct doc d;
	size_t n;

	doc_init(&d, 4096, ascii);
	subject_mode(&d, true);
	doc_puts(&d, subject ? subject : "", TA_NORMAL);
	n = d.nmarked;
	doc_clear(&d);
	return n;
}

/* Runs the screen over io; t may be NULL (no editor then). */
static void approve_run(const struct tui_ask *ask, struct tui_answer *ans, struct term *t,
                        bool ascii, const struct screen_io *io)
{
	struct approve_screen s = {.ask = ask, .ans = ans, .t = t, .io = io};
	char *err = NULL;

	s.hidden = hidden_count(ask->subject, ascii);
	/* the gate's reading (gate/approve.c), which --approve-with's JSON
	 * gives as "applies": the screen read the preview's text apart */
	s.not_applied = ask->applies == TUI_APPLIES_RUN && ask->preview && *ask->preview;
	s.deadline = ask->timeout_s > 0 ? clock_ns() + ask->timeout_s * 1000000000LL : 0;
	s.b = browser_new(&approve_ops, &s, true, ascii);
	if (browser_reload(s.b, &err) < 0) { /* cannot happen: the page is static */
		free(err);
		finish(&s, TUI_DENY); /* fail safe */
	}
	approve_loop(&s, io);
	browser_free(s.b);
}

int tui_approve(const struct tui_ask *ask, struct tui_answer *ans, char **errstr)
{
	struct term *t = NULL;
	struct screen_io io;

	memset(ans, 0, sizeof(*ans));
	ans->choice = TUI_DENY; /* fail safe */
	if (tui_stop_signal()) {
		ans->choice = TUI_SIGNAL;
		ans->signal = tui_stop_signal();
		return 0;
	}
	tui_signals_catch();
	if (term_open(ask->tty, &t, errstr) < 0) {
		tui_signals_restore();
		return -1;
	}
	term_screen_io(t, &io);
	approve_run(ask, ans, t, !term_utf8(t), &io);
	term_close(t);
	tui_signals_restore();
	return 0;
}

void tui_approve_io(const struct tui_ask *ask, struct tui_answer *ans,
                    const struct screen_io *io)
{
	memset(ans, 0, sizeof(*ans));
	ans->choice = TUI_DENY; /* fail safe */
	approve_run(ask, ans, NULL, false, io);
}

int tui_stop_signal(void)
{
	return tui_signal_caught();
}
