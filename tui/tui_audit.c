/*
 * tui_audit.c: the audit log browser (`airlock audit` on a terminal): the
 * browser's list over db_calls_page() (keyset paging, so a log of any size
 * opens at the speed of one page) and a detail view per call from
 * db_call_detail(). Read-only: it never writes to the log.
 * Everything read from the log is agent-supplied text: it goes through
 * doc.c and is shown escaped.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "db/db.h"
#include "tui/tui.h"
#include "tui/tui_internal.h"

#define FILTER_WORDS 16

enum audit_cmd { UC_FILTER = 200, UC_CLEAR };
enum audit_prompt { UP_FILTER = 1 };

static const struct keybind audit_keys[] = {
	{0, TK_ENTER, 0, "open", NULL},
	{'f', TK_NONE, UC_FILTER, "filter",
	 "f: filter: tier:high (tier:high+ = or higher) decision:denied tool:shell rule:ID "
	 "session:N since:DATE until:DATE; other words search the summary"},
	{'c', TK_NONE, UC_CLEAR, "clear", "c: clear the filters"},
	{'v', TK_NONE, 0, "view", NULL},
	{'q', TK_NONE, 0, "back/quit", NULL},
	{'?', TK_NONE, 0, "help", NULL},
	{0, TK_NONE, 0, NULL, NULL},
};

struct audit_screen {
	struct db *db;
	struct db_filter f;
	char *ftext;                /* the filter as typed ("" when none) */
	char *owned[FILTER_WORDS];  /* strings f points into */
	size_t nowned;
	struct browser *b;
	int64_t newest;             /* the newest call listed since the last reload */
	int64_t shown_key;          /* the call whose detail is open, and how far */
	int shown_stage;            /* it had got: see call_stage() */
};

#define NEW_COUNTED 1000 /* new calls counted for the header, at most */

/* ---- the list ---------------------------------------------------------- */

struct page_ctx {
	struct browser *b;
	struct audit_screen *s;
};

/*
 * Whether call id's row still agrees with its events and they chain: the
 * list reads the call index, which is not chained, so a row edited there
 * ("denied" made "auto", the summary made "echo harmless") listed as
 * true, and only opening that call said "Chain NOT CONFIRMED". A call
 * that cannot be checked (too far apart, an error) is not confirmed.
 */
static bool row_confirmed(struct db *db, int64_t id)
{
	json_t *det = NULL;
	char *err = NULL;
	bool ok;

	if (db_call_detail(db, id, &det, &err) != 0) {
		free(err);
		return false;
	}
	ok = json_is_true(json_object_get(json_object_get(det, "integrity"), "ok"));
	json_decref(det);
	return ok;
}

static int row_cb(void *arg, const struct db_call_row *r)
{
	struct page_ctx *p = arg;
	char when[20] = "", dur[24] = "-", *text;
	const char *tier = r->tier >= 0 && r->tier < TIER_COUNT ? tier_name(r->tier) : "?";
	const char *tool = r->name && *r->name ? r->name : r->tool ? r->tool : "?";

	if (r->time && strlen(r->time) >= 19) { /* 2026-11-30T11:47:07.123Z -> 11-30 11:47:07 */
		memcpy(when, r->time + 5, 14);
		when[5] = ' ';
		when[14] = '\0';
	}
	if (r->duration_ms >= 0)
		snprintf(dur, sizeof(dur), "%lldms", r->duration_ms);
	if (r->id > p->s->newest)
		p->s->newest = r->id;
	text = xasprintf("%-14s  %-8s  %-8s %8s  %-10s  %s%s", when, tier,
	                 r->decision ? r->decision : "-", dur, tool,
	                 row_confirmed(p->s->db, r->id) ? "" : "NOT CONFIRMED: ",
	                 r->summary ? r->summary : "");
	browser_add(p->b, r->id, text, r->tier >= 0 && r->tier < TIER_COUNT ? r->tier : -1, 16,
	            strlen(tier));
	free(text);
	return 0;
}

