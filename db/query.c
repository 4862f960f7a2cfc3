/*
 * query.c: reading the log for `airlock audit` and the review browser:
 * filters, keyset pages, one call's detail, export and statistics.
 * Rules it keeps: lists read the derived call_index (indexed, one row per
 * call) and never scan events; a page never loads more than `limit` rows;
 * every value from the user is bound, never pasted into SQL.
 */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "db/db_internal.h"

#define PAGE_MAX 10000

void db_filter_init(struct db_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->tier = -1;
}

/* SQL text plus the values to bind, in order. */
struct query {
	struct buf sql;
	const char *text[12];
	long long num[12];
	bool is_num[12];
	int n;
	bool rule_joined; /* FROM call_rules r JOIN call_index s: page by r.call */
};

static void q_text(struct query *q, const char *clause, const char *v)
{
	buf_puts(&q->sql, clause);
	q->text[q->n] = v;
	q->is_num[q->n++] = false;
}

static void q_num(struct query *q, const char *clause, long long v)
{
	buf_puts(&q->sql, clause);
	q->num[q->n] = v;
	q->is_num[q->n++] = true;
}

/* A built-in tool ("shell", ...) or a name only the agent knows. */
static bool is_tool_name(const char *s)
{
	for (int t = TOOL_SHELL; t <= TOOL_OTHER; t++)
		if (strcmp(s, tool_name((enum tool)t)) == 0)
			return true;
	return false;
}

/* Appends " AND ..." for every set field of f, over call_index alias s. */
static void q_filter(struct query *q, const struct db_filter *f)
{
	if (f == NULL)
		return;
	if (f->tier >= 0)
		q_num(q, f->tier_at_least ? " AND s.tier >= ?" : " AND s.tier = ?", f->tier);
	if (f->decision && strcmp(f->decision, "none") == 0)
		buf_puts(&q->sql, " AND s.decision IS NULL");
	else if (f->decision)
		q_text(q, " AND s.decision = ?", f->decision);
	if (f->tool)
		q_text(q, is_tool_name(f->tool) ? " AND s.tool = ?" : " AND s.name = ?", f->tool);
	if (f->mode)
		q_text(q, " AND s.mode = ?", f->mode);
	if (f->rule && q->rule_joined)
		q_text(q, " AND r.rule = ?", f->rule);
	else if (f->rule)
		q_text(q, " AND s.id IN (SELECT call FROM call_rules WHERE rule = ?)", f->rule);
	if (f->session)
		q_num(q, " AND s.session = ?", f->session);
	if (f->since)
		q_text(q, " AND s.time >= ?", f->since);
	if (f->until)
		q_text(q, " AND s.time < ?", f->until);
	if (f->text)
		q_text(q, " AND instr(lower(s.summary), lower(?)) > 0", f->text);
}

static sqlite3_stmt *q_prepare(struct db *db, struct query *q, char **errstr)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->sql, q->sql.data, -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot query the log");
		return NULL;
	}
	for (int i = 0; i < q->n; i++) {
		if (q->is_num[i])
			sqlite3_bind_int64(st, i + 1, q->num[i]);
		else
			sqlite3_bind_text(st, i + 1, q->text[i], -1, SQLITE_STATIC);
	}
	return st;
}

