/*
 * cmd_audit.c: `airlock audit list|show|export|stats|verify|prune`, the
 * non-interactive face of the audit log (the browser lives in tui/).
 * Rules it keeps: every subcommand takes --db FILE (default
 * db_default_path()); verify exits 1 naming the first bad event; output for
 * scripts (jsonl, csv, --json) is one record per line and always valid UTF-8.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/airlock.h"
#include "core/util.h"
#include "db/db.h"
#include "gate/commands.h"
#include "tui/tui.h"

struct audit_opts {
	const char *db_path;
	struct db_filter filter;
	char since[32], until[32], before[32];
	const char *format;
	long long last;       /* list: only the newest N */
	bool json;
	bool index;           /* verify: also rebuild the call index and compare */
	const char *pin;      /* verify: ID:HASH from an earlier verify */
};

struct audit_sub {
	const char *name;
	int (*run)(struct db *db, struct audit_opts *o, int argc, char **argv);
	const char *usage;
	bool writes; /* needs write access (else a read-only open is enough) */
};

static void audit_usage(FILE *f);

/* ---- dates ---- */

/*
 * Normalises a date for comparison with the log's ISO-8601 UTC times:
 * YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] (a space works for the T), or an age
 * such as 30m, 12h, 7d (that long ago). Returns 0 or -1.
 */
/*
 * True when the ISO text (YYYY-MM-DD[THH:MM[:SS]], digits checked) names a
 * real time: dates are compared with the log's times as text, so on
 * c93eb52 `prune --before 2026-13-01` (a month typed 13) was later than
 * every event and pruned the whole log. timegm() carries a day 31 of
 * April or a minute 60 into the next; such a date does not come back.
 */
static bool date_real(const char *iso)
{
	struct tm tm = {0}, back;
	char again[64];
	time_t t;

	if (sscanf(iso, "%4d-%2d-%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday) != 3)
		return false;
	if (strlen(iso) > 10 && sscanf(iso + 11, "%2d:%2d", &tm.tm_hour, &tm.tm_min) != 2)
		return false;
	if (strlen(iso) > 16 && sscanf(iso + 17, "%2d", &tm.tm_sec) != 1)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (gmtime_r(&t, &back) == NULL)
		return false;
	snprintf(again, sizeof(again), "%04d-%02d-%02dT%02d:%02d:%02d", back.tm_year + 1900,
	         back.tm_mon + 1, back.tm_mday, back.tm_hour, back.tm_min, back.tm_sec);
	return strncmp(again, iso, strlen(iso)) == 0;
}

static int parse_when(const char *s, char *out, size_t n)
{
	static const struct { char unit; long long secs; } units[] = {
		{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 604800}};
	size_t len = strlen(s);
	struct tm tm;

	for (size_t i = 0; len >= 2 && i < nitems(units); i++) {
		char num[24];
		long long v;
		time_t t;
		if (s[len - 1] != units[i].unit || len - 1 >= sizeof(num))
			continue;
		memcpy(num, s, len - 1);
		num[len - 1] = '\0';
		if (parse_ll(num, 0, 100LL * 365 * 86400, &v) < 0)
			return -1;
		t = time(NULL) - (time_t)(v * units[i].secs);
		gmtime_r(&t, &tm);
		strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
		return 0;
	}
	/* An absolute date: digits and separators in the ISO shape only. */
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	if (len != 10 && len != 16 && len != 19)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i], want = shape[i];
		bool ok = want == 'd' ? (c >= '0' && c <= '9') : want == 'T' ? (c == 'T' || c == ' ') : c == want;
		if (!ok)
			return -1;
	}
	snprintf(out, n, "%s", s);
	if (len > 10)
		out[10] = 'T';
	return date_real(out) ? 0 : -1;
}

/* ---- options ---- */