static int audit_page(void *arg, struct browser *b, int64_t key, int dir, size_t limit,
                      char **errstr)
{
	struct audit_screen *s = arg;
	struct page_ctx p = {b, s};

	return db_calls_page(s->db, &s->f, key, dir > 0 ? DB_PAGE_OLDER : DB_PAGE_NEWER, limit,
	                     row_cb, &p, errstr);
}

static int count_cb(void *arg, const struct db_call_row *r)
{
	(void)r;
	++*(size_t *)arg;
	return 0;
}

static int newest_cb(void *arg, const struct db_call_row *r)
{
	*(int64_t *)arg = r->id;
	return 0;
}

/* Starts the count of new calls at the newest call in the log, whatever
 * the filter: from 0, a filter matching nothing (zzz) scanned the whole
 * log each frame. */
static void newest_reset(struct audit_screen *s)
{
	struct db_filter all;
	char *err = NULL;

	db_filter_init(&all);
	s->newest = 0;
	if (db_calls_page(s->db, &all, 0, DB_PAGE_OLDER, 1, newest_cb, &s->newest, &err) < 0)
		free(err); /* 0: counted from the start, a slower query, never a wrong count */
}

/* Calls logged since the list was loaded (a gate writing while it is
 * open): the list showed the log as it was when opened, and the header's
 * "newest first" said nothing of the calls after it. Checked each frame
 * (250 ms): one indexed query. */
static void put_new(struct audit_screen *s, struct doc *d)
{
	size_t n = 0;
	char *err = NULL;

	if (db_calls_page(s->db, &s->f, s->newest, DB_PAGE_NEWER, NEW_COUNTED, count_cb, &n,
	                  &err) < 0) {
		free(err);
		return;
	}
	if (n > 0)
		doc_printf(d, TA_MARK, "  %s%zu new: g shows them", n == NEW_COUNTED ? "over " : "",
		           n == NEW_COUNTED ? n - 1 : n);
}

static int stage_cb(void *arg, const struct db_call_row *r)
{
	int *stage = arg;

	*stage = (int)r->previewed + 2 * (r->decision != NULL) + 4 * (int)r->finished;
	return 1; /* one row */
}

/* How far call key has got (previewed, decided, finished), -1 when not
 * read. */
static int call_stage(struct audit_screen *s, int64_t key)
{
	struct db_filter all;
	int stage = -1;
	char *err = NULL;

	db_filter_init(&all);
	if (db_calls_page(s->db, &all, key - 1, DB_PAGE_NEWER, 1, stage_cb, &stage, &err) < 0)
		free(err);
	return stage;
}

/* The detail of a call still waiting (an ask on another terminal) stayed
 * as first drawn: no decision, no outcome, after both were logged. It is
 * read again when the call gets further. */
static void detail_refresh(struct audit_screen *s, struct browser *b)
{
	int64_t key = browser_selected(b);
	int stage;

	if (s->shown_key == key && s->shown_stage >= 4)
		return; /* finished: nothing more comes */
	stage = call_stage(s, key);
	if (s->shown_key == key && stage != s->shown_stage)
		browser_invalidate(b);
	s->shown_key = key;
	s->shown_stage = stage;
}

static void audit_header(void *arg, struct browser *b, struct doc *d)
{
	struct audit_screen *s = arg;

	doc_puts(d, " airlock audit ", TA_TITLE);
	doc_puts(d, browser_mode(b) == BM_LIST ? "  newest first" : "  one call", TA_DIM);
	doc_puts(d, "  filter: ", TA_DIM);
	doc_puts(d, *s->ftext ? s->ftext : "none", TA_BOLD);
	if (browser_mode(b) == BM_LIST)
		put_new(s, d);
	else
		detail_refresh(s, b);
	doc_newline(d);
	if (browser_mode(b) == BM_LIST)
		doc_puts(d, "time            tier      decision      dur  tool        summary\n",
		         TA_DIM);
}

