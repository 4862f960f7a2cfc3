/*
 * chain.c: the hash chain. Each event's hash is SHA-256(previous hash ||
 * canonical bytes); the head anchor (table chain_head) holds the last id and
 * hash and moves in the same transaction as every append.
 * Rules it keeps:
 *  - every append is one BEGIN IMMEDIATE transaction, so concurrent writers
 *    keep the chain linear;
 *  - an append refuses to extend a chain whose tail does not match the head
 *    anchor (deleted or forged tail), so tampering is never laundered;
 *  - prune verifies first and leaves an anchor that is itself a chained event.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/encode.h"
#include "core/lazy.h"
#include "core/util.h"
#include "db/db_internal.h"

/* v1 bytes: the JSON array [id, session, call|null, kind, time, body]. */
static char *canonical_json(int64_t id, int64_t session, int64_t call, const char *kind,
                            const char *time, const char *body)
{
	json_t *a = json_pack("[I,I,o,s,s,s]", (json_int_t)id, (json_int_t)session,
	                      call ? json_integer(call) : json_null(), kind, time, body);
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

static void put_be(unsigned char *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

/* One event as the chain sees it. */
struct chain_event {
	int64_t id, session, call; /* call 0 = none */
	const char *kind, *time, *body;
	size_t kindlen, timelen, bodylen;
	int fmt;
};

/*
 * hash = SHA-256(prev || canonical). v2 canonical bytes: the format byte,
 * id, session and call as 8-byte big-endian, then kind, time and body each
 * as a 4-byte big-endian length and the bytes. Returns 0, -1 on a libcrypto
 * failure, or 1 when a v1 event has no v1 bytes (text that is not UTF-8,
 * which the v1 writer never stored: an edit, to be named as one).
 */
static int chain_hash(struct db *db, const unsigned char *prev, const struct chain_event *e,
                      unsigned char *out, char **errstr)
{
	const struct lazy_crypto *c = lazy_crypto(errstr);
	unsigned char head[25], len[3][4];
	unsigned int n = 0;
	char *canon = NULL;
	int ok;

	if (c == NULL)
		return -1;
	if (e->fmt == DB_FMT_JSON &&
	    (canon = canonical_json(e->id, e->session, e->call, e->kind, e->time, e->body)) == NULL) {
		*errstr = xasprintf("event %lld was edited: its text is not valid UTF-8, which"
		                    " format 1 cannot hold", (long long)e->id);
		return 1;
	}
	if (db->md == NULL && (db->md = c->EVP_MD_CTX_new()) == NULL) {
		*errstr = xstrdup("SHA-256: cannot allocate a digest context");
		return -1;
	}
	/* After the first init the context keeps its digest: passing NULL reuses
	 * it and skips OpenSSL 3's per-call implicit fetch (a third of verify). */
	ok = c->EVP_DigestInit_ex(db->md, db->md_ready ? NULL : c->EVP_sha256(), NULL) == 1 &&
	     c->EVP_DigestUpdate(db->md, prev, DB_HASH_LEN) == 1;
	if (e->fmt == DB_FMT_JSON) {
		ok = ok && c->EVP_DigestUpdate(db->md, canon, strlen(canon)) == 1;
	} else {
		head[0] = DB_FMT_BINARY;
		put_be(head + 1, (uint64_t)e->id, 8);
		put_be(head + 9, (uint64_t)e->session, 8);
		put_be(head + 17, (uint64_t)e->call, 8);
		put_be(len[0], e->kindlen, 4);
		put_be(len[1], e->timelen, 4);
		put_be(len[2], e->bodylen, 4);
		ok = ok && c->EVP_DigestUpdate(db->md, head, sizeof(head)) == 1 &&
		     c->EVP_DigestUpdate(db->md, len[0], 4) == 1 &&
		     c->EVP_DigestUpdate(db->md, e->kind, e->kindlen) == 1 &&
		     c->EVP_DigestUpdate(db->md, len[1], 4) == 1 &&
		     c->EVP_DigestUpdate(db->md, e->time, e->timelen) == 1 &&
		     c->EVP_DigestUpdate(db->md, len[2], 4) == 1 &&
		     c->EVP_DigestUpdate(db->md, e->body, e->bodylen) == 1;
	}
	ok = ok && c->EVP_DigestFinal_ex(db->md, out, &n) == 1 && n == DB_HASH_LEN;
	db->md_ready = ok;
	free(canon);
	if (!ok)
		*errstr = xstrdup("SHA-256 failed (libcrypto)");
	return ok ? 0 : -1;
}

void chain_hex(const unsigned char *hash, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < DB_HASH_LEN; i++) {
		out[2 * i] = digits[hash[i] >> 4];
		out[2 * i + 1] = digits[hash[i] & 15];
	}
	out[2 * DB_HASH_LEN] = '\0';
}

static void now_iso(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;
	char base[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

/* Reads one (id, hash) row from a cached statement; absent row = 0/zeros. */
static int read_id_hash(struct db *db, enum db_stmt which, int64_t *id, unsigned char *hash,
                        bool *found, char **errstr)
{
	sqlite3_stmt *st = db_stmt(db, which, errstr);
	int step;

	*id = 0;
	*found = false;
	memset(hash, 0, DB_HASH_LEN);
	if (st == NULL)
		return -1;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*found = true;
		*id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_bytes(st, 1) == DB_HASH_LEN)
			memcpy(hash, sqlite3_column_blob(st, 1), DB_HASH_LEN);
	}
	sqlite3_reset(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return db_fail(db, errstr, "cannot read the chain's tail");
	return 0;
}

int chain_begin(struct db *db, struct chain_tx *tx, char **errstr)
{
	unsigned char head[DB_HASH_LEN];
	int64_t head_id;
	bool found, head_found;

	tx->added = 0;
	if (db_check_file(db, errstr) < 0)
		return -1;
	if (sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot begin a write transaction");
	if (read_id_hash(db, ST_TAIL, &tx->id, tx->hash, &found, errstr) < 0 ||
	    read_id_hash(db, ST_HEAD_GET, &head_id, head, &head_found, errstr) < 0)
		goto fail;
	if (!head_found || head_id != tx->id || memcmp(head, tx->hash, DB_HASH_LEN) != 0) {
		*errstr = xasprintf("audit log %s: the last event (%lld) does not match the head"
		                    " anchor (%lld): events were removed or added outside airlock;"
		                    " run `airlock audit verify` and keep the file as evidence",
		                    db->path, (long long)tx->id, (long long)head_id);
		goto fail;
	}
	return 0;
fail:
	chain_rollback(db);
	return -1;
}

int chain_add(struct db *db, struct chain_tx *tx, int64_t session, int64_t call,
              const char *kind, const char *body, int64_t *id, char **errstr)
{
	struct chain_event e = {.id = tx->id + 1, .session = session, .call = call,
	                        .kind = kind, .body = body, .fmt = DB_FMT_BINARY};
	unsigned char hash[DB_HASH_LEN];
	sqlite3_stmt *st;

	if (body == NULL || kind == NULL) {
		*errstr = xasprintf("audit log %s: the %s event has no body (it could not be"
		                    " encoded); the call is refused", db->path, kind ? kind : "?");
		return -1;
	}
	now_iso(tx->time, sizeof(tx->time));
	if (tx->added++ == 0)
		memcpy(tx->first_time, tx->time, sizeof(tx->time));
	if (e.session == 0 && strcmp(kind, "session_start") == 0)
		e.session = e.id;
	if (e.call < 0)
		e.call = e.id;
	e.time = tx->time;
	e.kindlen = strlen(kind);
	e.timelen = strlen(tx->time);
	e.bodylen = strlen(body);
	if (chain_hash(db, tx->hash, &e, hash, errstr) != 0 ||
	    (st = db_stmt(db, ST_INSERT, errstr)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, e.id);
	sqlite3_bind_int64(st, 2, e.session);
	if (e.call)
		sqlite3_bind_int64(st, 3, e.call);
	sqlite3_bind_text(st, 4, kind, (int)e.kindlen, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, e.time, (int)e.timelen, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, body, (int)e.bodylen, SQLITE_STATIC);
	sqlite3_bind_blob(st, 7, hash, DB_HASH_LEN, SQLITE_STATIC);
	sqlite3_bind_int(st, 8, DB_FMT_BINARY);
	if (sqlite3_step(st) != SQLITE_DONE || sqlite3_changes(db->sql) != 1) {
		db_fail(db, errstr, "cannot append an event");
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	tx->id = e.id;
	memcpy(tx->hash, hash, DB_HASH_LEN);
	if (id)
		*id = e.id;
	return 0;
}

int chain_commit(struct db *db, struct chain_tx *tx, char **errstr)
{
	sqlite3_stmt *st = db_stmt(db, ST_HEAD_SET, errstr);

	if (st == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, tx->id);
	sqlite3_bind_blob(st, 2, tx->hash, DB_HASH_LEN, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE || sqlite3_changes(db->sql) != 1) {
		sqlite3_reset(st);
		db_fail(db, errstr, "cannot move the head anchor");
		goto fail;
	}
	sqlite3_reset(st);
	if (sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot commit");
		goto fail;
	}
	return 0;
fail:
	chain_rollback(db);
	return -1;
}

void chain_rollback(struct db *db)
{
	if (!sqlite3_get_autocommit(db->sql))
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- verify ---- */

/* The newest prune anchor, if any. */
struct anchor {
	int64_t through;
	unsigned char hash[DB_HASH_LEN];
	bool found;
};

static int anchor_load(struct db *db, struct anchor *a, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int step, rc = -1;

	memset(a, 0, sizeof(*a));
	if (sqlite3_prepare_v2(db->sql, "SELECT through, hash FROM anchors ORDER BY through DESC"
	                       " LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot read prune anchors");
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		a->found = true;
		a->through = sqlite3_column_int64(st, 0);
		if (sqlite3_column_bytes(st, 1) == DB_HASH_LEN)
			memcpy(a->hash, sqlite3_column_blob(st, 1), DB_HASH_LEN);
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		db_fail(db, errstr, "cannot read prune anchors");
	else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

/* Checks that a "pruned" event's body names the anchor verify started from. */
static bool pruned_matches(const char *body, const struct anchor *a)
{
	json_t *j = json_loads(body, 0, NULL);
	const char *hex = json_string_value(json_object_get(j, "hash"));
	char want[65];
	bool ok;

	chain_hex(a->hash, want);
	ok = a->found && json_integer_value(json_object_get(j, "through")) == a->through && hex &&
	     strcmp(hex, want) == 0;
	json_decref(j);
	return ok;
}

/* Walk state. */
struct walk {
	struct db_verify_report *r;
	struct anchor anchor;
	unsigned char prev[DB_HASH_LEN];
	int64_t expect;
	bool pruned_seen, pruned_ok;
};

/*
 * The storage class each column of "SELECT id, session, call, kind, time,
 * body, hash, fmt" must have, as chain_add writes it. The hash covers values
 * as the walk reads them, and SQLite converts on read: a kind stored as a
 * BLOB or a call as 7.5 hashed the same but no query's `kind = 'received'`
 * or `call = 7` found it any more (a call hidden from list, show and
 * `verify --index`, a session start hidden from the open-session count).
 * A NULL column made the walk hash a long column's length from "".
 */
static bool row_types_ok(sqlite3_stmt *st)
{
	static const int want[] = {SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_TEXT,
	                           SQLITE_TEXT,    SQLITE_TEXT,    SQLITE_BLOB,    SQLITE_INTEGER};

	for (int i = 0; i < (int)nitems(want); i++) {
		int t = sqlite3_column_type(st, i);

		if (i == 2 && t == SQLITE_NULL)
			continue; /* no call: NULL, never 0, which hashes the same */
		if (t != want[i] || (i == 2 && sqlite3_column_int64(st, i) <= 0))
			return false;
	}
	return true;
}

/* Checks one row; returns 0 ok, 1 broken (with *errstr), -1 error. */
static int walk_row(struct db *db, struct walk *w, sqlite3_stmt *st, char **errstr)
{
	bool typed = row_types_ok(st); /* before any read converts a value */
	struct chain_event e = {.id = sqlite3_column_int64(st, 0)};
	unsigned char hash[DB_HASH_LEN];
	int rc;

	/* Text before its length: the pointer and the byte count of one value. */
	e.session = sqlite3_column_int64(st, 1);
	e.call = sqlite3_column_int64(st, 2);
	e.fmt = sqlite3_column_int(st, 7);
	e.kind = (const char *)sqlite3_column_text(st, 3);
	e.kindlen = (size_t)sqlite3_column_bytes(st, 3);
	e.time = (const char *)sqlite3_column_text(st, 4);
	e.timelen = (size_t)sqlite3_column_bytes(st, 4);
	e.body = (const char *)sqlite3_column_text(st, 5);
	e.bodylen = (size_t)sqlite3_column_bytes(st, 5);
	if (typed && (e.kind == NULL || e.time == NULL || e.body == NULL)) {
		*errstr = xstrdup("out of memory reading an event");
		return -1;
	}
	if (e.id == INT64_MAX) { /* the next expected id would overflow */
		w->r->bad_event = e.id;
		*errstr = xasprintf("event %lld has an id no log reaches: edited", (long long)e.id);
		return 1;
	}
	if (e.id != w->expect) {
		w->r->bad_event = e.id < w->expect ? e.id : w->expect;
		*errstr = e.id < w->expect
		        ? xasprintf("event %lld is out of order: chain broken", (long long)e.id)
		        : xasprintf("event %lld is missing (the next is %lld): chain broken",
		                    (long long)w->expect, (long long)e.id);
		return 1;
	}
	if (!typed) {
		w->r->bad_event = e.id;
		*errstr = xasprintf("event %lld was edited: a column holds a value of another type"
		                    " (or none)", (long long)e.id);
		return 1;
	}
	/* airlock never writes a NUL byte (lengths are strlen's), and format 1
	 * hashes each text only up to one: "received" plus a NUL hashed as
	 * before while `kind = 'received'` no longer found the event. */
	if (memchr(e.kind, '\0', e.kindlen) || memchr(e.time, '\0', e.timelen) ||
	    memchr(e.body, '\0', e.bodylen)) {
		w->r->bad_event = e.id;
		*errstr = xasprintf("event %lld was edited: its text holds a NUL byte", (long long)e.id);
		return 1;
	}
	if (e.fmt != DB_FMT_JSON && e.fmt != DB_FMT_BINARY) {
		w->r->bad_event = e.id;
		*errstr = xasprintf("event %lld has an unknown format %d: edited", (long long)e.id, e.fmt);
		return 1;
	}
	if ((rc = chain_hash(db, w->prev, &e, hash, errstr)) != 0) {
		w->r->bad_event = rc > 0 ? e.id : 0;
		return rc;
	}
	if (sqlite3_column_bytes(st, 6) != DB_HASH_LEN ||
	    memcmp(hash, sqlite3_column_blob(st, 6), DB_HASH_LEN) != 0) {
		w->r->bad_event = e.id;
		*errstr = xasprintf("event %lld was edited, replaced or reordered: hash mismatch",
		                    (long long)e.id);
		return 1;
	}
	if (strcmp(e.kind, "pruned") == 0) {
		w->pruned_seen = true;
		w->pruned_ok = pruned_matches(e.body, &w->anchor);
	}
	memcpy(w->prev, hash, DB_HASH_LEN);
	w->expect = e.id + 1;
	w->r->events++;
	if (w->r->first_id == 0)
		w->r->first_id = e.id;
	w->r->last_id = e.id;
	return 0;
}

/* Checks every row st yields; returns 0 ok, 1 broken, -1 error. */
static int walk_rows(struct db *db, struct walk *w, sqlite3_stmt *st, char **errstr)
{
	int step, rc;

	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = walk_row(db, w, st, errstr)) != 0)
			return rc;
	return step == SQLITE_DONE ? 0 : db_fail(db, errstr, "cannot read events");
}

/* After the walk: the head anchor must name the last event, and a prune
 * anchor must be confirmed by a chained "pruned" event. */
static int walk_finish(struct db *db, struct walk *w, char **errstr)
{
	unsigned char head[DB_HASH_LEN];
	int64_t head_id;
	bool found;

	if (read_id_hash(db, ST_HEAD_GET, &head_id, head, &found, errstr) < 0)
		return -1;
	chain_hex(found ? head : w->prev, w->r->head);
	if (!found) {
		*errstr = xstrdup("the head anchor is missing (or is not one row): the tail cannot"
		                  " be checked (edited)");
		w->r->bad_event = w->expect;
		return 1;
	}
	if (head_id != w->expect - 1 || memcmp(head, w->prev, DB_HASH_LEN) != 0) {
		w->r->bad_event = head_id > w->expect - 1 ? w->expect : head_id;
		*errstr = head_id > w->expect - 1
		        ? xasprintf("events %lld..%lld at the end were removed: the head anchor"
		                    " names event %lld", (long long)w->expect, (long long)head_id,
		                    (long long)head_id)
		        : xasprintf("the head anchor names event %lld but the log ends at %lld:"
		                    " events were added or the anchor edited",
		                    (long long)head_id, (long long)(w->expect - 1));
		return 1;
	}
	if (w->anchor.found && (!w->pruned_seen || !w->pruned_ok)) {
		w->r->bad_event = w->anchor.through + 1;
		*errstr = xasprintf("the prune anchor (through event %lld) is not the one the chain"
		                    " records: events removed or anchor forged",
		                    (long long)w->anchor.through);
		return 1;
	}
	return 0;
}

/* Sessions the chain starts and never ends. Counted from the events, not
 * the derived sessions table: an open session is what a tail cut with the
 * head anchor moved leaves behind, and an unchained `ended` column could be
 * edited to hide it. A session whose start was pruned is not counted. */
static int count_open_sessions(struct db *db, long long *n)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(db->sql,
	                       "SELECT count(*) FROM (SELECT session FROM events"
	                       " WHERE kind IN ('session_start', 'session_end') GROUP BY session"
	                       " HAVING max(kind = 'session_start') AND NOT max(kind = 'session_end'))",
	                       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The file's own structure: every index on a table must hold exactly what
 * the table does. The walk reads events in rowid order and never uses an
 * index, but `audit show`, the derived rows and `verify --index` look
 * events up by call through events_call, and filtered lists read the call
 * index through its indexes: an index built on another expression and then
 * renamed (writable_schema) put another call's "decided" event under a
 * call and hid its own, with the chain intact. Only the named tables are
 * checked (all of them took verify from 1.8 s to 4.8 s per million
 * events). Returns 0, 1 (*errstr) or -1.
 */
static int check_structure(struct db *db, const char *const *tables, size_t n, char **errstr)
{
	sqlite3_stmt *st = NULL;
	const char *what;
	char *sql = NULL, *shown;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		free(sql);
		sql = xasprintf("PRAGMA integrity_check(%s)", tables[i]);
		if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			rc = db_fail(db, errstr, "cannot check the file's structure");
			break;
		}
		what = (const char *)sqlite3_column_text(st, 0);
		if (what == NULL || strcmp(what, "ok") != 0) {
			/* names the file chose (an index's name): shown, never run */
			shown = encode_escape(what ? what : "?", 200);
			*errstr = xasprintf("the file's tables and indexes disagree (%s): an index"
			                    " was forged or the file is damaged; keep it as evidence",
			                    shown);
			free(shown);
			rc = 1;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	sqlite3_finalize(st);
	free(sql);
	return rc;
}

/*
 * The chain's tables must be there, as tables: a log whose events table was
 * dropped (or renamed away) is a broken log, not an unreadable one, and
 * verify exited 125 as for a disk error. Returns 0, 1 (*errstr) or -1.
 */
static int check_tables(struct db *db, const char *const *tables, size_t n, const char *lost,
                        char **errstr)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(db->sql, "SELECT 1 FROM sqlite_schema WHERE type = 'table'"
	                       " AND name = ?", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot read the schema");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
		switch (sqlite3_step(st)) {
		case SQLITE_ROW:
			break;
		case SQLITE_DONE:
			*errstr = xasprintf("the table %s is missing: it was dropped or renamed, and"
			                    " %s with it", tables[i], lost);
			rc = 1;
			break;
		default:
			rc = db_fail(db, errstr, "cannot read the schema");
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int db_verify_report(struct db *db, struct db_verify_report *r, char **errstr)
{
	static const char *const chain_tables[] = {"events", "anchors", "chain_head"};
	struct walk w = {.r = r, .expect = 1};
	sqlite3_stmt *st = NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	/* One read transaction: a consistent snapshot while others append. */
	if (sqlite3_exec(db->sql, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot begin a read transaction");
	if ((rc = check_tables(db, chain_tables, nitems(chain_tables),
	                       "the events (keep the file as evidence)", errstr)) != 0 ||
	    (rc = check_structure(db, chain_tables, nitems(chain_tables), errstr)) != 0)
		goto out;
	rc = -1;
	if (anchor_load(db, &w.anchor, errstr) < 0)
		goto out;
	/* through + 1 must be an id: a forged INT64_MAX overflowed (undefined
	 * behaviour; it named "event -9223372036854775808" as missing) */
	if (w.anchor.found && (w.anchor.through < 0 || w.anchor.through == INT64_MAX)) {
		*errstr = xasprintf("the prune anchor names event %lld, which cannot be one:"
		                    " forged", (long long)w.anchor.through);
		rc = 1;
		goto out;
	}
	if (w.anchor.found) {
		memcpy(w.prev, w.anchor.hash, DB_HASH_LEN);
		w.expect = w.anchor.through + 1;
		r->pruned_through = w.anchor.through;
	}
	if (sqlite3_prepare_v2(db->sql, "SELECT id, session, call, kind, time, body, hash, fmt"
	                       " FROM events ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot read events");
		goto out;
	}
	if ((rc = walk_rows(db, &w, st, errstr)) != 0)
		goto out;
	if ((rc = walk_finish(db, &w, errstr)) != 0)
		goto out;
	/* Every session writes its session_start when it opens the log, and a
	 * prune its "pruned" event: no log of airlock's holds no events, and an
	 * emptied one with the head anchor reset said "ok: 0 events". */
	if (r->events == 0) {
		*errstr = xstrdup("the log holds no events: every airlock session records its"
		                  " start first, so they were removed (or no session ever wrote"
		                  " here)");
		r->bad_event = 1;
		rc = 1;
		goto out;
	}
	rc = count_open_sessions(db, &r->open_sessions) < 0 ? db_fail(db, errstr, "cannot count sessions") : 0;
out:
	sqlite3_finalize(st);
	sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
	return rc;
}

#define RANGE_MAX 100000

/* The hash the event before first left (zero before the first event, the
 * prune anchor's when pruned up to it). Returns 0, 1 broken, -1 error. */
static int range_seed(struct db *db, int64_t first, unsigned char *prev, char **errstr)
{
	struct anchor a;
	sqlite3_stmt *st = NULL;
	int step, rc = -1;

	if (first == 1)
		return 0; /* prev is zero */
	if (sqlite3_prepare_v2(db->sql, "SELECT hash FROM events WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(db, errstr, "cannot read events");
	sqlite3_bind_int64(st, 1, first - 1);
	if ((step = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == DB_HASH_LEN) {
		memcpy(prev, sqlite3_column_blob(st, 0), DB_HASH_LEN);
		rc = 0;
	} else if (step == SQLITE_ROW || step == SQLITE_DONE) {
		rc = anchor_load(db, &a, errstr);
		if (rc == 0 && a.found && a.through == first - 1)
			memcpy(prev, a.hash, DB_HASH_LEN);
		else if (rc == 0) {
			*errstr = xasprintf("event %lld, before this call's, is missing or has no hash:"
			                    " chain broken", (long long)(first - 1));
			rc = 1;
		}
	} else
		db_fail(db, errstr, "cannot read events");
	sqlite3_finalize(st);
	return rc;
}

int db_verify_range(struct db *db, int64_t first, int64_t last, char **errstr)
{
	struct db_verify_report r = {0};
	struct walk w = {.r = &r, .expect = first};
	sqlite3_stmt *st = NULL;
	int rc;

	if (first < 1 || last < first || last - first >= RANGE_MAX) {
		*errstr = xasprintf("events %lld..%lld are too far apart to check alone",
		                    (long long)first, (long long)last);
		return 2;
	}
	if (sqlite3_exec(db->sql, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot begin a read transaction");
	if ((rc = range_seed(db, first, w.prev, errstr)) != 0)
		goto out;
	rc = -1;
	if (sqlite3_prepare_v2(db->sql, "SELECT id, session, call, kind, time, body, hash, fmt"
	                       " FROM events WHERE id BETWEEN ? AND ? ORDER BY id", -1, &st,
	                       NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot read events");
		goto out;
	}
	sqlite3_bind_int64(st, 1, first);
	sqlite3_bind_int64(st, 2, last + 1); /* the next event's hash covers last's */
	if ((rc = walk_rows(db, &w, st, errstr)) != 0)
		goto out;
	if (w.expect <= last) {
		*errstr = xasprintf("event %lld is missing: chain broken", (long long)w.expect);
		rc = 1;
	} else /* last was the newest: the head anchor must name it */
		rc = w.expect == last + 1 ? walk_finish(db, &w, errstr) : 0;
out:
	sqlite3_finalize(st);
	sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
	return rc;
}

int db_verify(struct db *db, long long *nevents, char **errstr)
{
	struct db_verify_report r;
	int rc = db_verify_report(db, &r, errstr);

	*nevents = r.events;
	return rc;
}

/* ---- prune ---- */

/* Runs one statement with (optional) int64 binds; returns changes or -1. */
static long long exec_ll(struct db *db, const char *sql, int64_t a, char **errstr)
{
	sqlite3_stmt *st = NULL;
	long long n = -1;

	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot prune");
		return -1;
	}
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, a);
	if (sqlite3_step(st) == SQLITE_DONE)
		n = sqlite3_changes(db->sql);
	else
		db_fail(db, errstr, "cannot prune");
	sqlite3_finalize(st);
	return n;
}

/* Finds the last event of the log's leading run of events older than
 * `before`: its id, hash and the count. Only a prefix goes: times follow
 * the clock, not the ids, and the last older event anywhere (a session
 * written while the clock said 2001) took every newer event before it. */
static int prune_cut(struct db *db, const char *before, struct anchor *cut, long long *n,
                     char **errstr)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	memset(cut, 0, sizeof(*cut));
	*n = 0;
	if (sqlite3_prepare_v2(db->sql,
	                       "SELECT e.id, e.hash, (SELECT count(*) FROM events WHERE id <= e.id)"
	                       " FROM events e WHERE e.id = (SELECT max(id) FROM events"
	                       " WHERE time < ?1 AND id < ifnull((SELECT min(id) FROM events"
	                       " WHERE time >= ?1), 9223372036854775807))", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(db, errstr, "cannot find what to prune");
	sqlite3_bind_text(st, 1, before, -1, SQLITE_STATIC);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		cut->found = true;
		cut->through = sqlite3_column_int64(st, 0);
		if (sqlite3_column_bytes(st, 1) == DB_HASH_LEN)
			memcpy(cut->hash, sqlite3_column_blob(st, 1), DB_HASH_LEN);
		*n = sqlite3_column_int64(st, 2);
		rc = 0;
		break;
	case SQLITE_DONE:
		rc = 0;
		break;
	default:
		db_fail(db, errstr, "cannot find what to prune");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Inside the transaction: removes events and derived rows through cut. */
static int prune_remove(struct db *db, const struct anchor *cut, long long n, char **errstr)
{
	static const char *const steps[] = {
		"DROP TRIGGER IF EXISTS events_no_delete",
		"DELETE FROM events WHERE id <= ?",
		"DELETE FROM call_index WHERE id <= ?",
		"DELETE FROM call_rules WHERE call <= ?",
		"DELETE FROM sessions WHERE ended <= ?",
	};
	sqlite3_stmt *st = NULL;
	char when[48];
	int rc = -1;

	for (size_t i = 0; i < nitems(steps); i++)
		if (exec_ll(db, steps[i], cut->through, errstr) < 0)
			return -1;
	if (sqlite3_exec(db->sql, DB_TRIGGERS_SQL, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot restore the append-only triggers");
	now_iso(when, sizeof(when));
	if (sqlite3_prepare_v2(db->sql, "INSERT INTO anchors(through, hash, time, events)"
	                       " VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot record the prune anchor");
	sqlite3_bind_int64(st, 1, cut->through);
	sqlite3_bind_blob(st, 2, cut->hash, DB_HASH_LEN, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, when, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, n);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		db_fail(db, errstr, "cannot record the prune anchor");
	sqlite3_finalize(st);
	return rc;
}

int db_prune(struct db *db, const char *before, long long *removed, char **errstr)
{
	struct db_verify_report r;
	struct chain_tx tx;
	struct anchor cut;
	char hex[65], *body = NULL;
	long long n;
	int rc;

	*removed = 0;
	if ((rc = db_verify_report(db, &r, errstr)) != 0)
		return rc;
	if (chain_begin(db, &tx, errstr) < 0)
		return -1;
	rc = -1;
	if (prune_cut(db, before, &cut, &n, errstr) < 0)
		goto out;
	if (!cut.found) {
		chain_rollback(db);
		return 0;
	}
	chain_hex(cut.hash, hex);
	{
		json_t *j = json_pack("{s:s, s:I, s:s, s:I}", "before", before, "events",
		                      (json_int_t)n, "hash", hex, "through", (json_int_t)cut.through);
		body = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(j);
	}
	if (body == NULL) {
		*errstr = xstrdup("prune: the date is not valid UTF-8");
		goto out;
	}
	if (prune_remove(db, &cut, n, errstr) < 0 ||
	    chain_add(db, &tx, 0, 0, "pruned", body, NULL, errstr) < 0 ||
	    chain_commit(db, &tx, errstr) < 0)
		goto out;
	*removed = n;
	rc = 0;
out:
	if (rc < 0)
		chain_rollback(db);
	free(body);
	return rc;
}

/* ---- the derived call index against the chain ---- */

#define INDEX_COLUMNS                                                                  \
	"id, session, time, mode, tool, name, summary, tier, rules, action, decision, who,"  \
	" wait_ms, previewed, finished, ran, exit_code, signal, duration_ms"

/* Runs SQL text (several statements); returns 0 or -1 with *errstr. */
static int exec_sql(struct db *db, const char *sql, const char *step, char **errstr)
{
	return sqlite3_exec(db->sql, sql, NULL, NULL, NULL) == SQLITE_OK ? 0
	                                                               : db_fail(db, errstr, step);
}

/* The first call whose index rows differ between main and temp.chk_. */
static int index_first_difference(struct db *db, int64_t *bad, char **errstr)
{
	static const char sql[] =
		"SELECT min(id) FROM ("
		" SELECT id FROM (SELECT " INDEX_COLUMNS " FROM main.call_index EXCEPT"
		"  SELECT " INDEX_COLUMNS " FROM temp.chk_call_index)"
		" UNION ALL SELECT id FROM (SELECT " INDEX_COLUMNS " FROM temp.chk_call_index"
		"  EXCEPT SELECT " INDEX_COLUMNS " FROM main.call_index)"
		" UNION ALL SELECT call FROM (SELECT rule, call FROM main.call_rules EXCEPT"
		"  SELECT rule, call FROM temp.chk_call_rules)"
		" UNION ALL SELECT call FROM (SELECT rule, call FROM temp.chk_call_rules EXCEPT"
		"  SELECT rule, call FROM main.call_rules))";
	sqlite3_stmt *st = NULL;
	int rc = -1;

	*bad = 0;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		*bad = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		db_fail(db, errstr, "cannot compare the call index");
	}
	sqlite3_finalize(st);
	return rc;
}

int db_verify_index(struct db *db, int64_t *bad_call, char **errstr)
{
	static const char *const index_tables[] = {"call_index", "call_rules", "sessions"};
	char *tables = db_derived_tables_sql("temp.chk_");
	char *rows = db_derive_sql("temp.chk_call_index", "temp.chk_call_rules");
	int rc = -1;

	*bad_call = 0;
	/* the lists read the index through its own indexes: they must agree */
	if ((rc = check_tables(db, index_tables, nitems(index_tables),
	                       "the call index (what lists and the browser show)", errstr)) != 0 ||
	    (rc = check_structure(db, index_tables, nitems(index_tables), errstr)) != 0)
		goto out;
	rc = -1;
	if (exec_sql(db, "DROP TABLE IF EXISTS temp.chk_call_index;"
	             "DROP TABLE IF EXISTS temp.chk_call_rules; BEGIN", "cannot start", errstr) < 0)
		goto out;
	if (exec_sql(db, tables, "cannot create the check tables", errstr) < 0 ||
	    exec_sql(db, rows, "cannot rebuild the call index from the chain", errstr) < 0 ||
	    index_first_difference(db, bad_call, errstr) < 0)
		goto out;
	rc = 0;
	if (*bad_call) {
		*errstr = xasprintf("call %lld: the call index (what lists and the browser show)"
		                    " differs from the chain: edited; `airlock audit reindex`"
		                    " rebuilds it from the chain", (long long)*bad_call);
		rc = 1;
	}
out:
	chain_rollback(db);
	sqlite3_exec(db->sql, "DROP TABLE IF EXISTS temp.chk_call_index;"
	             "DROP TABLE IF EXISTS temp.chk_call_rules", NULL, NULL, NULL);
	free(tables);
	free(rows);
	return rc;
}

int db_reindex(struct db *db, char **errstr)
{
	char *rows = db_derive_sql("call_index", "call_rules");
	int rc = -1;

	if (exec_sql(db, "BEGIN IMMEDIATE", "cannot begin a write transaction", errstr) < 0)
		goto out;
	if (exec_sql(db, "DELETE FROM call_index; DELETE FROM call_rules;",
	             "cannot clear the call index", errstr) < 0 ||
	    exec_sql(db, rows, "cannot rebuild the call index from the chain", errstr) < 0 ||
	    exec_sql(db, "COMMIT", "cannot commit", errstr) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		chain_rollback(db);
	free(rows);
	return rc;
}

/* ---- pins: a head hash kept elsewhere ---- */

int db_verify_pin(struct db *db, int64_t id, const char *hex, char **errstr)
{
	sqlite3_stmt *st = NULL;
	char have[65] = "";
	int rc = -1, step;

	/* Only the newest prune anchor is tied to the chain (its "pruned" event,
	 * which verify checked); an older anchors row is a row anyone can insert,
	 * and answering from one let a wholly rewritten log keep any old pin. */
	if (sqlite3_prepare_v2(db->sql, "SELECT hash FROM events WHERE id = ?1 UNION ALL"
	                       " SELECT hash FROM anchors WHERE through = ?1 AND through ="
	                       " (SELECT max(through) FROM anchors) LIMIT 1",
	                       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot read the pinned event");
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW && sqlite3_column_bytes(st, 0) == DB_HASH_LEN)
		chain_hex(sqlite3_column_blob(st, 0), have);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		db_fail(db, errstr, "cannot read the pinned event");
	} else if (have[0] == '\0') {
		*errstr = xasprintf("event %lld is not in the log (pruned, or the log was cut"
		                    " before it): the pin cannot be checked", (long long)id);
		rc = step == SQLITE_DONE && id > 0 ? 1 : -1;
	} else if (strcasecmp(have, hex) != 0) {
		*errstr = xasprintf("event %lld's hash is %s, the pin says %s: the log was"
		                    " rewritten from there on", (long long)id, have, hex);
		rc = 1;
	} else {
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}