enum { OPT_DB = 256, OPT_TIER, OPT_DECISION, OPT_TOOL, OPT_RULE, OPT_SESSION, OPT_SINCE,
       OPT_UNTIL, OPT_GREP, OPT_MODE, OPT_FORMAT, OPT_BEFORE, OPT_LAST, OPT_JSON, OPT_INDEX,
       OPT_PIN, OPT_HELP };

static const struct option long_opts[] = {
	{"db", required_argument, NULL, OPT_DB},
	{"tier", required_argument, NULL, OPT_TIER},
	{"decision", required_argument, NULL, OPT_DECISION},
	{"tool", required_argument, NULL, OPT_TOOL},
	{"rule", required_argument, NULL, OPT_RULE},
	{"session", required_argument, NULL, OPT_SESSION},
	{"since", required_argument, NULL, OPT_SINCE},
	{"until", required_argument, NULL, OPT_UNTIL},
	{"grep", required_argument, NULL, OPT_GREP},
	{"mode", required_argument, NULL, OPT_MODE},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"before", required_argument, NULL, OPT_BEFORE},
	{"last", required_argument, NULL, OPT_LAST},
	{"json", no_argument, NULL, OPT_JSON},
	{"index", no_argument, NULL, OPT_INDEX},
	{"pin", required_argument, NULL, OPT_PIN},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static const char *const decisions[] = {"auto", "approved", "denied", "error", "none"};

static int opt_tier(struct audit_opts *o, const char *arg)
{
	char name[16];
	size_t len = strlen(arg);
	enum tier t;

	o->filter.tier_at_least = len > 1 && arg[len - 1] == '+';
	snprintf(name, sizeof(name), "%.*s", (int)(len - (o->filter.tier_at_least ? 1 : 0)), arg);
	if (tier_from_name(name, &t) < 0) {
		fprintf(stderr, "airlock audit: --tier %s: want low, medium, high or critical"
		                " (add + for that tier or higher)\n", arg);
		return -1;
	}
	o->filter.tier = (int)t;
	return 0;
}

/* Applies one option; returns 0, -1 on a bad value, 1 for --help. */
static int opt_apply(struct audit_opts *o, int c, const char *arg)
{
	long long v;
	bool ok = false;

	switch (c) {
	case OPT_DB: o->db_path = arg; return 0;
	case OPT_TIER: return opt_tier(o, arg);
	case OPT_DECISION:
		for (size_t i = 0; i < nitems(decisions); i++)
			ok = ok || strcmp(arg, decisions[i]) == 0;
		if (!ok) {
			fprintf(stderr, "airlock audit: --decision %s: want auto, approved, denied,"
			                " error or none\n", arg);
			return -1;
		}
		o->filter.decision = arg;
		return 0;
	case OPT_TOOL: o->filter.tool = arg; return 0;
	case OPT_RULE: o->filter.rule = arg; return 0;
	case OPT_GREP: o->filter.text = arg; return 0;
	case OPT_MODE: o->filter.mode = arg; return 0;
	case OPT_FORMAT: o->format = arg; return 0;
	case OPT_JSON: o->json = true; return 0;
	case OPT_INDEX: o->index = true; return 0;
	case OPT_PIN: o->pin = arg; return 0;
	case OPT_HELP: return 1;
	case OPT_SESSION:
	case OPT_LAST:
		if (parse_ll(arg, 1, INT64_MAX, &v) < 0) {
			fprintf(stderr, "airlock audit: %s %s: want a positive number\n",
			        c == OPT_LAST ? "--last" : "--session", arg);
			return -1;
		}
		if (c == OPT_LAST)
			o->last = v;
		else
			o->filter.session = v;
		return 0;
	case OPT_SINCE:
	case OPT_UNTIL:
	case OPT_BEFORE: {
		char *dst = c == OPT_SINCE ? o->since : c == OPT_UNTIL ? o->until : o->before;
		if (parse_when(arg, dst, sizeof(o->since)) < 0) {
			fprintf(stderr, "airlock audit: bad date '%s': want YYYY-MM-DD,"
			                " YYYY-MM-DDTHH:MM[:SS] (UTC) or an age like 30m, 12h, 7d\n", arg);
			return -1;
		}
		if (c == OPT_SINCE)
			o->filter.since = o->since;
		if (c == OPT_UNTIL)
			o->filter.until = o->until;
		return 0;
	}
	default:
		return -1;
	}
}