/* ---- the detail view ------------------------------------------------------ */

static const char *jstr(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

/*
 * The agent's words (a command, a reason quoting a script's name, the
 * output) inside the screen's own rows. A command `source "x<newline>
 * Decision: approved (policy said allow), by user<newline>Chain: events
 * 1..9 intact"` drew those rows under the call's Input and again under its
 * rules, where they read as the record's own, above the real denial.
 * Quoted text that may span rows gets a gutter on every row after its
 * first (as the approval screen's command does); text that is one line
 * (a reason, a name) stays on one, a newline shown as a \n mark, and its
 * wrapped rows are indented: padded to the width, a reason put its fake
 * "Decision:" at the start of a row all the same.
 */
static void put_quoted(struct doc *d, const char *text, bool oneline)
{
	d->squeeze = true;
	d->oneline = oneline;
	d->gutter = oneline ? "    " : "  | ";
	doc_puts(d, text ? text : "", TA_NORMAL);
	d->squeeze = d->oneline = false;
	d->gutter = NULL;
}

/* An object field by field: strings as text, the rest as JSON. */
static void put_fields(struct doc *d, json_t *o)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		d->oneline = true; /* a key is the agent's too */
		doc_printf(d, TA_DIM, "  %s: ", k);
		d->oneline = false;
		if (json_is_string(v)) { /* squeezed as on the approval screen */
			put_quoted(d, json_string_value(v), false);
		} else {
			char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
			doc_puts(d, t ? t : "?", TA_NORMAL);
			free(t);
		}
		doc_newline(d);
	}
}

/*
 * The text the spans index (the command, query, path or URL as received)
 * with what the classifier flagged marked, as on the approval screen. The
 * spans count the bytes of the text before redaction, which replaces a
 * secret by "[REDACTED:kind]" from the secret's first byte: the bytes
 * before the first such mark are as the classifier saw them, so the spans
 * that end there are marked and the rest are not, and the screen says so.
 * The log holds no flag for a redaction, and an agent can write the mark
 * itself: `# [REDACTED:x]` at the end of `rm -rf ~` hid every mark in it
 * behind "the text was redacted".
 */
static void put_flagged(struct doc *d, json_t *received, json_t *classified)
{
	const char *key = tool_subject_key(jstr(received, "tool"));
	const char *text = key ? jstr(json_object_get(received, "input"), key) : "";
	const char *cut = strstr(text, "[REDACTED:");
	size_t upto = cut ? (size_t)(cut - text) : strlen(text), i, n = 0, after = 0;
	json_t *spans = json_object_get(classified, "spans"), *s;
	struct span *v = NULL;

	if (*text == '\0' || json_array_size(spans) == 0)
		return;
	v = xreallocarray(NULL, json_array_size(spans), sizeof(*v));
	json_array_foreach(spans, i, s) {
		json_int_t off = json_integer_value(json_array_get(s, 0));
		json_int_t len = json_integer_value(json_array_get(s, 1));
		if (off < 0 || len <= 0) /* [offset, length]; 0: the whole call */
			continue;
		if ((size_t)off >= upto || (size_t)len > upto - (size_t)off)
			after++;
		else
			v[n++] = (struct span){(size_t)off, (size_t)len};
	}
	doc_printf(d, TA_DIM, "  flagged in the %s:\n", key);
	d->squeeze = true;
	d->gutter = "  | "; /* on every row, the first too */
	doc_put_spans(d, text, v, n);
	d->squeeze = false;
	d->gutter = NULL;
	doc_newline(d);
	if (after)
		doc_printf(d, TA_DIM, "  (%zu flagged part%s from the first [REDACTED: on not "
		           "marked: redaction moves the text after it)\n", after,
		           after == 1 ? "" : "s");
	free(v);
}