#define ROW_COLUMNS                                                                    \
	"s.id, s.session, s.time, s.mode, s.tool, s.name, s.summary, s.tier, s.rules,"    \
	" s.action, s.decision, s.who, s.wait_ms, s.finished, s.ran, s.previewed,"         \
	" s.exit_code, s.signal, s.duration_ms"

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static long long col_ll(sqlite3_stmt *st, int i, long long dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

static void row_read(sqlite3_stmt *st, struct db_call_row *r)
{
	*r = (struct db_call_row){
		.id = sqlite3_column_int64(st, 0), .session = sqlite3_column_int64(st, 1),
		.time = col_text(st, 2), .mode = col_text(st, 3), .tool = col_text(st, 4),
		.name = col_text(st, 5), .summary = col_text(st, 6), .tier = (int)col_ll(st, 7, -1),
		.rules = col_text(st, 8), .action = col_text(st, 9), .decision = col_text(st, 10),
		.who = col_text(st, 11), .wait_ms = col_ll(st, 12, -1),
		.finished = col_ll(st, 13, 0) != 0, .ran = col_ll(st, 14, 0) != 0,
		.previewed = col_ll(st, 15, 0) != 0, .exit_code = (int)col_ll(st, 16, -1),
		.signal = (int)col_ll(st, 17, 0), .duration_ms = col_ll(st, 18, -1)};
	if (r->rules == NULL)
		r->rules = "";
}

int db_calls_page(struct db *db, const struct db_filter *f, int64_t after_id, int direction,
                  size_t limit, int (*row_cb)(void *arg, const struct db_call_row *row),
                  void *arg, char **errstr)
{
	struct query q = {.n = 0};
	sqlite3_stmt *st;
	struct db_call_row row;
	const char *col;
	int n = 0, step;

	/* With a rule, walk that rule's (rule, call) primary key in call order:
	 * a page costs `limit` lookups however rare or common the rule is. */
	q.rule_joined = f && f->rule;
	col = q.rule_joined ? "r.call" : "s.id";
	buf_init(&q.sql, 0);
	buf_printf(&q.sql, "SELECT " ROW_COLUMNS " FROM %s WHERE 1",
	           q.rule_joined ? "call_rules r JOIN call_index s ON s.id = r.call" : "call_index s");
	q_filter(&q, f);
	if (after_id > 0) {
		buf_printf(&q.sql, " AND %s", col);
		q_num(&q, direction == DB_PAGE_NEWER ? " > ?" : " < ?", after_id);
	}
	buf_printf(&q.sql, " ORDER BY %s %s LIMIT %zu", col,
	           direction == DB_PAGE_NEWER ? "ASC" : "DESC", limit < PAGE_MAX ? limit : PAGE_MAX);
	st = q_prepare(db, &q, errstr);
	buf_free(&q.sql);
	if (st == NULL)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		row_read(st, &row);
		n++;
		if (row_cb(arg, &row) != 0) {
			step = SQLITE_DONE;
			break;
		}
	}
	if (step != SQLITE_DONE)
		n = db_fail(db, errstr, "cannot read calls");
	sqlite3_finalize(st);
	return n;
}

int db_agent_recent(struct db *db, const char *agent, size_t max, json_t **out, char **errstr)
{
	sqlite3_stmt *st = NULL;
	json_t *a = json_array();
	int rc = -1, r;

	*out = NULL;
	if (sqlite3_prepare_v2(db->sql,
	                       "SELECT CAST(strftime('%s', e.time) AS INTEGER), e.body FROM events e"
	                       " JOIN sessions s ON s.id = e.session"
	                       " WHERE e.kind = 'received' AND s.agent = ?"
	                       " ORDER BY e.id DESC LIMIT ?",
	                       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, agent, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 2, (sqlite3_int64)max) != SQLITE_OK) {
		db_fail(db, errstr, "cannot read the agent's recent calls");
		goto out;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *body = json_loads(col_text(st, 1) ? col_text(st, 1) : "", 0, NULL);
		if (body) /* newest first from the query: insert at the front */
			json_array_insert_new(a, 0, json_pack("{s:I, s:o}", "time",
			                                      (json_int_t)sqlite3_column_int64(st, 0),
			                                      "call", body));
	}
	if (r != SQLITE_DONE) {
		db_fail(db, errstr, "cannot read the agent's recent calls");
		goto out;
	}
	*out = a;
	a = NULL;
	rc = 0;
out:
	sqlite3_finalize(st);
	json_decref(a);
	return rc;
}

long long db_calls_count(struct db *db, const struct db_filter *f, char **errstr)
{
	struct query q = {.n = 0};
	sqlite3_stmt *st;
	long long n = -1;

	buf_init(&q.sql, 0);
	buf_puts(&q.sql, "SELECT count(*) FROM call_index s WHERE 1");
	q_filter(&q, f);
	st = q_prepare(db, &q, errstr);
	buf_free(&q.sql);
	if (st == NULL)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	else
		db_fail(db, errstr, "cannot count calls");
	sqlite3_finalize(st);
	return n;
}