/* Parses options anywhere in argv (GNU getopt permutes the positional
 * arguments to the end); returns the index of the first positional one,
 * -1 on a bad option, -2 for --help. */
static int opts_parse(struct audit_opts *o, int argc, char **argv)
{
	int c, rc;

	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == 'h') /* -h as --help, as every other command takes it */
			c = OPT_HELP;
		if (c == '?' || (rc = opt_apply(o, c, optarg)) < 0)
			return -1;
		if (rc == 1)
			return -2;
	}
	return optind;
}

/* ---- terminal-safe text ---- */

/* Returns a new copy of s that a terminal shows as it is (core's
 * buf_append_shown: control bytes as \xHH, reordering and invisible code
 * points as \uHHHH). Caller frees. */
static char *safe_text(const char *s)
{
	struct buf b;

	buf_init(&b, 0);
	buf_append_shown(&b, s ? s : "", s ? strlen(s) : 0, 0);
	buf_puts(&b, "");
	return buf_take(&b, NULL);
}

/* ---- list ---- */

/* Every text column is escaped, the time too: a log edited by hand (the
 * derived index no hash covers) must not drive the terminal either. */
static void row_print(const struct db_call_row *r)
{
	char dur[24] = "-";
	char *tool = safe_text(r->name && *r->name ? r->name : r->tool);
	char *summary = safe_text(r->summary), *decision = safe_text(r->decision ? r->decision : "-");
	char *when = safe_text(r->time ? r->time : "-");

	if (r->duration_ms >= 0)
		snprintf(dur, sizeof(dur), "%lldms", r->duration_ms);
	printf("%7lld  %.19s  %-8s  %-8s  %-10s  %7s  %s%s\n", (long long)r->id, when,
	       r->tier >= 0 && r->tier < TIER_COUNT ? tier_name((enum tier)r->tier) : "-",
	       decision, tool, dur, r->mode && strcmp(r->mode, "watch") == 0 ? "(watched) " : "",
	       summary);
	free(tool);
	free(summary);
	free(decision);
	free(when);
}

/* The index's space-separated rule ids as a JSON array, as show --json and
 * export write them (a string here made scripts parse two shapes). */
static json_t *rules_array(const char *rules)
{
	json_t *a = json_array();

	for (const char *p = rules ? rules : ""; *p;) {
		size_t n = strcspn(p, " ");
		if (n > 0)
			json_array_append_new(a, json_stringn(p, n));
		p += n + (p[n] == ' ');
	}
	return a;
}

static void row_print_json(const struct db_call_row *r)
{
	json_t *o = json_pack("{s:I, s:I, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:o, s:s?, s:s?,"
	                      " s:s?, s:I, s:b, s:b, s:i, s:i, s:I}",
	                      "id", (json_int_t)r->id, "session", (json_int_t)r->session, "time",
	                      r->time, "mode", r->mode, "tool", r->tool, "name", r->name, "summary",
	                      r->summary,
	                      "tier", r->tier >= 0 && r->tier < TIER_COUNT ? tier_name((enum tier)r->tier) : NULL,
	                      "rules", rules_array(r->rules), "action", r->action, "decision", r->decision,
	                      "who", r->who, "wait_ms", (json_int_t)r->wait_ms, "finished",
	                      r->finished, "ran", r->ran, "exit_code", r->exit_code, "signal",
	                      r->signal, "duration_ms", (json_int_t)r->duration_ms);
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);

	if (s)
		puts(s);
	free(s);
	json_decref(o);
}