static void put_classified(struct doc *d, json_t *body, json_t *received)
{
	json_t *rules = json_object_get(body, "rules"), *reasons = json_object_get(body, "reasons");
	enum tier t = TIER_LOW;

	tier_from_name(jstr(body, "tier"), &t);
	doc_puts(d, "\nTier and rules: ", TA_BOLD);
	doc_printf(d, TA_TIER(t), " %s ", tier_name(t));
	doc_newline(d);
	put_flagged(d, received, body);
	for (size_t i = 0; i < json_array_size(rules); i++) {
		doc_puts(d, "  ", TA_NORMAL);
		put_quoted(d, json_string_value(json_array_get(rules, i)), true);
		doc_puts(d, ": ", TA_NORMAL);
		put_quoted(d, json_string_value(json_array_get(reasons, i)), true);
		doc_newline(d);
	}
}

static void put_decided(struct doc *d, json_t *body)
{
	json_t *w = json_object_get(body, "wait_ms");

	doc_puts(d, "\nDecision: ", TA_BOLD);
	d->oneline = true;
	doc_printf(d, TA_NORMAL, "%s (policy said %s), by %s", jstr(body, "decision"),
	           jstr(body, "action"), jstr(body, "who"));
	d->oneline = false;
	if (json_integer_value(w) > 0)
		doc_printf(d, TA_NORMAL, " after waiting %.1f s", (double)json_integer_value(w) / 1000);
	doc_newline(d);
	if (*jstr(body, "reason")) {
		doc_puts(d, "  reason: ", TA_DIM);
		put_quoted(d, jstr(body, "reason"), true);
		doc_newline(d);
	}
	if (*jstr(body, "policy") && strcmp(jstr(body, "policy"), jstr(body, "reason")) != 0) {
		doc_puts(d, "  policy: ", TA_DIM); /* the rule or tier that decided */
		put_quoted(d, jstr(body, "policy"), true);
		doc_newline(d);
	}
}

static void put_finished(struct doc *d, json_t *body)
{
	doc_puts(d, "\nOutcome: ", TA_BOLD);
	doc_printf(d, TA_NORMAL, "%s, exit %lld, signal %lld, %lld ms, cpu %lld ms, peak %lld kB%s\n",
	           json_is_true(json_object_get(body, "ran")) ? "ran" : "did not run",
	           json_integer_value(json_object_get(body, "exit_code")),
	           json_integer_value(json_object_get(body, "signal")),
	           json_integer_value(json_object_get(body, "duration_ms")),
	           json_integer_value(json_object_get(body, "cpu_ms")),
	           json_integer_value(json_object_get(body, "peak_kb")),
	           json_is_true(json_object_get(body, "truncated")) ? ", output truncated" : "");
	for (int i = 0; i < 2; i++) {
		const char *k = i ? "stderr" : "stdout";
		if (*jstr(body, k) == '\0')
			continue;
		doc_printf(d, TA_BOLD, "%s:\n", k);
		put_quoted(d, jstr(body, k), false);
		doc_newline(d);
	}
}

/* One event in the formatted view, by kind; received is the call's
 * received event's body (its input), or NULL. */
static void put_event(struct doc *d, json_t *ev, json_t *received)
{
	const char *kind = jstr(ev, "kind");
	json_t *body = json_object_get(ev, "body");

	if (strcmp(kind, "received") == 0) {
		doc_puts(d, "\n", TA_BOLD);
		d->oneline = true; /* the name is the agent's */
		doc_printf(d, TA_BOLD, "Input (%s, received %s):", jstr(body, "name"),
		           jstr(ev, "time"));
		d->oneline = false;
		doc_newline(d);
		put_fields(d, json_object_get(body, "input"));
	} else if (strcmp(kind, "classified") == 0) {
		put_classified(d, body, received);
	} else if (strcmp(kind, "decided") == 0) {
		put_decided(d, body);
	} else if (strcmp(kind, "previewed") == 0) {
		doc_puts(d, "\nPreview (n/N: files):\n", TA_BOLD);
		doc_put_diff(d, jstr(body, "preview"));
	} else if (strcmp(kind, "finished") == 0) {
		put_finished(d, body);
	}
}