/* The row as a JSON object (tier as its name). Returns a new reference. */
static json_t *row_json(const struct db_call_row *r)
{
	json_t *o = json_pack("{s:I, s:I, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?,"
	                      " s:b, s:b, s:b}",
	                      "id", (json_int_t)r->id, "session", (json_int_t)r->session, "time",
	                      r->time, "mode", r->mode, "tool", r->tool, "name", r->name,
	                      "summary", r->summary, "tier",
	                      r->tier >= 0 && r->tier < TIER_COUNT ? tier_name((enum tier)r->tier)
	                                                           : NULL,
	                      "action", r->action, "decision", r->decision, "who", r->who,
	                      "finished", r->finished, "ran", r->ran, "previewed", r->previewed);
	json_t *rules = json_array();
	char *copy = xstrdup(r->rules), *save = NULL;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		json_array_append_new(rules, json_string(t));
	free(copy);
	json_object_set_new(o, "rules", rules);
	if (r->wait_ms >= 0)
		json_object_set_new(o, "wait_ms", json_integer(r->wait_ms));
	if (r->finished) {
		json_object_set_new(o, "exit_code", json_integer(r->exit_code));
		json_object_set_new(o, "signal", json_integer(r->signal));
		json_object_set_new(o, "duration_ms", json_integer(r->duration_ms));
	}
	return o;
}

static int row_to_json_cb(void *arg, const struct db_call_row *row)
{
	*(json_t **)arg = row_json(row);
	return 1;
}

/* The call_index row of one call as JSON; NULL when absent. */
static int call_summary_json(struct db *db, int64_t id, json_t **out, char **errstr)
{
	struct db_filter f;
	int n;

	db_filter_init(&f);
	*out = NULL;
	n = db_calls_page(db, &f, id + 1, DB_PAGE_OLDER, 1, row_to_json_cb, out, errstr);
	if (n > 0 && json_integer_value(json_object_get(*out, "id")) != id) {
		json_decref(*out);
		*out = NULL;
	}
	return n < 0 ? -1 : 0;
}

/* The session_start body of a session plus its id, or JSON null. */
static json_t *session_json(struct db *db, int64_t session)
{
	sqlite3_stmt *st = NULL;
	json_t *o = NULL;

	if (sqlite3_prepare_v2(db->sql, "SELECT body FROM events WHERE id = ? AND"
	                       " kind = 'session_start'", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, session);
		if (sqlite3_step(st) == SQLITE_ROW)
			o = json_loads(col_text(st, 0), 0, NULL);
	}
	sqlite3_finalize(st);
	if (o == NULL)
		return json_null();
	json_object_set_new(o, "id", json_integer(session));
	return o;
}

/* Appends {"id","kind","time","body"} for every event of a call; *session:
 * the session of its first event (0 when none). */