struct list_state {
	bool json;
	int64_t last_id;
};

struct last_state {
	int64_t oldest;
	long long seen;
};

/* Remembers the last row seen (walking back: the oldest) and the count. */
static int list_last_id(void *arg, const struct db_call_row *r)
{
	struct last_state *st = arg;

	st->oldest = r->id;
	st->seen++;
	return 0;
}

static int list_cb(void *arg, const struct db_call_row *r)
{
	struct list_state *ls = arg;

	ls->last_id = r->id;
	if (ls->json)
		row_print_json(r);
	else
		row_print(r);
	return 0;
}

static int audit_list(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	struct list_state ls = {.json = o->json};
	char *err = NULL;
	int n;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "airlock audit list: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	if (o->last > 0) {
		/* The newest N, walking back from the end; then print forward from
		 * just before the oldest of them (no count over the whole log). */
		struct last_state st = {.seen = 0};
		do {
			long long want = o->last - st.seen;
			n = db_calls_page(db, &o->filter, st.oldest, DB_PAGE_OLDER,
			                  (size_t)(want < 1000 ? want : 1000), list_last_id, &st, &err);
		} while (n > 0 && st.seen < o->last);
		if (n < 0)
			goto fail;
		ls.last_id = st.seen == o->last ? st.oldest - 1 : 0;
	}
	do
		n = db_calls_page(db, &o->filter, ls.last_id, DB_PAGE_NEWER, 1000, list_cb, &ls, &err);
	while (n == 1000);
	if (n < 0)
		goto fail;
	return EXIT_OK;
fail:
	fprintf(stderr, "airlock audit list: %s\n", err);
	free(err);
	return EXIT_INTERNAL;
}

/* ---- show ---- */

static void print_indented(json_t *v)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENCODE_ANY), *save = NULL;

	for (char *line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *safe = safe_text(line);
		printf("    %s\n", safe);
		free(safe);
	}
	free(s);
}

static void print_integrity(json_t *in)
{
	json_t *ev = json_object_get(in, "events");
	char *why = safe_text(json_string_value(json_object_get(in, "error")));

	if (json_is_true(json_object_get(in, "ok")))
		printf("integrity: ok: events %lld..%lld chain to their neighbours (this call only;"
		       " `airlock audit verify` checks the whole log)\n",
		       (long long)json_integer_value(json_array_get(ev, 0)),
		       (long long)json_integer_value(json_array_get(ev, 1)));
	else
		printf("integrity: NOT CONFIRMED: %s; what follows may be forged: run `airlock audit"
		       " verify`\n", why ? why : "?");
	free(why);
}

static int audit_show(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	long long id;
	json_t *d = NULL, *ev;
	char *err = NULL;
	size_t i;
	int rc, broken;

	if (argc != 2 || parse_ll(argv[1], 1, INT64_MAX, &id) < 0) {
		fprintf(stderr, "airlock audit show: want one call id (see `airlock audit list`)\n");
		return EXIT_USAGE;
	}
	if ((rc = db_call_detail(db, id, &d, &err)) != 0) {
		fprintf(stderr, "airlock audit show: %s\n", err);
		free(err);
		return rc == 1 ? EXIT_FAILURE_ : EXIT_INTERNAL;
	}
	/* an edited call must not read as a true record: say so first, exit 1 */
	broken = json_is_true(json_object_get(json_object_get(d, "integrity"), "broken"));
	if (o->json) {
		/* ASCII only: a C1 control (U+009B is CSI) or a bidi override
		 * the agent wrote reaches the terminal as \uHHHH, same data */
		char *s = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
		puts(s ? s : "null");
		free(s);
	} else {
		print_integrity(json_object_get(d, "integrity"));
		printf("call %lld\n", id);
		print_indented(json_object_get(d, "call"));
		printf("session\n");
		print_indented(json_object_get(d, "session"));
		json_array_foreach(json_object_get(d, "events"), i, ev) {
			char *kind = safe_text(json_string_value(json_object_get(ev, "kind")));
			char *when = safe_text(json_string_value(json_object_get(ev, "time")));
			printf("%s  %s (event %lld)\n", when, kind,
			       (long long)json_integer_value(json_object_get(ev, "id")));
			free(kind);
			free(when);
			print_indented(json_object_get(ev, "body"));
		}
	}
	json_decref(d);
	return broken ? EXIT_FAILURE_ : EXIT_OK;
}