/* Whether the call's events still chain to their neighbours: an edited
 * call must not read as a true record. */
static void put_integrity(struct doc *d, json_t *in)
{
	json_t *ev = json_object_get(in, "events");

	if (json_is_true(json_object_get(in, "ok"))) {
		doc_printf(d, TA_DIM, "Chain: events %lld..%lld intact (this call; `airlock audit "
		           "verify` checks the whole log)\n",
		           (long long)json_integer_value(json_array_get(ev, 0)),
		           (long long)json_integer_value(json_array_get(ev, 1)));
		return;
	}
	doc_puts(d, "Chain NOT CONFIRMED: ", TA_CRITICAL);
	doc_puts(d, jstr(in, "error"), TA_CRITICAL);
	doc_puts(d, "; what follows may be forged\n", TA_CRITICAL);
}

static int audit_detail(void *arg, int64_t key, int view, struct doc *d, char **errstr)
{
	struct audit_screen *s = arg;
	json_t *det = NULL, *events, *sess;
	char *raw;

	if (db_call_detail(s->db, key, &det, errstr) != 0)
		return -1;
	events = json_object_get(det, "events");
	sess = json_object_get(det, "session");
	doc_printf(d, TA_BOLD, "Call %lld", (long long)key);
	doc_printf(d, TA_NORMAL, "  session %lld (%s) ", json_integer_value(json_object_get(sess, "id")),
	           jstr(sess, "mode"));
	put_quoted(d, jstr(sess, "user"), true);
	doc_puts(d, "@", TA_NORMAL);
	put_quoted(d, jstr(sess, "host"), true);
	doc_puts(d, " in ", TA_DIM);
	put_quoted(d, jstr(sess, "cwd"), true); /* a hook's cwd is the agent's word */
	doc_newline(d);
	put_integrity(d, json_object_get(det, "integrity"));
	if (view == 1) {
		raw = json_dumps(det, JSON_INDENT(2));
		doc_puts(d, "Every event, as stored (v: back):\n", TA_BOLD);
		doc_puts(d, raw ? raw : "", TA_NORMAL);
		free(raw);
	} else {
		json_t *received = NULL;
		for (size_t i = 0; i < json_array_size(events); i++) {
			json_t *ev = json_array_get(events, i);
			if (strcmp(jstr(ev, "kind"), "received") == 0)
				received = json_object_get(ev, "body");
			put_event(d, ev, received);
		}
	}
	json_decref(det);
	return 0;
}

static const struct browser_ops audit_ops = {
	.page = audit_page,
	.detail = audit_detail,
	.header = audit_header,
	.keys = audit_keys,
	.nviews = 2,
};

/* ---- filters ---------------------------------------------------------------- */

static const char *own(struct audit_screen *s, const char *v)
{
	if (s->nowned == FILTER_WORDS)
		return NULL;
	return s->owned[s->nowned++] = xstrdup(v);
}

