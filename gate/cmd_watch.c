/*
 * cmd_watch.c: `airlock watch`, for agents that run their own tools: reads
 * their event stream on stdin (Claude Code --output-format stream-json,
 * Codex exec --json), classifies and records every tool call in a watched
 * session, and flags high and critical ones on stderr and in the log.
 * Rules it keeps:
 *  - never blocks and never answers: the calls already ran;
 *  - a line it cannot read is counted and skipped, never fatal;
 *  - event kinds are a table: a new agent format is new rows.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/encode.h"
#include "core/util.h"
#include "gate/agent.h"
#include "gate/commands.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"

#define PENDING_MAX 4096            /* calls waiting for their result */
#define RESULT_CAP (64u << 10)      /* result text kept in the log */

static const char watch_usage[] =
	"usage: airlock watch [--format auto|claude|codex] [--tee] [OPTIONS]\n"
	"Reads an agent's JSON event stream on stdin (claude -p --output-format\n"
	"stream-json --verbose, codex exec --json), records every tool call in the\n"
	"audit log and flags high and critical ones on stderr. Never blocks anything.\n"
	"  --format F         the stream's format (default: auto, per line)\n"
	"  --tee              copy stdin to stdout unchanged\n" AGENT_GATE_USAGE_RECORD;

static const struct option watch_longopts[] = {
	AGENT_GATE_LONGOPTS,
	{"format", required_argument, NULL, 'f'},
	{"tee", no_argument, NULL, 'e'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

enum format { FMT_AUTO, FMT_CLAUDE, FMT_CODEX };

struct watch {
	struct gate_opts opts;
	struct gate *g;
	enum format format;
	char *cwd, *agent;      /* from the stream's init event; owned */
	json_t *pending;        /* the agent's call id -> {"audit","start"} */
	size_t calls, flagged, skipped, errors;
	bool warned_pending;
};

/* Opens the gate on first use, in the cwd the stream announced if any. */
static struct gate *watch_gate(struct watch *w)
{
	char *err = NULL;
	struct stat st;
	int ec;

	if (w->g || w->errors > 0)
		return w->g;
	w->opts.agent = w->agent;
	/* the cwd the stream announced may not exist here (a stream from
	 * another machine or container, or a made-up one): nothing was then
	 * recorded or flagged at all. Airlock's own directory serves instead. */
	errno = 0;
	if (w->opts.workdir == NULL && w->cwd && stat(w->cwd, &st) == 0 && S_ISDIR(st.st_mode))
		w->opts.workdir = w->cwd;
	else if (w->opts.workdir == NULL && w->cwd)
		fprintf(stderr, "airlock watch: the stream's cwd %s cannot be used here (%s); "
		                "recording with this directory as the workdir\n",
		        w->cwd, errno ? strerror(errno) : "not a directory");
	if (gate_open(&w->opts, &w->g, &ec, &err) < 0) {
		fprintf(stderr, "airlock watch: %s; nothing is recorded\n", err);
		free(err);
		w->errors++;
	}
	return w->g;
}

/* One line on stderr, the user's terminal: a finding's reason quotes the
 * call ("reads /root/.ssh/<ESC>[2K..."), so its control characters are
 * shown as \xNN, as the summary's are: raw, a model-written path could
 * erase the FLAGGED line it is on, or retitle the terminal. */
static void flag(const struct call *c, const struct verdict *v)
{
	char *sum = encode_summary(c, 160);
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "airlock watch: FLAGGED %s: %s", tier_name(v->tier), sum);
	for (size_t i = 0; i < v->nfindings; i++) {
		const char *why = v->findings[i].reason ? v->findings[i].reason : "";
		if (v->findings[i].tier < TIER_HIGH)
			continue;
		buf_printf(&b, " [%s: ", v->findings[i].rule);
		buf_append_shown(&b, why, strlen(why), 0);
		buf_puts(&b, "]");
	}
	fprintf(stderr, "%.*s\n", (int)b.len, b.data);
	buf_free(&b);
	free(sum);
}

/* Records calls[0] (all of calls classified) and remembers it under key. */
static void observe(struct watch *w, struct call **calls, const char *key)
{
	struct gate *g = watch_gate(w);
	struct verdict *v;
	struct outcome *o;
	struct plan pl = {0};

	if (g == NULL)
		return;
	v = agent_classify_calls(g, calls);
	/* as the hook judges it: a Grep of a tree holding a denied path asks */
	if (agent_tree_denied(g, calls[0], v))
		calls[0]->unsandboxed = true;
	o = gate_decide(g, calls[0], v, GATE_ASK_OBSERVE, &pl);
	w->calls++;
	if (v->tier >= TIER_HIGH) {
		w->flagged++;
		flag(calls[0], v);
	}
	if (o->decision == DECISION_ERROR)
		fprintf(stderr, "airlock watch: %s\n", o->reason ? o->reason : "cannot record");
	else if (key && json_object_size(w->pending) < PENDING_MAX)
		json_object_set_new(w->pending, key,
		                    json_pack("{s:I, s:I}", "audit", (json_int_t)o->audit_id, "start",
		                              (json_int_t)clock_ns()));
	else if (key && !w->warned_pending) {
		fprintf(stderr, "airlock watch: more than %d calls without a result; later results "
		                "are not recorded\n", PENDING_MAX);
		w->warned_pending = true;
	}
	plan_clear(&pl);
	outcome_free(o);
	verdict_free(v);
}

static void observe_one(struct watch *w, struct call *c, const char *key)
{
	struct call *calls[] = {c, NULL};
	observe(w, calls, key);
	call_free(c);
}

/* Records the result of a call seen earlier; text may be NULL. */
static void finish(struct watch *w, const char *key, bool ran, int exit_code, const char *text)
{
	json_t *p = key ? json_object_get(w->pending, key) : NULL;
	struct outcome *o;
	char *err = NULL;

	if (p == NULL || w->g == NULL)
		return;
	o = outcome_new();
	o->audit_id = json_integer_value(json_object_get(p, "audit"));
	o->decision = ran ? DECISION_AUTO : DECISION_DENIED;
	o->ran = ran;
	o->exit_code = ran ? exit_code : -1;
	o->applied = ran ? "run" : NULL;
	o->duration_ms = (clock_ns() - json_integer_value(json_object_get(p, "start"))) / 1000000;
	if (!ran)
		o->reason = xstrdup("declined in the agent");
	if (text) {
		size_t n = strlen(text);
		o->truncated = n > RESULT_CAP;
		o->out = xstrndup(text, o->truncated ? RESULT_CAP : n);
		o->outlen = strlen(o->out);
	}
	if (gate_finish(w->g, o, &err) < 0) {
		fprintf(stderr, "airlock watch: %s\n", err);
		free(err);
	}
	outcome_free(o);
	json_object_del(w->pending, key);
}

/* ---- Claude Code: --output-format stream-json ------------------------- */

static void claude_init(struct watch *w, json_t *ev)
{
	const char *cwd = json_string_value(json_object_get(ev, "cwd"));
	const char *sid = json_string_value(json_object_get(ev, "session_id"));

	if (w->g)
		return;
	if (cwd && w->cwd == NULL)
		w->cwd = xstrdup(cwd);
	if (sid && w->agent == NULL)
		w->agent = xasprintf("claude-code session %s", sid);
}

/* One tool_use block of an assistant message. */
static void claude_tool_use(struct watch *w, json_t *block)
{
	const char *key = json_string_value(json_object_get(block, "id"));
	struct call *c = NULL, **calls;
	json_t *id = NULL;
	char *err = NULL;

	if (protocol_decode_json(block, 0, &c, &id, &err) < 0) {
		/* cannot decode it: still record that the agent ran something */
		const char *name = json_string_value(json_object_get(block, "name"));
		fprintf(stderr, "airlock watch: tool call %s: %s\n", key ? key : "?", err);
		c = agent_other_call(name ? name : "unknown", json_object_get(block, "input"), id);
		free(err);
	}
	json_decref(id);
	calls = agent_named_calls(c, json_object_get(block, "input"), w->cwd);
	if (calls) {
		observe(w, calls, key);
		agent_calls_free(calls);
		call_free(c);
	} else
		observe_one(w, c, key);
}

/* The text of a tool_result's content: a string or a list of text blocks. */
static char *content_text(json_t *content)
{
	struct buf b;
	json_t *e;
	size_t i;

	if (json_is_string(content))
		return xstrdup(json_string_value(content));
	buf_init(&b, RESULT_CAP + 1);
	json_array_foreach(content, i, e) {
		const char *t = json_string_value(json_object_get(e, "text"));
		if (t)
			buf_printf(&b, "%s%s", b.len ? "\n" : "", t);
	}
	return buf_take(&b, NULL);
}

static void claude_message(struct watch *w, json_t *ev)
{
	json_t *content = json_object_get(json_object_get(ev, "message"), "content"), *b;
	size_t i;

	json_array_foreach(content, i, b) {
		const char *type = json_string_value(json_object_get(b, "type"));
		if (type && strcmp(type, "tool_use") == 0)
			claude_tool_use(w, b);
		else if (type && strcmp(type, "tool_result") == 0) {
			char *text = content_text(json_object_get(b, "content"));
			finish(w, json_string_value(json_object_get(b, "tool_use_id")), true,
			       json_is_true(json_object_get(b, "is_error")) ? 1 : 0, text);
			free(text);
		}
	}
}

/* ---- Codex: exec --json ------------------------------------------------ */

static void codex_thread(struct watch *w, json_t *ev)
{
	const char *tid = json_string_value(json_object_get(ev, "thread_id"));
	if (tid && w->agent == NULL && w->g == NULL)
		w->agent = xasprintf("codex thread %s", tid);
}

static const char *str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Records the item unless seen; returns true when it is (now) pending. */
static bool codex_seen(struct watch *w, json_t *item, struct call **calls)
{
	const char *key = str(item, "id");

	if (key && json_object_get(w->pending, key)) {
		agent_calls_free(calls);
		return true;
	}
	observe(w, calls, key);
	agent_calls_free(calls);
	return key && json_object_get(w->pending, key);
}

static struct call **one_call(struct call *c)
{
	struct call **v = xcalloc(2, sizeof(*v));
	v[0] = c;
	return v;
}

static void codex_command(struct watch *w, json_t *item, bool completed)
{
	const char *status = str(item, "status");
	json_t *ec = json_object_get(item, "exit_code"), *id = json_object_get(item, "id");
	json_t *cmd = json_object_get(item, "command");
	/* a string, or an argv array (quoted word by word); anything else is
	 * an unknown tool: never an empty command, which would read as low */
	struct call *c = json_is_string(cmd) || json_is_array(cmd)
	                     ? agent_canonical_call("shell", "shell",
	                                            json_pack("{s:O}", "command", cmd), id,
	                                            SHAPE_CANONICAL)
	                     : NULL;

	if (c == NULL)
		c = agent_other_call("command_execution", item, id);
	if (codex_seen(w, item, one_call(c)) && completed)
		finish(w, str(item, "id"), !(status && strcmp(status, "declined") == 0),
		       json_is_integer(ec) ? (int)json_integer_value(ec) : -1,
		       str(item, "aggregated_output"));
}

/* One call per changed file; the first is recorded as apply_patch. */
static void codex_patch(struct watch *w, json_t *item, bool completed)
{
	json_t *changes = json_object_get(item, "changes"), *ch, *id = json_object_get(item, "id");
	const char *status = str(item, "status");
	struct call **calls = NULL;
	size_t i, n = 0;

	json_array_foreach(changes, i, ch) {
		const char *path = str(ch, "path"), *kind = str(ch, "kind");
		char *q = path ? agent_shell_quote(path) : NULL;
		struct call *c = path == NULL ? NULL
		                 : kind && strcmp(kind, "delete") == 0
		                     ? agent_canonical_call("apply_patch", "shell",
		                                            json_pack("{s:s++}", "command", "rm -- ", q, ""),
		                                            id, SHAPE_CANONICAL)
		                     : agent_canonical_call("apply_patch", "write_file",
		                                            json_pack("{s:s, s:s}", "path", path,
		                                                      "content", ""),
		                                            id, SHAPE_CANONICAL);
		free(q);
		if (c == NULL)
			continue;
		calls = xreallocarray(calls, n + 2, sizeof(*calls));
		calls[n++] = c;
		calls[n] = NULL;
	}
	if (n == 0)
		calls = one_call(agent_other_call("apply_patch", item, id));
	else
		json_object_set(calls[0]->input, "changes", changes);
	if (codex_seen(w, item, calls) && completed)
		finish(w, str(item, "id"), !(status && strcmp(status, "declined") == 0),
		       status && strcmp(status, "failed") == 0 ? 1 : 0, NULL);
}

static void codex_mcp(struct watch *w, json_t *item, bool completed)
{
	const char *server = str(item, "server"), *tool = str(item, "tool");
	json_t *id = json_object_get(item, "id"), *res = json_object_get(item, "result");
	char *name = xasprintf("mcp:%s.%s", server ? server : "?", tool ? tool : "?");
	bool failed = json_object_get(item, "error") && !json_is_null(json_object_get(item, "error"));

	if (codex_seen(w, item,
	               agent_tool_calls(name, tool ? tool : "?", json_object_get(item, "arguments"),
	                                id)) &&
	    completed) {
		char *text = content_text(json_object_get(res, "content"));
		finish(w, str(item, "id"), true, failed ? 1 : 0, text);
		free(text);
	}
	free(name);
}

static void codex_search(struct watch *w, json_t *item, bool completed)
{
	json_t *id = json_object_get(item, "id");
	json_t *args = json_pack("{s:s?}", "query", str(item, "query"));

	if (codex_seen(w, item, one_call(agent_other_call("web_search", args, id))) && completed)
		finish(w, str(item, "id"), true, 0, NULL);
	json_decref(args);
}

static const struct {
	const char *type;
	void (*fn)(struct watch *, json_t *, bool);
} codex_items[] = {
	{"command_execution", codex_command},
	{"file_change", codex_patch},
	{"mcp_tool_call", codex_mcp},
	{"web_search", codex_search},
};

static void codex_item(struct watch *w, json_t *ev, bool completed)
{
	json_t *item = json_object_get(ev, "item");
	const char *type = str(item, "type");

	for (size_t i = 0; type && i < nitems(codex_items); i++)
		if (strcmp(type, codex_items[i].type) == 0)
			codex_items[i].fn(w, item, completed);
}

static void codex_started(struct watch *w, json_t *ev)
{
	codex_item(w, ev, false);
}

static void codex_completed(struct watch *w, json_t *ev)
{
	codex_item(w, ev, true);
}

/* ---- The stream ----------------------------------------------------- */

static const struct {
	enum format format;
	const char *type;
	void (*fn)(struct watch *, json_t *);
} events[] = {
	{FMT_CLAUDE, "system", claude_init},
	{FMT_CLAUDE, "assistant", claude_message},
	{FMT_CLAUDE, "user", claude_message},
	{FMT_CODEX, "thread.started", codex_thread},
	{FMT_CODEX, "item.started", codex_started},
	{FMT_CODEX, "item.completed", codex_completed},
};

/* Shows each NUL in j's strings as U+FFFD. A stream line holding a
 * \u0000 anywhere (a command's output, a model's text) was not read at all
 * and the tool calls in it went unrecorded; read as C strings, a command
 * would end at its NUL and hide the rest. */
static void nul_repair(json_t *j)
{
	const char *p = json_string_value(j), *key;
	size_t n = json_string_length(j), i;
	json_t *v;
	struct buf b;

	if (json_is_object(j))
		json_object_foreach(j, key, v) nul_repair(v);
	else if (json_is_array(j))
		json_array_foreach(j, i, v) nul_repair(v);
	if (p == NULL || memchr(p, '\0', n) == NULL)
		return;
	buf_init(&b, 0);
	for (i = 0; i < n; i++)
		buf_append(&b, p[i] ? p + i : "\xef\xbf\xbd", p[i] ? 1 : 3);
	json_string_setn(j, b.data, b.len);
	buf_free(&b);
}

/* A line watch cannot read (not JSON, nested too deep, over the line cap)
 * may hold tool calls the agent ran: it is recorded as a rejected event,
 * as the gate records one. Only counted on stderr, it left no trace in the
 * log that anything was missed there. */
static void watch_reject(struct watch *w, size_t lineno, const char *why, const char *line,
                         size_t len)
{
	struct gate *g;
	char *note;

	w->skipped++;
	if ((g = watch_gate(w)) == NULL)
		return;
	note = gate_reject_note(g, lineno, why, line, len);
	if (strcmp(note, why) != 0) /* it says the log refused it */
		fprintf(stderr, "airlock watch: line %zu: %s\n", lineno, note);
	free(note);
}

static void watch_line(struct watch *w, size_t lineno, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *ev = protocol_load_repaired(line, len, JSON_ALLOW_NUL, &jerr);
	const char *type;

	nul_repair(ev);
	type = str(ev, "type");

	for (size_t i = 0; type && i < nitems(events); i++)
		if ((w->format == FMT_AUTO || w->format == events[i].format) &&
		    strcmp(type, events[i].type) == 0) {
			events[i].fn(w, ev);
		}
	if (ev == NULL && !protocol_blank(line, len)) {
		char *why = xasprintf("not read: %s at column %d", jerr.text, jerr.column);
		watch_reject(w, lineno, why, line, len);
		free(why);
	} else if (ev == NULL && len > 0)
		w->skipped++;
	json_decref(ev);
}

/* --tee: a line over the cap is copied as it arrives, never held whole;
 * its newline follows with the (then empty) line itself. */
static void tee_pass(void *arg, const char *p, size_t n, bool first)
{
	bool *tee = arg;

	(void)first;
	if (*tee && fwrite(p, 1, n, stdout) != n)
		*tee = false;
}

static int watch_stream(struct watch *w, bool tee)
{
	struct reader *r = reader_new(STDIN_FILENO, w->opts.line_cap);
	const char *line;
	size_t len, lineno = 0;
	bool toolong;
	int rc;

	reader_set_pass(r, tee_pass, &tee);
	while ((rc = reader_next(r, &line, &len, &toolong)) == 1) {
		lineno++;
		if (tee && (fwrite(line, 1, len, stdout) != len || putchar('\n') == EOF ||
		            fflush(stdout) == EOF))
			tee = false; /* the reader went away; keep watching */
		if (toolong)
			watch_reject(w, lineno, "not read: longer than the line cap", NULL, 0);
		else
			watch_line(w, lineno, line, len);
	}
	if (rc < 0)
		fprintf(stderr, "airlock watch: cannot read input: %s\n", strerror(errno));
	reader_free(r);
	fprintf(stderr, "airlock watch: %zu tool calls recorded, %zu flagged high or critical%s",
	        w->calls, w->flagged, w->skipped ? "" : "\n");
	if (w->skipped)
		fprintf(stderr, ", %zu lines not read (not JSON or over the line cap)\n", w->skipped);
	return rc < 0 || w->errors ? EXIT_INTERNAL : EXIT_OK;
}

static int parse_format(const char *s, enum format *f)
{
	static const char *const names[] = {"auto", "claude", "codex"};
	for (size_t i = 0; i < nitems(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (enum format)i;
			return 0;
		}
	return -1;
}

int cmd_watch(int argc, char **argv)
{
	struct watch w = {.opts = {.mode = "watch", .no_tty = true}};
	bool tee = false;
	char *err = NULL;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", watch_longopts, NULL)) != -1) {
		if ((rc = agent_gate_option(c, optarg, &w.opts, &err)) < 0) {
			fprintf(stderr, "airlock watch: %s\n", err);
			free(err);
			return EXIT_USAGE;
		} else if (rc > 0)
			continue;
		if (c == 'f' && parse_format(optarg, &w.format) == 0)
			continue;
		if (c == 'f')
			fprintf(stderr, "airlock watch: --format wants auto, claude or codex (got \"%s\")\n",
			        optarg);
		if (c == 'e') {
			tee = true;
			continue;
		}
		fputs(watch_usage, c == 'h' ? stdout : stderr);
		return c == 'h' ? EXIT_OK : EXIT_USAGE;
	}
	if (optind != argc) {
		fprintf(stderr, "airlock watch: unexpected argument '%s' (the events come on stdin)\n",
		        argv[optind]);
		fputs(watch_usage, stderr);
		return EXIT_USAGE;
	}
	w.pending = json_object();
	rc = watch_stream(&w, tee);
	if (gate_close(w.g) < 0 && rc == EXIT_OK)
		rc = EXIT_INTERNAL; /* as a call the log refused: it is not whole */
	json_decref(w.pending);
	free(w.cwd);
	free(w.agent);
	return rc;
}