/* ---- export ---- */

/* A cell a spreadsheet would run as a formula (=, +, -, @, tab or CR
 * first, OWASP's list) unless it is a plain number such as -1: the
 * summary and the bodies are the agent's text. */
static bool csv_formula(const char *s)
{
	const char *digits = s + (*s == '-');

	if (*s == '\0' || strchr("=+-@\t\r", *s) == NULL)
		return false;
	return !(*digits && strspn(digits, "0123456789") == strlen(digits));
}

static void csv_field(const char *raw, bool last)
{
	struct buf b;
	char *s, *p;
	bool formula;

	/* control bytes but tab and newline as \xHH, bidi and C1 as \uHHHH: a
	 * CSV is read on terminals too (`cat`, `less -r`), and the index's
	 * columns (who, tool, name) are text an edited log chose */
	buf_init(&b, 0);
	buf_append_shown(&b, raw ? raw : "", raw ? strlen(raw) : 0, SHOWN_TAB | SHOWN_NEWLINE);
	buf_puts(&b, "");
	s = p = buf_take(&b, NULL);
	formula = csv_formula(s);
	if (formula || strpbrk(s, ",\"\r\n")) {
		putchar('"');
		if (formula)
			putchar('\''); /* shown as text, not run */
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
	putchar(last ? '\n' : ',');
	free(p);
}

static const char *const csv_columns[] = {
	"id", "session", "time", "mode", "tool", "name", "tier", "rules", "action", "decision",
	"who", "wait_ms", "ran", "exit_code", "signal", "duration_ms", "summary",
	"received", "classified", "decided", "previewed", "finished",
};
#define CSV_FIRST_EVENT 17 /* columns from here hold one event's body as JSON */

static int export_csv(void *arg, json_t *call)
{
	(void)arg;
	for (size_t i = 0; i < nitems(csv_columns); i++) {
		json_t *v = i < CSV_FIRST_EVENT
		          ? json_object_get(call, csv_columns[i])
		          : json_object_get(json_object_get(call, "events"), csv_columns[i]);
		char *s = NULL;
		if (json_is_string(v))
			s = xstrdup(json_string_value(v));
		else if (json_is_array(v) && i < CSV_FIRST_EVENT) {
			struct buf b;
			size_t k;
			json_t *item;
			buf_init(&b, 0);
			json_array_foreach(v, k, item) buf_printf(&b, "%s%s", k ? " " : "", json_string_value(item));
			s = buf_take(&b, NULL);
		} else if (v)
			s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		csv_field(s, i + 1 == nitems(csv_columns));
		free(s);
	}
	return ferror(stdout) ? 1 : 0;
}

static int export_jsonl(void *arg, json_t *call)
{
	/* exact for a JSON reader, and no raw C1 or bidi code point on a terminal */
	char *s = json_dumps(call, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);

	(void)arg;
	if (s)
		puts(s);
	free(s);
	return ferror(stdout) ? 1 : 0;
}

static int audit_export(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	int (*cb)(void *, json_t *) = NULL;
	char *err = NULL;

	(void)argv;
	if (o->format && strcmp(o->format, "jsonl") == 0)
		cb = export_jsonl;
	else if (o->format && strcmp(o->format, "csv") == 0)
		cb = export_csv;
	if (cb == NULL || argc > 1) {
		fprintf(stderr, "airlock audit export: want --format jsonl or --format csv\n");
		return EXIT_USAGE;
	}
	if (cb == export_csv)
		for (size_t i = 0; i < nitems(csv_columns); i++)
			csv_field(csv_columns[i], i + 1 == nitems(csv_columns));
	if (db_export_calls(db, &o->filter, cb, NULL, &err) < 0) {
		fprintf(stderr, "airlock audit export: %s\n", err);
		free(err);
		return EXIT_INTERNAL;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "airlock audit export: cannot write the output\n");
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

/* ---- stats ---- */

static void stats_section(json_t *st, const char *key, const char *title)
{
	json_t *v = json_object_get(st, key), *item;
	const char *k;
	size_t i;

	printf("%s\n", title);
	if (json_is_array(v))
		json_array_foreach(v, i, item) {
			char *name = safe_text(json_string_value(json_array_get(item, 0)));
			printf("  %8lld  %s\n", (long long)json_integer_value(json_array_get(item, 1)), name);
			free(name);
		}
	else
		json_object_foreach(v, k, item) {
			char *name = safe_text(k);
			if (json_is_null(item))
				printf("  %-10s -\n", name);
			else
				printf("  %-10s %lld\n", name, (long long)json_integer_value(item));
			free(name);
		}
}

static int audit_stats(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	static const struct { const char *key, *title; } sections[] = {
		{"total", "total"}, {"by_tier", "by tier"}, {"by_decision", "by decision"},
		{"by_tool", "by tool"}, {"by_rule", "rules that fired most"},
		{"waits", "approval waits (decisions made by a person)"},
		{"top_denied", "most denied"},
	};
	json_t *st = NULL;
	char *err = NULL;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "airlock audit stats: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	if (db_stats(db, &o->filter, &st, &err) < 0) {
		fprintf(stderr, "airlock audit stats: %s\n", err);
		free(err);
		return EXIT_INTERNAL;
	}
	if (o->json) {
		char *s = json_dumps(st, JSON_COMPACT | JSON_ENSURE_ASCII);
		puts(s);
		free(s);
	} else {
		for (size_t i = 0; i < nitems(sections); i++)
			stats_section(st, sections[i].key, sections[i].title);
	}
	json_decref(st);
	return EXIT_OK;
}

/* ---- verify, prune ---- */

static int verify_index(struct db *db, struct audit_opts *o)
{
	int64_t bad = 0;
	char *err = NULL;
	int rc = db_verify_index(db, &bad, &err);

	if (rc == 0)
		return EXIT_OK;
	if (rc == 1 && bad)
		printf("BROKEN: %s: first bad call %lld: %s\n", o->db_path, (long long)bad, err);
	else if (rc == 1)
		printf("BROKEN: %s: %s\n", o->db_path, err);
	else
		fprintf(stderr, "airlock audit verify: %s\n", err);
	free(err);
	return rc == 1 ? EXIT_FAILURE_ : EXIT_INTERNAL;
}

static int verify_pin(struct db *db, struct audit_opts *o)
{
	const char *colon = strchr(o->pin, ':');
	char num[24], *err = NULL;
	long long id;
	size_t hexlen = colon ? strlen(colon + 1) : 0;
	int rc;

	if (colon == NULL || (size_t)(colon - o->pin) >= sizeof(num) || hexlen != 64 ||
	    strspn(colon + 1, "0123456789abcdefABCDEF") != 64) {
		fprintf(stderr, "airlock audit verify: --pin wants ID:HASH as printed by verify\n");
		return EXIT_USAGE;
	}
	snprintf(num, sizeof(num), "%.*s", (int)(colon - o->pin), o->pin);
	if (parse_ll(num, 1, INT64_MAX, &id) < 0) {
		fprintf(stderr, "airlock audit verify: --pin %s: bad event id\n", o->pin);
		return EXIT_USAGE;
	}
	rc = db_verify_pin(db, id, colon + 1, &err);
	if (rc == 1)
		printf("BROKEN: %s: first bad event %lld: %s\n", o->db_path, id, err);
	else if (rc < 0)
		fprintf(stderr, "airlock audit verify: %s\n", err);
	free(err);
	return rc == 0 ? EXIT_OK : rc == 1 ? EXIT_FAILURE_ : EXIT_INTERNAL;
}

static int audit_reindex(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	struct db_verify_report r;
	char *err = NULL;
	int rc;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "airlock audit reindex: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	/* Only a chain that verifies is worth rebuilding from. */
	if ((rc = db_verify_report(db, &r, &err)) != 0 || (rc = db_reindex(db, &err)) != 0) {
		fprintf(stderr, "airlock audit reindex: %s\n", err);
		free(err);
		return rc == 1 ? EXIT_FAILURE_ : EXIT_INTERNAL;
	}
	printf("reindexed %s from %lld events\n", o->db_path, r.events);
	return EXIT_OK;
}

static int audit_verify(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	struct db_verify_report r;
	char *err = NULL;
	int rc;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "airlock audit verify: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	rc = db_verify_report(db, &r, &err);
	if (rc < 0) {
		fprintf(stderr, "airlock audit verify: %s\n", err);
		free(err);
		return EXIT_INTERNAL;
	}
	if (rc == 1) {
		if (r.bad_event)
			printf("BROKEN: %s: first bad event %lld: %s\n", o->db_path,
			       (long long)r.bad_event, err);
		else
			printf("BROKEN: %s: %s\n", o->db_path, err);
		free(err);
		return EXIT_FAILURE_;
	}
	if (o->index && (rc = verify_index(db, o)) != EXIT_OK)
		return rc;
	if (o->pin && (rc = verify_pin(db, o)) != EXIT_OK)
		return rc;
	printf("ok: %s: %lld events", o->db_path, r.events);
	if (r.events)
		printf(" (%lld..%lld)", (long long)r.first_id, (long long)r.last_id);
	if (r.pruned_through)
		printf(", pruned through event %lld", (long long)r.pruned_through);
	printf(", %lld open session%s\n", r.open_sessions, r.open_sessions == 1 ? "" : "s");
	/* what the file alone cannot tell apart: say so rather than let "ok" */
	if (r.open_sessions)
		printf("note: a session that never ended is a gate still running, a crash or"
		       " kill -9, or the log's tail cut with its head anchor moved: only a head"
		       " kept from before (--pin) tells\n");
	if (o->pin)
		printf("pin %s holds\n", o->pin);
	printf("head %lld:%s (keep it elsewhere; --pin checks it later)\n", (long long)r.last_id,
	       r.head);
	return EXIT_OK;
}

static int audit_prune(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	long long removed = 0;
	char *err = NULL;
	int rc;

	(void)argv;
	if (o->before[0] == '\0' || argc > 1) {
		fprintf(stderr, "airlock audit prune: want --before DATE (YYYY-MM-DD or an age like 90d)\n");
		return EXIT_USAGE;
	}
	rc = db_prune(db, o->before, &removed, &err);
	if (rc != 0) {
		fprintf(stderr, "airlock audit prune: %s%s\n", rc == 1 ? "chain broken, nothing removed: " : "", err);
		free(err);
		return rc == 1 ? EXIT_FAILURE_ : EXIT_INTERNAL;
	}
	printf("pruned %lld events before %s; the rest still verifies\n", removed, o->before);
	return EXIT_OK;
}

/* ---- the browser (tui/) ---- */

static int audit_browse(struct db *db, struct audit_opts *o, int argc, char **argv)
{
	char *err = NULL;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "airlock audit browse: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	if (tui_audit_browse(db, &o->filter, &err) < 0) {
		fprintf(stderr, "airlock audit browse: %s\n", err);
		free(err);
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

/* ---- dispatch ---- */

static const struct audit_sub subs[] = {
	{"browse", audit_browse, "[browse] [FILTERS]   (the review browser; the default on a terminal)", false},
	{"list", audit_list, "list [FILTERS] [--last N] [--json]   (the default otherwise)", false},
	{"show", audit_show, "show ID [--json]", false},
	{"export", audit_export, "export --format jsonl|csv [FILTERS]", false},
	{"stats", audit_stats, "stats [FILTERS] [--json]", false},
	{"verify", audit_verify, "verify [--index] [--pin ID:HASH]", false},
	{"reindex", audit_reindex, "reindex", true},
	{"prune", audit_prune, "prune --before DATE", true},
};

static void audit_usage(FILE *f)
{
	fprintf(f, "usage: airlock audit SUBCOMMAND [--db FILE] ...\n");
	for (size_t i = 0; i < nitems(subs); i++)
		fprintf(f, "  airlock audit %s\n", subs[i].usage);
	fprintf(f, "FILTERS: --tier T[+] --decision D --tool NAME --rule ID --session N --mode M\n"
	           "         --since DATE --until DATE --grep TEXT\n"
	           "DATE: YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] (UTC), or an age: 30m, 12h, 7d\n");
}

/* No audit command creates a log (a mistyped --db is an error, not a new
 * file, and an emptied one is not made new); a log this user may read but
 * not write is opened read-only. Returns 0, -1 or DB_OPEN_BROKEN. */
static int open_log(const char *path, bool writes, struct db **db, char **err)
{
	struct stat sb;
	char *err2 = NULL;
	int rc;

	if (stat(path, &sb) < 0) {
		*err = xasprintf("no audit log at %s: %s (nothing recorded yet, or another --db)",
		                 path, strerror(errno));
		return -1;
	}
	if ((rc = db_open_existing(path, db, err)) == 0 || writes || rc == DB_OPEN_BROKEN)
		return rc;
	if (db_open_readonly(path, db, &err2) == 0) {
		free(*err);
		*err = NULL;
		return 0;
	}
	free(err2);
	return -1;
}

int cmd_audit(int argc, char **argv)
{
	static char *list_args[] = {(char *)"list", NULL}, *browse_args[] = {(char *)"browse", NULL};
	struct audit_opts o = {.format = NULL};
	const struct audit_sub *sub = NULL;
	char *path = NULL, *err = NULL;
	struct db *db = NULL;
	int n, rc;

	db_filter_init(&o.filter);
	/* argv[0] is "audit"; options may come anywhere (getopt permutes), so
	 * the positional arguments end up at argv[n..]. */
	n = opts_parse(&o, argc, argv);
	if (n < 0) {
		audit_usage(n == -2 ? stdout : stderr);
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	}
	argc -= n;
	argv += n;
	if (argc == 0) {
		/* No subcommand: the browser on a terminal, else the list. */
		argc = 1;
		argv = isatty(STDOUT_FILENO) ? browse_args : list_args;
	}
	for (size_t i = 0; i < nitems(subs); i++)
		if (strcmp(argv[0], subs[i].name) == 0)
			sub = &subs[i];
	if (sub == NULL) {
		fprintf(stderr, "airlock audit: unknown subcommand '%s'\n", argv[0]);
		audit_usage(stderr);
		return EXIT_USAGE;
	}
	path = o.db_path ? NULL : db_default_path();
	if (path)
		o.db_path = path;
	if ((rc = open_log(o.db_path, sub->writes, &db, &err)) < 0) {
		/* a wiped log is a broken chain to verify, not an unreadable file */
		if (rc == DB_OPEN_BROKEN && sub->run == audit_verify)
			printf("BROKEN: %s: %s\n", o.db_path, err);
		else
			fprintf(stderr, "airlock audit: %s\n", err);
		free(err);
		free(path);
		return rc == DB_OPEN_BROKEN && sub->run == audit_verify ? EXIT_FAILURE_ : EXIT_INTERNAL;
	}
	rc = sub->run(db, &o, argc, argv);
	db_close(db);
	free(path);
	return rc;
}
