/*
 * record.c: what the gate records: sessions and the events of each call,
 * each in one chained transaction together with the derived rows
 * (sessions, call_index, call_rules) the browser reads.
 * Rules it keeps: bodies are redacted before they are hashed or stored;
 * every failure returns -1 with the reason, so the caller refuses the call.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/encode.h"
#include "core/util.h"
#include "db/db_internal.h"

/* Updates derived rows inside the transaction; ids[i] is event i's id. */
typedef int (*derive_fn)(struct db *db, struct chain_tx *tx, const int64_t *ids,
                         json_t **bodies, void *arg, char **errstr);

/*
 * Appends n events in one transaction. call: 0 = session event, -1 = the
 * first event starts a call. Takes ownership of bodies; a NULL body means
 * encoding failed. Sets *first_id.
 */
static int record(struct db *db, size_t n, const char *const *kinds, json_t **bodies,
                  int64_t call, derive_fn derive, void *arg, int64_t *first_id, char **errstr)
{
	struct chain_tx tx;
	char *text[4] = {NULL};
	int64_t ids[4] = {0};
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		if (bodies[i] == NULL) {
			*errstr = xasprintf("cannot encode the %s event for the audit log", kinds[i]);
			goto out;
		}
		if (db->redact) {
			/* A copy: the caller's call input must stay as the agent sent it. */
			json_t *clean = redact_json(bodies[i], db->secrets);
			json_decref(bodies[i]);
			bodies[i] = clean;
		}
		/* jansson out of memory: refuse, never store or hash a NULL body */
		if (bodies[i] == NULL ||
		    (text[i] = json_dumps(bodies[i], JSON_COMPACT | JSON_SORT_KEYS)) == NULL) {
			*errstr = xasprintf("cannot encode the %s event for the audit log (out of"
			                    " memory)", kinds[i]);
			goto out;
		}
	}
	if (chain_begin(db, &tx, errstr) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (chain_add(db, &tx, db->session, call, kinds[i], text[i], &ids[i], errstr) < 0)
			goto rollback;
		if (i == 0 && call < 0)
			call = ids[0];
	}
	if ((derive && derive(db, &tx, ids, bodies, arg, errstr) < 0) ||
	    chain_commit(db, &tx, errstr) < 0)
		goto rollback;
	db->session_events += (long long)n;
	if (first_id)
		*first_id = ids[0];
	rc = 0;
	goto out;
rollback:
	chain_rollback(db);
out:
	for (size_t i = 0; i < n; i++) {
		json_decref(bodies[i]);
		free(text[i]);
	}
	return rc;
}

/* Free text as a JSON string, repaired to UTF-8 (a reason typed at the
 * approval screen, a cut summary, a cwd); JSON null for NULL. */
static json_t *text(const char *s)
{
	return s ? encode_bytes(s, strlen(s)) : json_null();
}

static int step_done(struct db *db, sqlite3_stmt *st, const char *what, char **errstr)
{
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(db, errstr, what);

	sqlite3_reset(st);
	return rc;
}