static int call_events(struct db *db, int64_t call, json_t *events, int64_t *session,
                       char **errstr)
{
	sqlite3_stmt *st = NULL;
	int step;

	*session = 0;
	if (sqlite3_prepare_v2(db->sql, "SELECT id, kind, time, body, session FROM events"
	                       " WHERE call = ? ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot read the call's events");
	sqlite3_bind_int64(st, 1, call);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (*session == 0)
			*session = sqlite3_column_int64(st, 4);
		json_t *body = json_loads(col_text(st, 3), 0, NULL);
		json_array_append_new(events, json_pack("{s:I, s:s, s:s, s:o}", "id",
		                                        (json_int_t)sqlite3_column_int64(st, 0),
		                                        "kind", col_text(st, 1), "time",
		                                        col_text(st, 2),
		                                        "body", body ? body : json_null()));
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : db_fail(db, errstr, "cannot read the call's events");
}

/* The last event of a kind among a call's events, or NULL. */
static json_t *last_event(json_t *events, const char *kind)
{
	json_t *ev, *found = NULL;
	const char *k;
	size_t i;

	json_array_foreach(events, i, ev) {
		k = json_string_value(json_object_get(ev, "kind"));
		if (k && strcmp(k, kind) == 0)
			found = ev;
	}
	return found;
}

/* body[key] as the index stores it: JSON null when missing. */
static json_t *field(json_t *ev, const char *key)
{
	json_t *v = json_object_get(json_object_get(ev, "body"), key);

	return v ? json_incref(v) : json_null();
}

/*
 * The call's summary fields as rebuilding the index from its chained
 * events gives them (db.c's derive_sql, in the shape of row_json()).
 * Returns a new object; NULL when the call has no received event.
 */
static json_t *call_from_events(int64_t id, int64_t session, json_t *mode, json_t *events)
{
	json_t *r = last_event(events, "received"), *c = last_event(events, "classified");
	json_t *d = last_event(events, "decided"), *f = last_event(events, "finished");
	json_t *o, *tool, *tier = c ? json_object_get(json_object_get(c, "body"), "tier") : NULL;
	json_t *rules = c ? json_object_get(json_object_get(c, "body"), "rules") : NULL;
	bool tier_ok = false;

	if (r == NULL)
		return NULL;
	for (int t = 0; t < TIER_COUNT && json_is_string(tier); t++)
		tier_ok |= strcmp(json_string_value(tier), tier_name((enum tier)t)) == 0;
	tool = json_object_get(json_object_get(r, "body"), "tool");
	o = json_pack("{s:I, s:I, s:O, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:b,"
	              " s:o}",
	              "id", (json_int_t)id, "session", (json_int_t)session, "time",
	              json_object_get(r, "time"), "mode", mode ? json_incref(mode) : json_null(),
	              "tool", tool ? json_incref(tool) : json_string("other"), "name",
	              field(r, "name"), "summary", field(r, "summary"), "tier",
	              tier_ok ? json_incref(tier) : json_null(), "action", field(d, "action"),
	              "decision", f ? field(f, "decision") : field(d, "decision"), "who",
	              field(d, "who"), "finished", f != NULL, "ran",
	              f && json_is_true(json_object_get(json_object_get(f, "body"), "ran")),
	              "previewed", last_event(events, "previewed") != NULL, "rules",
	              json_is_array(rules) ? json_incref(rules) : json_array());
	if (o && d && json_is_integer(json_object_get(json_object_get(d, "body"), "wait_ms")) &&
	    json_integer_value(json_object_get(json_object_get(d, "body"), "wait_ms")) >= 0)
		json_object_set_new(o, "wait_ms", field(d, "wait_ms"));
	if (o && f) {
		json_t *b = json_object_get(f, "body");
		json_t *ex = json_object_get(b, "exit_code"), *sg = json_object_get(b, "signal");
		json_t *du = json_object_get(b, "duration_ms");
		json_object_set_new(o, "exit_code",
		                    json_integer(json_is_integer(ex) ? json_integer_value(ex) : -1));
		json_object_set_new(o, "signal",
		                    json_integer(json_is_integer(sg) ? json_integer_value(sg) : 0));
		json_object_set_new(o, "duration_ms",
		                    json_integer(json_is_integer(du) ? json_integer_value(du) : -1));
	}
	return o;
}

/*
 * {"ok", "broken", "events": [first, last], "error"}: db_verify_range()
 * over the events of detail, and over its session's start event (the user,
 * host, cwd and mode shown beside the call), and the call's summary fields
 * (from the derived index, which no hash covers) against the same fields
 * rebuilt from those events: an edited index row used to show a call
 * that ran as denied, under "integrity: ok".
 */
static json_t *call_integrity(struct db *db, json_t *detail)
{
	json_t *events = json_object_get(detail, "events"), *ev, *in, *sess, *want;
	int64_t first = INT64_MAX, last = 0, id, session = 0;
	char *err = NULL;
	size_t i;
	int rc;

	json_array_foreach(events, i, ev) {
		id = json_integer_value(json_object_get(ev, "id"));
		first = id < first ? id : first;
		last = id > last ? id : last;
	}
	/* an index row with no event of its call: prune removes a call's row
	 * with its events, so the row was added by hand (or the events cut);
	 * `show` of it exited 0 under "NOT CONFIRMED" */
	if (last == 0) {
		err = xstrdup("the call index lists this call, but the chain holds none of its"
		              " events: the row was added or its events removed; `airlock audit"
		              " reindex` rebuilds the index from the chain");
		rc = 1;
	} else {
		rc = db_verify_range(db, first, last, &err);
	}
	sess = json_object_get(detail, "session");
	if (json_is_object(sess))
		session = json_integer_value(json_object_get(sess, "id"));
	if (rc == 0 && session > 0 && (rc = db_verify_range(db, session, session, &err)) != 0) {
		char *why = err;
		err = xasprintf("the session's start (event %lld): %s", (long long)session, why);
		free(why);
	}
	if (rc == 0) {
		/* a session whose start was pruned: the index's mode is all there is */
		want = call_from_events(json_integer_value(json_object_get(detail, "id")), session,
		                        json_is_object(sess) ? json_object_get(sess, "mode")
		                                             : json_object_get(json_object_get(detail,
		                                                                               "call"),
		                                                               "mode"),
		                        events);
		if (want == NULL || !json_equal(want, json_object_get(detail, "call"))) {
			err = xstrdup("the call index's row (the call block, what lists and the"
			              " browser show) differs from the call's events: edited;"
			              " `airlock audit reindex` rebuilds it from the chain");
			rc = 1;
		}
		json_decref(want);
	}
	in = json_pack("{s:b, s:b, s:[I,I]}", "ok", rc == 0, "broken", rc == 1 || rc < 0,
	               "events", (json_int_t)(last ? first : 0), (json_int_t)last);
	if (rc != 0)
		json_object_set_new(in, "error", json_string(err ? err : "not checked"));
	free(err);
	return in;
}

int db_call_detail(struct db *db, int64_t call_id, json_t **detail, char **errstr)
{
	json_t *call = NULL, *events = json_array();
	int64_t session;
	int rc = -1;

	*detail = NULL;
	if (call_summary_json(db, call_id, &call, errstr) < 0 ||
	    call_events(db, call_id, events, &session, errstr) < 0)
		goto out;
	if (call == NULL && json_array_size(events) == 0) {
		*errstr = xasprintf("no call %lld in the audit log", (long long)call_id);
		rc = 1;
		goto out;
	}
	/* the session as the chained events name it, not as the index does */
	if (session == 0)
		session = json_integer_value(json_object_get(call, "session"));
	*detail = json_pack("{s:o, s:o, s:O, s:I}", "call", call ? call : json_null(), "session",
	                    session_json(db, session), "events", events, "id",
	                    (json_int_t)call_id);
	call = NULL;
	json_object_set_new(*detail, "integrity", call_integrity(db, *detail));
	json_object_del(*detail, "id");
	rc = 0;
out:
	json_decref(call);
	json_decref(events);
	return rc;
}

/* ---- export ---- */

struct export_state {
	json_t *cur;
	int64_t cur_id;
	int (*cb)(void *arg, json_t *call);
	void *arg;
	int stop;
};

static int export_flush(struct export_state *x)
{
	if (x->cur && x->stop == 0)
		x->stop = x->cb(x->arg, x->cur);
	json_decref(x->cur);
	x->cur = NULL;
	return x->stop;
}

int db_export_calls(struct db *db, const struct db_filter *f,
                    int (*cb)(void *arg, json_t *call), void *arg, char **errstr)
{
	struct query q = {.n = 0};
	struct export_state x = {.cb = cb, .arg = arg};
	struct db_call_row row;
	sqlite3_stmt *st;
	int step, rc = -1;

	buf_init(&q.sql, 0);
	buf_puts(&q.sql, "SELECT " ROW_COLUMNS ", e.kind, e.body FROM call_index s"
	                 " JOIN events e ON e.call = s.id WHERE 1");
	q_filter(&q, f);
	buf_puts(&q.sql, " ORDER BY s.id, e.id");
	st = q_prepare(db, &q, errstr);
	buf_free(&q.sql);
	if (st == NULL)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *body;
		row_read(st, &row);
		if (x.cur == NULL || row.id != x.cur_id) {
			if (export_flush(&x))
				break;
			x.cur = row_json(&row);
			x.cur_id = row.id;
			json_object_set_new(x.cur, "events", json_object());
		}
		body = json_loads(col_text(st, 20), 0, NULL);
		json_object_set_new(json_object_get(x.cur, "events"), col_text(st, 19),
		                    body ? body : json_null());
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		db_fail(db, errstr, "cannot export calls");
	else
		rc = 0;
	export_flush(&x);
	sqlite3_finalize(st);
	return rc;
}

/* ---- stats ---- */

/*
 * Each query reads the filtered calls as `f` and yields (key, value) rows;
 * they become {key: value} or, as_list, [[key, value], ...].
 */
static const struct {
	const char *name, *sql;
	bool as_list;
} stats_queries[] = {
	{"total", "SELECT 'calls', count(*) FROM f UNION ALL SELECT 'sessions',"
	          " count(DISTINCT session) FROM f", false},
	{"by_tier", "SELECT CASE tier WHEN 0 THEN 'low' WHEN 1 THEN 'medium' WHEN 2 THEN 'high'"
	            " WHEN 3 THEN 'critical' END, count(*) FROM f GROUP BY tier ORDER BY tier",
	 false},
	{"by_decision", "SELECT ifnull(decision, 'none'), count(*) FROM f GROUP BY decision"
	                " ORDER BY 2 DESC", false},
	{"by_tool", "SELECT tool, count(*) FROM f GROUP BY tool ORDER BY 2 DESC", false},
	{"by_rule", "SELECT r.rule, count(*) FROM call_rules r JOIN f ON f.id = r.call"
	            " GROUP BY r.rule ORDER BY 2 DESC, 1 LIMIT 20", true},
	{"top_denied", "SELECT summary, count(*) FROM f WHERE decision = 'denied'"
	               " GROUP BY summary ORDER BY 2 DESC, 1 LIMIT 10", true},
	{"waits", "SELECT 'count', count(*) FROM f WHERE who = 'user'"
	          " UNION ALL SELECT 'mean_ms', CAST(avg(wait_ms) AS INTEGER) FROM f WHERE who = 'user'"
	          " UNION ALL SELECT 'p50_ms', (SELECT wait_ms FROM f WHERE who = 'user' ORDER BY"
	          " wait_ms LIMIT 1 OFFSET (SELECT count(*) / 2 FROM f WHERE who = 'user'))"
	          " UNION ALL SELECT 'p90_ms', (SELECT wait_ms FROM f WHERE who = 'user' ORDER BY"
	          " wait_ms LIMIT 1 OFFSET (SELECT count(*) * 9 / 10 FROM f WHERE who = 'user'))"
	          " UNION ALL SELECT 'max_ms', max(wait_ms) FROM f WHERE who = 'user'", false},
};

static int stats_one(struct db *db, const struct db_filter *f, size_t k, json_t *out,
                     char **errstr)
{
	struct query q = {.n = 0};
	sqlite3_stmt *st;
	json_t *val = stats_queries[k].as_list ? json_array() : json_object();
	int step;

	buf_init(&q.sql, 0);
	buf_puts(&q.sql, "WITH f AS MATERIALIZED (SELECT * FROM call_index s WHERE 1");
	q_filter(&q, f);
	buf_printf(&q.sql, ") %s", stats_queries[k].sql);
	st = q_prepare(db, &q, errstr);
	buf_free(&q.sql);
	json_object_set_new(out, stats_queries[k].name, val);
	if (st == NULL)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = col_text(st, 0) ? col_text(st, 0) : "none";
		json_t *n = sqlite3_column_type(st, 1) == SQLITE_NULL
		          ? json_null() : json_integer(sqlite3_column_int64(st, 1));
		if (stats_queries[k].as_list)
			json_array_append_new(val, json_pack("[s,o]", key, n));
		else
			json_object_set_new(val, key, n);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : db_fail(db, errstr, "cannot compute statistics");
}

int db_stats(struct db *db, const struct db_filter *f, json_t **stats, char **errstr)
{
	json_t *out = json_object();

	*stats = NULL;
	for (size_t k = 0; k < nitems(stats_queries); k++) {
		if (stats_one(db, f, k, out, errstr) < 0) {
			json_decref(out);
			return -1;
		}
	}
	*stats = out;
	return 0;
}

/* ---- the foundation's list ---- */

struct list_state {
	FILE *f;
	int64_t last;
};

static int list_cb(void *arg, const struct db_call_row *r)
{
	struct list_state *ls = arg;

	fprintf(ls->f, "%6lld  %s  %-10s %-8s %-8s %s\n", (long long)r->id, r->time, r->tool,
	        r->tier >= 0 && r->tier < TIER_COUNT ? tier_name((enum tier)r->tier) : "-",
	        r->decision ? r->decision : "-", r->summary ? r->summary : "");
	ls->last = r->id;
	return 0;
}

int db_list(struct db *db, FILE *f, char **errstr)
{
	struct list_state ls = {.f = f};
	int n;

	/* Oldest first, a page at a time: never the whole log in memory. */
	do
		n = db_calls_page(db, NULL, ls.last, DB_PAGE_NEWER, 1000, list_cb, &ls, errstr);
	while (n == 1000);
	return n < 0 ? -1 : 0;
}