static void filter_reset(struct audit_screen *s)
{
	for (size_t i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	s->nowned = 0;
	db_filter_init(&s->f);
}

/*
 * A since:/until: value as the log stores times (UTC, ISO 8601), into out:
 * an age (30m, 12h, 7d, 2w) or YYYY-MM-DD[THH:MM[:SS]], as `airlock audit
 * --since` takes. The value went to SQL as typed: since:7d compared as text
 * with '2026-...', matched nothing, and the screen said "(nothing
 * matches)" over a log of calls from this morning. Returns -1 when it is
 * neither.
 */
static int filter_when(const char *v, char out[32])
{
	static const char units[] = "smhdw";
	static const long long secs[] = {1, 60, 3600, 86400, 604800};
	static const char *const forms[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"};
	size_t len = strlen(v);
	const char *u = len > 1 ? strchr(units, v[len - 1]) : NULL;
	struct tm tm;

	if (u && *u) {
		char num[24];
		long long n;
		time_t t;
		if (len - 1 >= sizeof(num))
			return -1;
		memcpy(num, v, len - 1);
		num[len - 1] = '\0';
		if (parse_ll(num, 0, 100LL * 365 * 86400 / secs[u - units], &n) < 0)
			return -1;
		t = time(NULL) - (time_t)(n * secs[u - units]);
		gmtime_r(&t, &tm);
		strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
		return 0;
	}
	for (size_t i = 0; i < nitems(forms); i++) {
		const char *end;
		memset(&tm, 0, sizeof(tm));
		end = strptime(v, forms[i], &tm);
		if (end && *end == '\0' && strftime(out, 32, forms[i], &tm) > 0)
			return 0; /* zero-padded again: 2026-1-2 compares as 2026-01-02 */
	}
	return -1;
}

/* One key:value word into f; returns -1 with *errstr on a bad one. */
static int filter_word(struct audit_screen *s, const char *w, struct buf *text, char **errstr)
{
	static const char *const keys[] = {"tier", "decision", "tool", "rule", "session",
	                                   "since", "until", "mode"};
	const char *colon = strchr(w, ':'), *v = colon ? colon + 1 : NULL;
	size_t k, kl = colon ? (size_t)(colon - w) : 0;
	long long n;

	for (k = 0; colon && k < nitems(keys); k++)
		if (strlen(keys[k]) == kl && strncmp(w, keys[k], kl) == 0)
			break;
	if (colon == NULL || k == nitems(keys)) { /* a plain word searches the summary */
		buf_printf(text, "%s%s", text->len ? " " : "", w);
		return 0;
	}
	if (s->nowned == FILTER_WORDS - 1) { /* one kept for the text: never dropped unsaid */
		*errstr = xasprintf("more than %d filter words", FILTER_WORDS - 1);
		return -1;
	}
	switch (k) {
	case 0: {
		char *t = xstrdup(v);
		size_t tl = strlen(t);
		enum tier tr;
		if ((s->f.tier_at_least = tl && t[tl - 1] == '+'))
			t[tl - 1] = '\0';
		if (tier_from_name(t, &tr) < 0) {
			*errstr = xasprintf("unknown tier %s (low, medium, high, critical)", t);
			free(t);
			return -1;
		}
		free(t);
		s->f.tier = (int)tr;
		return 0;
	}
	case 1: s->f.decision = own(s, v); return 0;
	case 2: s->f.tool = own(s, v); return 0;
	case 3: s->f.rule = own(s, v); return 0;
	case 4:
		if (parse_ll(v, 1, INT64_MAX, &n) < 0) {
			*errstr = xasprintf("session wants a number, not %s", v);
			return -1;
		}
		s->f.session = n;
		return 0;
	case 5:
	case 6: {
		char when[32];
		if (filter_when(v, when) < 0) {
			*errstr = xasprintf("%s wants YYYY-MM-DD[THH:MM[:SS]] (UTC) or an age like "
			                    "30m, 12h, 7d, not %s", keys[k], v);
			return -1;
		}
		*(k == 5 ? &s->f.since : &s->f.until) = own(s, when);
		return 0;
	}
	default: s->f.mode = own(s, v); return 0;
	}
}

/* Parses a filter line into s->f; returns -1 with *errstr. */
static int filter_parse(struct audit_screen *s, const char *line, char **errstr)
{
	char *copy = xstrdup(line), *save = NULL;
	struct buf text;
	int rc = 0;

	filter_reset(s);
	buf_init(&text, 1024);
	for (char *w = strtok_r(copy, " \t", &save); w && rc == 0; w = strtok_r(NULL, " \t", &save))
		rc = filter_word(s, w, &text, errstr);
	if (rc == 0 && text.len)
		s->f.text = own(s, text.data);
	buf_free(&text);
	free(copy);
	return rc;
}

static void apply_filter(struct audit_screen *s, const char *line)
{
	char *err = NULL;

	if (filter_parse(s, line, &err) < 0) {
		browser_message(s->b, "%s; filter not changed", err);
		free(err);
		filter_parse(s, s->ftext, &err); /* the old one parsed before */
		return;
	}
	free(s->ftext);
	s->ftext = xstrdup(line);
	newest_reset(s);
	if (browser_reload(s->b, &err) < 0) {
		browser_message(s->b, "%s", err);
		free(err);
	}
}

/* ---- the loop --------------------------------------------------------------- */

static void audit_loop(struct audit_screen *s, const struct screen_io *io)
{
	const struct trow **rows = NULL;
	int cmd = 0;

	for (;;) {
		if (tui_signal_caught())
			break;
		enum baction a = browser_step(s->b, io, &rows, &cmd, NULL);
		if (a == BA_QUIT || a == BA_GONE)
			break;
		if (a == BA_CMD && cmd == UC_FILTER)
			browser_prompt(s->b, UP_FILTER, "filter: ", s->ftext);
		else if (a == BA_CMD && cmd == UC_CLEAR)
			apply_filter(s, "");
		else if (a == BA_PROMPT && browser_prompt_id(s->b) == UP_FILTER)
			apply_filter(s, browser_prompt_text(s->b));
	}
	free(rows);
}

/* Takes the caller's filter as the starting point, shown as filter words. */
static void filter_from(struct audit_screen *s, const struct db_filter *f)
{
	struct buf b;

	buf_init(&b, 4096);
	if (f && f->tier >= 0)
		buf_printf(&b, " tier:%s%s", tier_name((enum tier)f->tier), f->tier_at_least ? "+" : "");
	if (f && f->session)
		buf_printf(&b, " session:%lld", (long long)f->session);
	static const char *const names[] = {"decision", "tool", "rule", "since", "until", "mode"};
	const char *vals[] = {f ? f->decision : NULL, f ? f->tool : NULL, f ? f->rule : NULL,
	                      f ? f->since : NULL,    f ? f->until : NULL, f ? f->mode : NULL};
	for (size_t i = 0; i < nitems(names); i++)
		if (vals[i])
			buf_printf(&b, " %s:%s", names[i], vals[i]);
	if (f && f->text)
		buf_printf(&b, " %s", f->text);
	s->ftext = xstrdup(b.len ? b.data + 1 : "");
	buf_free(&b);
}

int tui_audit_browse_io(struct db *db, const struct db_filter *f, const struct screen_io *io,
                        bool ascii, char **errstr)
{
	struct audit_screen s = {.db = db};
	char *err = NULL;
	int rc = -1;

	filter_from(&s, f);
	if (filter_parse(&s, s.ftext, &err) < 0) {
		*errstr = xasprintf("bad filter: %s", err);
		free(err);
		goto out;
	}
	s.b = browser_new(&audit_ops, &s, false, ascii);
	newest_reset(&s);
	if (browser_reload(s.b, errstr) < 0)
		goto out;
	audit_loop(&s, io);
	rc = 0;
out:
	browser_free(s.b);
	filter_reset(&s);
	free(s.ftext);
	return rc;
}

int tui_audit_browse(struct db *db, const struct db_filter *f, char **errstr)
{
	struct term *t = NULL;
	struct screen_io io;
	int rc;

	tui_signals_catch();
	if (term_open(NULL, &t, errstr) < 0) {
		tui_signals_restore();
		return -1;
	}
	term_screen_io(t, &io);
	rc = tui_audit_browse_io(db, f, &io, !term_utf8(t), errstr);
	term_close(t);
	tui_signals_restore();
	return rc;
}