static const char *jstr(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static int derive_session(struct db *db, struct chain_tx *tx, const int64_t *ids,
                          json_t **bodies, void *arg, char **errstr)
{
	sqlite3_stmt *st = db_stmt(db, ST_SES_INSERT, errstr);
	const bool *watched = arg;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, ids[0]);
	sqlite3_bind_text(st, 2, tx->first_time, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, jstr(bodies[0], "mode"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, *watched);
	sqlite3_bind_text(st, 5, jstr(bodies[0], "user"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, jstr(bodies[0], "host"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, jstr(bodies[0], "cwd"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, jstr(bodies[0], "agent"), -1, SQLITE_TRANSIENT);
	return step_done(db, st, "cannot record the session", errstr);
}

int db_session_begin(struct db *db, const struct db_session_info *info, char **errstr)
{
	char host[256] = "";
	struct passwd *pw = getpwuid(getuid());
	const char *kinds[] = {"session_start"};
	bool watched = info->watched || (info->mode && strcmp(info->mode, "watch") == 0);
	json_t *body[1];
	int64_t id = 0;

	gethostname(host, sizeof(host) - 1);
	body[0] = json_pack("{s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:I, s:b}", "cwd", text(info->cwd),
	                    "agent", text(info->agent), "user", text(pw ? pw->pw_name : "?"),
	                    "host", text(host), "mode", text(info->mode), "version",
	                    AIRLOCK_VERSION, "policy_sha256", text(info->policy_digest), "pid",
	                    (json_int_t)getpid(), "watched", watched);
	db->session = 0;
	if (record(db, 1, kinds, body, 0, derive_session, &watched, &id, errstr) < 0)
		return -1;
	db->session = id;
	free(db->mode);
	db->mode = xstrdup(info->mode);
	db->session_calls = 0;
	db->session_events = 1;
	db->session_rejected = 0;
	return 0;
}

static int derive_session_end(struct db *db, struct chain_tx *tx, const int64_t *ids,
                              json_t **bodies, void *arg, char **errstr)
{
	sqlite3_stmt *st = db_stmt(db, ST_SES_END, errstr);

	(void)tx, (void)bodies, (void)arg;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, ids[0]);
	sqlite3_bind_int64(st, 2, db->session);
	return step_done(db, st, "cannot record the session's end", errstr);
}

int db_session_end(struct db *db, char **errstr)
{
	const char *kinds[] = {"session_end"};
	json_t *body[1];

	if (db->session == 0)
		return 0;
	body[0] = json_pack("{s:I, s:I, s:I}", "calls", (json_int_t)db->session_calls, "events",
	                    (json_int_t)db->session_events + 1, "rejected",
	                    (json_int_t)db->session_rejected);
	if (record(db, 1, kinds, body, 0, derive_session_end, NULL, NULL, errstr) < 0)
		return -1;
	db->session = 0;
	return 0;
}

/* Rejected lines kept whole per session: a stream of garbage is counted,
 * not stored line by line. */
#define REJECTED_KEPT 100
#define REJECTED_HEAD 256 /* bytes of a rejected line kept */

static json_t *stream_json(const char *s, size_t n, bool cut);

int db_input_rejected(struct db *db, size_t lineno, const char *why, const char *line,
                      size_t len, char **errstr)
{
	const char *kinds[] = {"rejected"};
	json_t *body[1];

	if (db->session == 0 || db->session_rejected++ >= REJECTED_KEPT)
		return 0;
	/* The head may end inside a token cut too short for any shape (20 of a
	 * GitHub token's 40 characters were stored): its last word goes, as
	 * for an output the capture cap cut. */
	body[0] = json_pack("{s:I, s:o, s:I, s:o}", "line", (json_int_t)lineno, "error", text(why),
	                    "bytes", (json_int_t)len, "head",
	                    line ? stream_json(line, len < REJECTED_HEAD ? len : REJECTED_HEAD,
	                                       db->redact && len > REJECTED_HEAD)
	                         : json_null());
	return record(db, 1, kinds, body, 0, NULL, NULL, NULL, errstr);
}

static int derive_received(struct db *db, struct chain_tx *tx, const int64_t *ids,
                           json_t **bodies, void *arg, char **errstr)
{
	const struct verdict *v = arg;
	sqlite3_stmt *st = db_stmt(db, ST_SUM_INSERT, errstr);
	json_t *rules = json_object_get(bodies[1], "rules"), *r;
	struct buf joined;
	size_t i;
	int rc;

	if (st == NULL)
		return -1;
	buf_init(&joined, 0);
	json_array_foreach(rules, i, r) buf_printf(&joined, "%s%s", i ? " " : "", json_string_value(r));
	sqlite3_bind_int64(st, 1, ids[0]);
	sqlite3_bind_int64(st, 2, db->session);
	sqlite3_bind_text(st, 3, tx->first_time, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, db->mode, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, jstr(bodies[0], "tool"), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, jstr(bodies[0], "name"), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, jstr(bodies[0], "summary"), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 8, (int)v->tier);
	sqlite3_bind_text(st, 9, joined.data ? joined.data : "", -1, SQLITE_TRANSIENT);
	buf_free(&joined);
	if ((rc = step_done(db, st, "cannot index the call", errstr)) < 0)
		return -1;
	json_array_foreach(rules, i, r) {
		if ((st = db_stmt(db, ST_RULE_INSERT, errstr)) == NULL)
			return -1;
		sqlite3_bind_text(st, 1, json_string_value(r), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, ids[0]);
		if (step_done(db, st, "cannot index the call's rules", errstr) < 0)
			return -1;
	}
	return 0;
}

/* The received event's body: the call as decoded. */
static json_t *received_body(const struct call *c, const char *summary)
{
	return json_pack("{s:O, s:s, s:o, s:s, s:O, s:I, s:o, s:o}", "id",
	                 c->id ? c->id : json_null(), "tool", tool_name(c->tool), "name",
	                 text(c->name ? c->name : ""), "shape", shape_name(c->shape), "input",
	                 c->input ? c->input : json_null(), "line", (json_int_t)c->line,
	                 "summary", text(summary), "cwd", text(c->cwd));
}

/*
 * The call's one-line summary as stored: redacted before the 200-byte cut,
 * not only after it. A token the cut split was stored in the summary (and
 * the call index) by its first characters, too short for any shape, while
 * the full command was redacted. Returns a new string; caller frees.
 */
static char *stored_summary(struct db *db, const struct call *c)
{
	const char *subject = call_subject(c);
	char *clean = db->redact ? redact_text(subject, strlen(subject), db->secrets, NULL) : NULL;
	char *summary = encode_escape(clean ? clean : subject, 200);

	free(clean);
	return summary;
}

int db_call_received(struct db *db, const struct call *c, const struct verdict *v,
                     int64_t *call_id, char **errstr)
{
	const char *kinds[] = {"received", "classified"};
	char *summary = stored_summary(db, c);
	json_t *bodies[2];
	int rc;

	bodies[0] = received_body(c, summary);
	bodies[1] = encode_verdict_full(v);
	free(summary);
	rc = record(db, 2, kinds, bodies, -1, derive_received, (void *)v, call_id, errstr);
	if (rc == 0)
		db->session_calls++;
	return rc;
}

/* Derived-row updates of the later events: one statement, binds from arg. */
struct derive_update {
	enum db_stmt which;
	int64_t call;
	const char *text[3];   /* bound first, in order; NULL binds NULL */
	size_t ntext;
	long long num[5];      /* then these */
	bool num_null[5];
	size_t nnum;
};

static int derive_update(struct db *db, struct chain_tx *tx, const int64_t *ids,
                         json_t **bodies, void *arg, char **errstr)
{
	const struct derive_update *u = arg;
	sqlite3_stmt *st = db_stmt(db, u->which, errstr);
	int k = 1;

	(void)tx, (void)ids, (void)bodies;
	if (st == NULL)
		return -1;
	for (size_t i = 0; i < u->ntext; i++, k++)
		if (u->text[i])
			sqlite3_bind_text(st, k, u->text[i], -1, SQLITE_STATIC);
	for (size_t i = 0; i < u->nnum; i++, k++)
		if (!u->num_null[i])
			sqlite3_bind_int64(st, k, u->num[i]);
	sqlite3_bind_int64(st, k, u->call);
	return step_done(db, st, "cannot index the call", errstr);
}

/* The decided event's body and its index update. */
static json_t *decided_body(const struct db_decision *d, struct derive_update *u)
{
	*u = (struct derive_update){.which = ST_SUM_DECIDED, .ntext = 3,
	                            .text = {action_name(d->action), decision_name(d->decision),
	                                     d->who ? d->who : "?"},
	                            .nnum = 1, .num = {d->wait_ms}};
	json_t *b = json_pack("{s:s, s:s, s:o, s:o, s:I}", "action", action_name(d->action),
	                      "decision", decision_name(d->decision), "who",
	                      text(d->who ? d->who : "?"), "reason", text(d->reason), "wait_ms",
	                      (json_int_t)d->wait_ms);

	/* which rule or tier made the action: an approved critical call
	 * named no ask-critical rule, an auto one no allow rule */
	if (b && d->policy)
		json_object_set_new(b, "policy", text(d->policy));
	return b;
}

int db_call_decided(struct db *db, int64_t call_id, const struct db_decision *d,
                    char **errstr)
{
	const char *kinds[] = {"decided"};
	struct derive_update u;
	json_t *body[] = {decided_body(d, &u)};

	u.call = call_id;
	return record(db, 1, kinds, body, call_id, derive_update, &u, NULL, errstr);
}

int db_call_previewed(struct db *db, int64_t call_id, const char *preview, char **errstr)
{
	const char *kinds[] = {"previewed"};
	json_t *body[] = {json_pack("{s:o}", "preview",
	                            encode_bytes(preview, preview ? strlen(preview) : 0))};
	struct derive_update u = {.which = ST_SUM_PREVIEWED, .call = call_id};

	return record(db, 1, kinds, body, call_id, derive_update, &u, NULL, errstr);
}

/*
 * A captured stream as stored. When the capture cap cut the output, its
 * last word may be a secret cut short, too short for any shape to know
 * (29 of a GitHub token's 36 characters were stored in clear): with
 * redaction on, that partial word (at most CUT_WORD_MAX bytes) is replaced
 * by a marker. A stream that ends in white space keeps everything.
 */
static json_t *stream_json(const char *s, size_t n, bool cut)
{
	size_t keep = cut ? cut_word_start(s, n) : n;
	struct buf b;
	json_t *j;

	if (keep == n)
		return encode_bytes(s, n);
	buf_init(&b, 0);
	buf_append(&b, s, keep);
	buf_puts(&b, "[REDACTED:cut-word]");
	j = encode_bytes(b.data, b.len);
	buf_free(&b);
	return j;
}

/* The finished event's body and its index update; cut: see stream_json. */
static json_t *finished_body(const struct outcome *o, bool cut, struct derive_update *u)
{
	*u = (struct derive_update){.which = ST_SUM_FINISHED, .ntext = 1,
	                            .text = {decision_name(o->decision)}, .nnum = 4,
	                            .num = {o->ran, o->exit_code, o->signal, o->duration_ms}};
	cut = cut && o->truncated;
	return json_pack(
		"{s:s, s:b, s:i, s:i, s:o, s:o, s:b, s:b, s:I, s:I, s:I, s:o, s:o}", "decision",
		decision_name(o->decision), "ran", o->ran, "exit_code", o->exit_code, "signal",
		o->signal, "stdout", stream_json(o->out, o->outlen, cut), "stderr",
		stream_json(o->err, o->errlen, cut), "truncated", o->truncated, "timed_out",
		o->timed_out, "duration_ms", (json_int_t)o->duration_ms, "cpu_ms",
		(json_int_t)o->cpu_ms, "peak_kb", (json_int_t)o->peak_kb, "applied", text(o->applied),
		"reason", text(o->reason));
}

static int record_finished(struct db *db, int64_t call_id, const struct outcome *o,
                           char **errstr)
{
	const char *kinds[] = {"finished"};
	struct derive_update u;
	json_t *body[] = {finished_body(o, db->redact, &u)};

	u.call = call_id;
	return record(db, 1, kinds, body, call_id, derive_update, &u, NULL, errstr);
}

/*
 * The call has run by now. On a disk too full for its output (600 KB on a
 * nearly full log), its outcome was left out of the log whole while the
 * small events of later calls went in: the log never said it ran. It is
 * recorded again without the output, the reason saying so.
 */
int db_call_finished(struct db *db, int64_t call_id, const struct outcome *o, char **errstr)
{
	struct outcome bare;
	char *first = NULL;
	int rc;

	db->fail_code = SQLITE_OK;
	rc = record_finished(db, call_id, o, &first);
	if (rc == 0 || db->fail_code != SQLITE_FULL || o->outlen + o->errlen == 0) {
		*errstr = first;
		return rc;
	}
	bare = *o;
	bare.out = bare.err = NULL;
	bare.outlen = bare.errlen = 0;
	bare.reason = xasprintf("%s%sits output (%zu bytes) was not recorded: %s",
	                        o->reason ? o->reason : "", o->reason ? "; " : "",
	                        o->outlen + o->errlen, first);
	rc = record_finished(db, call_id, &bare, errstr);
	free(bare.reason);
	free(first);
	return rc;
}

/* What db_call_begin() derives: the call's index row, then its updates. */
struct derive_begin {
	const struct verdict *v;
	struct derive_update decided, finished;
	bool has_finished;
};

static int derive_begin(struct db *db, struct chain_tx *tx, const int64_t *ids,
                        json_t **bodies, void *arg, char **errstr)
{
	struct derive_begin *b = arg;

	if (derive_received(db, tx, ids, bodies, (void *)b->v, errstr) < 0)
		return -1;
	b->decided.call = b->finished.call = ids[0];
	if (derive_update(db, tx, ids, bodies, &b->decided, errstr) < 0)
		return -1;
	return b->has_finished ? derive_update(db, tx, ids, bodies, &b->finished, errstr) : 0;
}

int db_call_begin(struct db *db, const struct call *c, const struct verdict *v,
                  const struct db_decision *d, const struct outcome *o, int64_t *call_id,
                  char **errstr)
{
	const char *kinds[] = {"received", "classified", "decided", "finished"};
	struct derive_begin b = {.v = v, .has_finished = o != NULL};
	char *summary = stored_summary(db, c);
	json_t *bodies[4];
	int rc;

	bodies[0] = received_body(c, summary);
	bodies[1] = encode_verdict_full(v);
	bodies[2] = decided_body(d, &b.decided);
	bodies[3] = o ? finished_body(o, db->redact, &b.finished) : NULL;
	free(summary);
	rc = record(db, o ? 4 : 3, kinds, bodies, -1, derive_begin, &b, call_id, errstr);
	if (rc == 0)
		db->session_calls++;
	return rc;
}
