/*
 * cmd_mcp.c: `airlock mcp -- SERVER [ARGS...]`, a transparent MCP proxy
 * over stdio. JSON-RPC lines pass both ways unchanged except tools/call
 * requests from the client: those are classified as mcp:<server>.<tool>,
 * recorded, then forwarded, held for approval, or answered by airlock with
 * a tool error result.
 * Rules it keeps:
 *  - fail closed: a client line airlock cannot parse strictly is answered
 *    with a JSON-RPC parse error and never forwarded (the server might read
 *    it differently, e.g. a duplicate "method" key);
 *  - the server's tool annotations may raise a tier, never lower it;
 *  - one thread (main) touches the gate and the audit log; the pump thread
 *    only forwards server lines and queues what it learns.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "gate/agent.h"
#include "gate/commands.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"

#define RESULT_TEXT_CAP (64u << 10) /* tool result text kept in the log */
#define LIST_WAIT_S 10              /* longest wait for a tools/list answer */

static const char mcp_usage[] =
	"usage: airlock mcp [OPTIONS] -- SERVER [ARGS...]\n"
	"Runs the MCP stdio server SERVER and proxies JSON-RPC between it and the client\n"
	"on stdin/stdout; tools/call requests are classified, recorded, and forwarded,\n"
	"held for approval or answered with an error result.\n"
	"  --name NAME        the server's name in mcp:NAME.TOOL (default: serverInfo.name\n"
	"                     from the initialize response, else SERVER's basename)\n"
	AGENT_GATE_USAGE;

static const struct option mcp_longopts[] = {
	AGENT_GATE_LONGOPTS,
	{"name", required_argument, NULL, 'n'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct mcp {
	struct gate *g;
	struct agent_child srv;
	FILE *to_server;
	size_t cap;
	int wake[2];            /* the pump writes here when a call's response came
	                         * (done) or the server is gone */
	pthread_mutex_t out;    /* keeps lines to the client (stdout) whole */
	bool passing;           /* pump: a long line is being passed, out held */
	pthread_mutex_t lock;   /* guards the fields below */
	pthread_cond_t listed;  /* a tools/list answer came, or the server left */
	int lists;              /* tools/list requests not answered yet */
	bool server_gone;
	char *server;           /* NAME in mcp:NAME.TOOL; owned */
	char *cwd;              /* the server's cwd (airlock's), or NULL; owned */
	bool named;             /* --name given: serverInfo does not replace it */
	bool initializing;      /* initialize sent, not answered (names wait for it) */
	bool init_seen;         /* the client has sent initialize (main thread only) */
	bool init_batched;      /* the batch being read holds an initialize (main
	                         * thread only): not sent until the batch is read */
	json_t *pending;        /* id text -> {"kind", "audit", "decision"} */
	json_t *annotations;    /* each tool a tools/list answer named -> its
	                         * annotations ({} when it has none) */
	json_t *done;           /* [{"audit","decision","error","text"}] for the main thread */
};

/* Writes one line to the client; the lock keeps lines whole. */
static void client_write(struct mcp *m, json_t *msg, const char *raw, size_t len)
{
	pthread_mutex_lock(&m->out);
	if (msg)
		protocol_write(stdout, msg);
	else if (fwrite(raw, 1, len, stdout) == len && putchar('\n') != EOF)
		fflush(stdout);
	pthread_mutex_unlock(&m->out);
}

/* The key a request is matched by. A JavaScript server reads every id as
 * a double and answers with what it read: 1 and 1.0 are both 1, and
 * 9007199254740993 (past 2^53) is 9007199254740992. An id is keyed as that
 * double, so its response is matched, and a second call cannot reuse the
 * id of one in flight by writing it 1.0, or as another integer that rounds
 * to the same double (it took the first call's response). */
static char *id_key(json_t *id)
{
	double d = json_is_integer(id) ? (double)json_integer_value(id) : json_real_value(id);

	if (!json_is_number(id) || d != floor(d) || fabs(d) >= 1e21) /* JS writes 1e+21 */
		return json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	return xasprintf("%.0f", d + 0.0); /* + 0.0: -0 is 0 */
}

static void pending_add(struct mcp *m, json_t *id, json_t *what)
{
	char *k = id_key(id);
	pthread_mutex_lock(&m->lock);
	if (k && json_object_get(m->pending, k) == NULL &&
	    strcmp(json_string_value(json_object_get(what, "kind")), "tools/list") == 0)
		m->lists++;
	if (k)
		json_object_set(m->pending, k, what);
	pthread_mutex_unlock(&m->lock);
	json_decref(what);
	free(k);
}

/* ---- server -> client: forward, and learn names, annotations, results. -- */

static void learn_tools(struct mcp *m, json_t *result)
{
	json_t *tools = json_object_get(result, "tools"), *t;
	size_t i;

	/* every tool named is known, hints or not: one never named is judged
	 * without them (annotate) */
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *ann = json_object_get(t, "annotations");
		if (name && json_is_object(ann))
			json_object_set(m->annotations, name, ann);
		else if (name && json_object_get(m->annotations, name) == NULL)
			json_object_set_new(m->annotations, name, json_object());
	}
}

/* Joins the text items of a tool result, capped. Returns a new string. */
static char *result_text(json_t *result)
{
	json_t *content = json_object_get(result, "content"), *item;
	struct buf b;
	size_t i;

	buf_init(&b, RESULT_TEXT_CAP);
	json_array_foreach(content, i, item) {
		const char *t = json_string_value(json_object_get(item, "text"));
		if (t)
			buf_printf(&b, "%s%s", b.len ? "\n" : "", t);
	}
	return buf_take(&b, NULL);
}

/* A response from the server: match it to what the client asked. A
 * request the server sends (roots/list, sampling) numbers its ids on its
 * own and may reuse one the client is waiting on: it answers nothing. */
static void learn(struct mcp *m, json_t *msg)
{
	json_t *id = json_object_get(msg, "id"), *res = json_object_get(msg, "result"), *p;
	char *k = id && !json_object_get(msg, "method") ? id_key(id) : NULL;
	const char *kind, *name;
	bool finished = false;

	pthread_mutex_lock(&m->lock);
	if (k == NULL || (p = json_object_get(m->pending, k)) == NULL)
		goto out;
	kind = json_string_value(json_object_get(p, "kind"));
	name = json_string_value(json_object_get(json_object_get(res, "serverInfo"), "name"));
	if (strcmp(kind, "initialize") == 0) {
		if (name && *name && !m->named) {
			free(m->server);
			m->server = xstrdup(name);
		}
		m->initializing = false;
		pthread_cond_broadcast(&m->listed);
	} else if (strcmp(kind, "tools/list") == 0) {
		learn_tools(m, res);
		if (m->lists > 0)
			m->lists--;
		pthread_cond_broadcast(&m->listed);
	}
	else if (strcmp(kind, "call") == 0) {
		char *text = res ? result_text(res) : xstrdup("");
		long long ms = (clock_ns() - json_integer_value(json_object_get(p, "start"))) / 1000000;
		json_array_append_new(m->done,
		                      json_pack("{s:O, s:O, s:b, s:s, s:I}", "audit",
		                                json_object_get(p, "audit"), "decision",
		                                json_object_get(p, "decision"), "error",
		                                !res || json_is_true(json_object_get(res, "isError")),
		                                "text", utf8_valid(text, strlen(text)) ? text : "", "ms",
		                                (json_int_t)ms));
		free(text);
		finished = true;
	}
	json_object_del(m->pending, k);
out:
	pthread_mutex_unlock(&m->lock);
	free(k);
	/* the main thread records it now, not at the client's next line: a
	 * quiet client left the call unfinished in the log (lost if airlock
	 * was then killed). A full pipe already wakes it. */
	if (finished && write(m->wake[1], "r", 1) < 0 && errno != EAGAIN)
		fprintf(stderr, "airlock mcp: cannot wake the main thread: %s\n", strerror(errno));
}

/* A server line longer than the cap goes to the client as it arrives,
 * unread: dropped, the client would wait for its response for ever. The
 * line's end is written by passed_unread(). */
static void pass_unread(void *arg, const char *p, size_t n, bool first)
{
	struct mcp *m = arg;

	if (first) {
		pthread_mutex_lock(&m->out);
		m->passing = true;
	}
	if (fwrite(p, 1, n, stdout) != n)
		fprintf(stderr, "airlock mcp: cannot write to the client: %s\n", strerror(errno));
}

/* The end of a line pass_unread() forwarded. Not knowing whose response it
 * was, airlock stops waiting for tools/list and initialize answers (calls
 * are then judged without the server's annotations, which only ever raise
 * a tier); a call it answered is recorded when the proxy ends. */
static void passed_unread(struct mcp *m)
{
	if (putchar('\n') == EOF || fflush(stdout) == EOF)
		fprintf(stderr, "airlock mcp: cannot write to the client: %s\n", strerror(errno));
	m->passing = false;
	pthread_mutex_unlock(&m->out);
	fprintf(stderr, "airlock mcp: a server line is longer than the line cap (%zu bytes); "
	                "passed to the client unread\n", m->cap);
	pthread_mutex_lock(&m->lock);
	m->lists = 0;
	m->initializing = false;
	pthread_cond_broadcast(&m->listed);
	pthread_mutex_unlock(&m->lock);
}

static void *pump_main(void *arg)
{
	struct mcp *m = arg;
	struct reader *r = reader_new(m->srv.out_fd, m->cap);
	const char *line;
	size_t len;
	bool toolong;

	reader_set_pass(r, pass_unread, m);
	while (reader_next(r, &line, &len, &toolong) == 1) {
		json_t *msg;
		if (toolong) {
			passed_unread(m);
			continue;
		}
		client_write(m, NULL, line, len);
		/* a result cut inside an emoji by a JavaScript server: still its
		 * response (it was recorded as never answered, and a tools/list
		 * answer so held every call 10 s for the hints) */
		msg = protocol_load_repaired(line, len, 0, NULL);
		if (json_is_object(msg))
			learn(m, msg);
		else if (json_is_array(msg)) { /* a batch's responses */
			json_t *e;
			size_t i;
			json_array_foreach(msg, i, e)
				if (json_is_object(e))
					learn(m, e);
		}
		json_decref(msg);
	}
	if (m->passing) /* a read error in the middle of a long line */
		passed_unread(m);
	reader_free(r);
	pthread_mutex_lock(&m->lock);
	m->server_gone = true;
	pthread_cond_broadcast(&m->listed);
	pthread_mutex_unlock(&m->lock);
	if (write(m->wake[1], "x", 1) < 0 && errno != EAGAIN)
		fprintf(stderr, "airlock mcp: cannot wake the main thread: %s\n", strerror(errno));
	return NULL;
}

/* ---- client -> server: gate tools/call, forward the rest. ------------- */

static json_t *rpc_error(json_t *id, int code, const char *msg)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
	                 "error", "code", code, "message", msg);
}

/* The client is told why: the tier and its findings, then the decision's
 * reason ("no terminal for approval" alone would not say what was asked). */
static json_t *tool_denied(json_t *id, const struct verdict *v, const char *why)
{
	char *text = agent_reason_text("denied by airlock: ", v, why);
	json_t *r = json_pack("{s:s, s:O, s:{s:[{s:s, s:s}], s:b}}", "jsonrpc", "2.0", "id", id,
	                      "result", "content", "type", "text", "text", text, "isError", 1);
	free(text);
	return r ? r : rpc_error(id, -32603, "denied by airlock");
}

/* Raises the tier from the server's own hints about tool (NULL: no
 * tools/list answer named it); never lowers it. */
static void hints_raise(struct verdict *v, json_t *ann, const char *tool)
{
	json_t *ro = json_object_get(ann, "readOnlyHint");
	json_t *de = json_object_get(ann, "destructiveHint");

	/* the client never listed it, or the server hides it: hints nobody has
	 * seen are judged as if they said destructive */
	if (ann == NULL)
		verdict_add(v, TIER_HIGH, "mcp.tool.unlisted", (struct span){0, 0},
		            "no tools/list answer named %s, so the server's hints about it "
		            "(destructiveHint) are unknown", tool);
	else if (!json_is_true(ro) && json_is_true(de))
		verdict_add(v, TIER_HIGH, "mcp.annotation.destructive", (struct span){0, 0},
		            "the server marks %s as destructive (destructiveHint)", tool);
	else if (json_is_false(ro))
		verdict_add(v, TIER_MEDIUM, "mcp.annotation.writes", (struct span){0, 0},
		            "the server marks %s as not read-only (readOnlyHint false)", tool);
}

/* Applies the server's hints to v. A tools/list still in flight is waited
 * for (up to LIST_WAIT_S) so a client that does not wait for it cannot
 * slip a call past the annotations. */
static void annotate(struct mcp *m, struct verdict *v, const char *tool)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += LIST_WAIT_S;
	pthread_mutex_lock(&m->lock);
	while (m->lists > 0 && !m->server_gone &&
	       pthread_cond_timedwait(&m->listed, &m->lock, &until) == 0)
		;
	if (m->lists > 0) { /* never answered: do not wait for it again */
		fprintf(stderr, "airlock mcp: no answer to tools/list in %d s; deciding %s without "
		                "the server's annotations\n", LIST_WAIT_S, tool);
		m->lists = 0;
	}
	hints_raise(v, json_object_get(m->annotations, tool), tool);
	pthread_mutex_unlock(&m->lock);
}

/* True when a request with this id awaits its response. */
static bool in_flight(struct mcp *m, json_t *id)
{
	char *k = id_key(id);
	bool busy;

	pthread_mutex_lock(&m->lock);
	busy = k && json_object_get(m->pending, k) != NULL;
	pthread_mutex_unlock(&m->lock);
	free(k);
	return busy;
}

/* Every forwarded call's outcome is recorded from the response to its id:
 * a notification (no id) gets none, and a second call with the id of one
 * in flight would take its response. Such a call, once recorded as
 * received and decided, is not forwarded: an error. */
static void unanswerable(struct mcp *m, json_t *id, struct outcome *o)
{
	if (o->decision != DECISION_AUTO && o->decision != DECISION_APPROVED)
		return;
	if (id == NULL || json_is_null(id))
		outcome_set_reason(o, "a tools/call without an id (a notification) gets no "
		                      "response to record; not forwarded");
	else if (in_flight(m, id))
		outcome_set_reason(o, "a tools/call with this id is already in flight; not "
		                      "forwarded");
	else
		return;
	o->decision = DECISION_ERROR;
}

/* mcp:SERVER.TOOL. Until the server has answered initialize (at most
 * 5 s), its name is not known: a call the client pipelines behind
 * initialize waits, so that a rule on mcp:NAME.TOOL cannot be missed
 * because the call was named after the server's command. */
static char *server_tool_name(struct mcp *m, const char *tool)
{
	struct timespec until;
	char *name;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&m->lock);
	while (m->initializing && !m->server_gone &&
	       pthread_cond_timedwait(&m->listed, &m->lock, &until) == 0)
		;
	m->initializing = false; /* answered, or waited for once: not again */
	name = xasprintf("mcp:%s.%s", m->server, tool);
	pthread_mutex_unlock(&m->lock);
	return name;
}

/* Policy rules name a server's tools mcp:NAME.TOOL, NAME its serverInfo.name.
 * A tools/call sent before initialize (which MCP forbids), or in the same
 * batch (which reaches the server only once the batch is read), would be
 * named after the server's command instead, and a rule on the real name
 * would miss it: refused, unless --name fixed the name. */
static json_t *unnamed_call(struct mcp *m, json_t *id)
{
	if (m->named || (m->init_seen && !m->init_batched))
		return NULL;
	return rpc_error(id, -32600, m->init_seen
		? "airlock: a tools/call in the same batch as initialize; the server's name, "
		  "which policy rules on mcp:NAME.TOOL match, is not known until initialize is "
		  "answered: send the call after it (or run airlock mcp --name NAME); not forwarded"
		: "airlock: a tools/call before initialize; the server's name, which policy rules "
		  "on mcp:NAME.TOOL match, is not known yet: send initialize first (or run "
		  "airlock mcp --name NAME); not forwarded");
}

/* Decides one tools/call. Returns NULL to forward it, else airlock's reply. */
static json_t *gate_tools_call(struct mcp *m, json_t *req)
{
	json_t *id = json_object_get(req, "id"), *params = json_object_get(req, "params");
	json_t *args = json_object_get(params, "arguments"), *reply = NULL;
	const char *tool = json_string_value(json_object_get(params, "name"));
	struct call **calls, *whole;
	struct verdict *v;
	bool tree;
	struct outcome *o;
	struct plan pl = {0};
	char *name, *err = NULL;

	if (tool == NULL || *tool == '\0' || (args && !json_is_object(args)))
		return rpc_error(id, -32602, "airlock: tools/call needs params.name as a string and "
		                             "params.arguments as an object");
	if ((reply = unnamed_call(m, id)) != NULL)
		return reply;
	name = server_tool_name(m, tool);
	calls = agent_tool_calls(name, tool, args, id);
	/* the server resolves a relative path from its own cwd (airlock's),
	 * which --workdir does not move, or from the cwd its arguments name
	 * (relative: from its own): the classifier must too */
	agent_calls_place(calls, m->cwd);
	v = agent_classify_calls(m->g, calls);
	annotate(m, v, tool);
	/* rules match the one derived call, or with several the tool itself:
	 * an allowed host must not allow the secret read beside it */
	whole = calls[1] ? agent_other_call(name, args, id) : NULL;
	/* the server runs what it is sent (a command, a search of a tree
	 * holding a denied path) outside the sandbox: policy asks then */
	tree = agent_tree_denied(m->g, calls[0], v);
	if (whole)
		whole->unsandboxed = agent_calls_unsandboxed(calls) || tree;
	else if (tree)
		calls[0]->unsandboxed = true;
	o = gate_decide(m->g, whole ? whole : calls[0], v, GATE_ASK_PERSON, &pl);
	unanswerable(m, id, o);
	if ((o->decision == DECISION_AUTO || o->decision == DECISION_APPROVED) && id)
		pending_add(m, id, json_pack("{s:s, s:I, s:i, s:I}", "kind", "call", "audit",
		                             (json_int_t)o->audit_id, "decision", (int)o->decision,
		                             "start", (json_int_t)clock_ns()));
	else if (o->decision != DECISION_AUTO && o->decision != DECISION_APPROVED) {
		if ((o->decision != DECISION_ERROR || o->audit_id) && gate_finish(m->g, o, &err) < 0)
			fprintf(stderr, "airlock mcp: %s\n", err);
		/* an ask nobody answered says what was asked, and why */
		char *why = pl.action == ACTION_ASK && pl.reason
		                    ? xasprintf("%s (it asks: %s)", o->reason ? o->reason : "denied",
		                                pl.reason)
		                    : xstrdup(o->reason ? o->reason : "denied");
		reply = id ? tool_denied(id, v, why) : json_null();
		free(why);
	}
	free(err);
	free(name);
	plan_clear(&pl);
	outcome_free(o);
	verdict_free(v);
	agent_calls_free(calls);
	call_free(whole);
	return reply;
}

/* True for a method that is not tools/call but a lenient server could read
 * as one ("Tools/Call", " tools/call"): it would run ungated. */
static bool call_lookalike(const char *method)
{
	size_t n;

	if (method == NULL || strcmp(method, "tools/call") == 0)
		return false;
	method += strspn(method, " \t\r\n");
	n = strlen(method);
	while (n > 0 && strchr(" \t\r\n", method[n - 1]))
		n--;
	return n == strlen("tools/call") && strncasecmp(method, "tools/call", n) == 0;
}

/* The keys JSON-RPC and a tools/call's params name. */
static const char *const envelope_keys[] = {"jsonrpc", "id", "method", "params", "result",
                                            "error"};
static const char *const call_keys[] = {"name", "arguments", "_meta"};

/* The first key of obj that a reader folding case (agent_key_folds())
 * takes for one of keys[0..n) without being spelled as it ("Method",
 * "paramſ"), or NULL. */
static const char *key_variant(json_t *obj, const char *const *keys, size_t n)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
		for (size_t i = 0; i < n; i++)
			if (strcmp(key, keys[i]) != 0 && agent_key_folds(key, keys[i]))
				return key;
	return NULL;
}

/* A message with a key that a server folding case reads as a JSON-RPC
 * or tools/call key: {"method":"ping","Method":"tools/call"} is a ping
 * here and a call in a Go server (the last key wins there), "Arguments"
 * beside "arguments" other arguments than were judged. The reply, or
 * NULL when there is none such. */
static json_t *key_smuggled(json_t *msg, const char *method)
{
	const char *odd = key_variant(msg, envelope_keys, nitems(envelope_keys));
	json_t *params = json_object_get(msg, "params"), *r;
	char *text;

	if (odd == NULL && method && strcmp(method, "tools/call") == 0 && json_is_object(params))
		odd = key_variant(params, call_keys, nitems(call_keys));
	if (odd == NULL)
		return NULL;
	text = xasprintf("airlock: the key \"%s\" is not a JSON-RPC or MCP key, but a server "
	                 "that folds case reads it as one; not forwarded",
	                 odd);
	r = rpc_error(json_object_get(msg, "id"), -32600, text);
	free(text);
	return r ? r : json_null(); /* fail safe: not forwarded, whatever happens */
}

/* One message from the client: NULL to forward it, else airlock's reply
 * (JSON null: none, for a notification). */
static json_t *client_message(struct mcp *m, json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	json_t *id = json_object_get(msg, "id"), *odd = key_smuggled(msg, method);

	if (odd) /* answered even without an id: the id may be the variant */
		return odd;
	/* a method that is not a string (["tools/call"]) is not a request
	 * JSON-RPC knows, but a server that looks its handler up by it
	 * (handlers[msg.method] in JavaScript) reads "tools/call": it ran
	 * ungated and unrecorded */
	if (json_object_get(msg, "method") && method == NULL)
		return id && !json_is_null(id)
		           ? rpc_error(id, -32600, "airlock: the method is not a string, which a "
		                                   "server could read as tools/call; not forwarded")
		           : json_null();
	if (call_lookalike(method))
		return id && !json_is_null(id)
		           ? rpc_error(id, -32601, "airlock: the method is not tools/call, but a "
		                                   "server could read it as one; not forwarded")
		           : json_null();
	if (method == NULL || id == NULL || json_is_null(id))
		return strcmp(method ? method : "", "tools/call") == 0 ? gate_tools_call(m, msg)
		                                                        : NULL;
	if (strcmp(method, "tools/call") == 0)
		return gate_tools_call(m, msg);
	/* every request is remembered until answered: one reusing the id of a
	 * request in flight would take its response (a ping answered first
	 * would be recorded as a call's outcome) */
	if (in_flight(m, id))
		return rpc_error(id, -32600, "airlock: a request with this id is already in flight; "
		                             "not forwarded");
	if (strcmp(method, "initialize") == 0)
		m->init_seen = true;
	if (strcmp(method, "initialize") == 0 && !m->named) {
		pthread_mutex_lock(&m->lock);
		m->initializing = true;
		pthread_mutex_unlock(&m->lock);
	}
	pending_add(m, id, json_pack("{s:s}", "kind", method));
	return NULL;
}

/* Returns false (said on stderr) when the line could not be written. */
static bool server_write(struct mcp *m, json_t *msg, const char *raw, size_t len)
{
	bool ok = m->to_server &&
	          (msg ? json_dumpf(msg, m->to_server, JSON_COMPACT) == 0
	               : fwrite(raw, 1, len, m->to_server) == len) &&
	          fputc('\n', m->to_server) != EOF && fflush(m->to_server) != EOF;
	if (!ok)
		fprintf(stderr, "airlock mcp: cannot write to the server: %s\n", strerror(errno));
	return ok;
}

/* Forgets a request in flight that never reached the server; a call is
 * finished in the log as not run. */
static void unsent(struct mcp *m, json_t *id)
{
	char *k = id_key(id), *err = NULL;
	json_t *p;
	const char *kind;
	json_int_t audit = 0;

	pthread_mutex_lock(&m->lock);
	if (k && (p = json_object_get(m->pending, k)) != NULL) {
		kind = json_string_value(json_object_get(p, "kind"));
		if (strcmp(kind, "call") == 0)
			audit = json_integer_value(json_object_get(p, "audit"));
		else if (strcmp(kind, "tools/list") == 0 && m->lists > 0)
			m->lists--;
		else if (strcmp(kind, "initialize") == 0)
			m->initializing = false;
		json_object_del(m->pending, k);
	}
	pthread_mutex_unlock(&m->lock);
	free(k);
	if (audit) {
		struct outcome *o = outcome_new();
		o->audit_id = audit;
		o->decision = DECISION_ERROR;
		outcome_set_reason(o, "it could not be written to the server; not run");
		if (gate_finish(m->g, o, &err) < 0) {
			fprintf(stderr, "airlock mcp: %s\n", err);
			free(err);
		}
		outcome_free(o);
	}
}

/* The requests among msgs (one message, or a batch's) that could not be
 * written: each gets an error answer, as the client waited for ever for
 * one. Returns the answers: one, an array, or NULL (notifications only). */
static json_t *forward_failed(struct mcp *m, json_t *msgs)
{
	json_t *one = json_is_object(msgs) ? msgs : NULL, *out = json_array(), *e;
	size_t i, n = one ? 1 : json_array_size(msgs);

	for (i = 0; i < n; i++) {
		json_t *id = json_object_get(e = one ? one : json_array_get(msgs, i), "id");
		if (id == NULL || json_is_null(id) || json_object_get(e, "method") == NULL)
			continue;
		unsent(m, id);
		json_array_append_new(out, rpc_error(id, -32603, "airlock: cannot write to the "
		                                                 "server; not forwarded"));
	}
	if (json_array_size(out) == 0 || (one && json_array_size(out) == 1)) {
		json_t *r = json_array_size(out) ? json_incref(json_array_get(out, 0)) : NULL;
		json_decref(out);
		return r;
	}
	return out;
}

/* A batch: forward what passes, answer the rest in one batch reply. */
static void client_batch(struct mcp *m, json_t *batch, const char *raw, size_t len)
{
	json_t *fwd = json_array(), *replies = json_array(), *e;
	size_t i;

	json_array_foreach(batch, i, e) {
		const char *method = json_string_value(json_object_get(e, "method"));
		if (method && strcmp(method, "initialize") == 0)
			m->init_batched = m->init_seen = true;
	}
	json_array_foreach(batch, i, e) {
		json_t *r = json_is_object(e) ? client_message(m, e)
		                              : rpc_error(NULL, -32600, "airlock: invalid request");
		if (r == NULL)
			json_array_append(fwd, e);
		else if (!json_is_null(r))
			json_array_append(replies, r);
		json_decref(r);
	}
	if (json_array_size(fwd) &&
	    !(json_array_size(fwd) == json_array_size(batch) ? server_write(m, NULL, raw, len)
	                                                      : server_write(m, fwd, NULL, 0))) {
		json_t *f = forward_failed(m, fwd);
		json_array_extend(replies, f);
		json_decref(f);
	}
	m->init_batched = false;
	if (json_array_size(replies))
		client_write(m, replies, NULL, 0);
	json_decref(fwd);
	json_decref(replies);
}

/* Answers a client line that is not forwarded with error code (-32700
 * unread, -32600 an empty batch), and records it in the log: a duplicate
 * key meant for the server is evidence, as a line the gate cannot read is. */
static void client_rejected(struct mcp *m, int code, size_t lineno, const char *why,
                            const char *line, size_t len)
{
	char *note = gate_reject_note(m->g, lineno, why, line, len);
	char *text = xasprintf("airlock: %s; not forwarded", note);
	json_t *r = rpc_error(NULL, code, text);

	client_write(m, r, NULL, 0);
	json_decref(r);
	free(text);
	free(note);
}

static void client_line(struct mcp *m, size_t lineno, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *msg, *r = NULL;
	char *err;

	if (len == 0)
		return;
	msg = memchr(line, '\0', len) ? NULL : json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (msg == NULL || !(json_is_object(msg) || json_is_array(msg))) {
		err = xasprintf("cannot parse the message strictly (%s)",
		                msg ? "not an object" : memchr(line, '\0', len) ? "a NUL byte"
		                                                             : jerr.text);
		client_rejected(m, -32700, lineno, err, line, len);
		free(err);
	} else if (json_is_array(msg) && json_array_size(msg) == 0) /* JSON-RPC: one error */
		client_rejected(m, -32600, lineno, "an empty batch is an invalid request", line, len);
	else if (json_is_array(msg))
		client_batch(m, msg, line, len);
	else if ((r = client_message(m, msg)) == NULL) {
		if (!server_write(m, NULL, line, len) && (r = forward_failed(m, msg)) != NULL)
			client_write(m, r, NULL, 0);
	} else if (!json_is_null(r))
		client_write(m, r, NULL, 0);
	json_decref(r);
	json_decref(msg);
}

/* Records the results the pump saw (main thread: the log is not shared). */
static void drain_done(struct mcp *m)
{
	json_t *done, *e;
	size_t i;

	pthread_mutex_lock(&m->lock);
	done = m->done;
	m->done = json_array();
	pthread_mutex_unlock(&m->lock);
	json_array_foreach(done, i, e) {
		struct outcome *o = outcome_new();
		const char *text = json_string_value(json_object_get(e, "text"));
		char *err = NULL;

		o->audit_id = json_integer_value(json_object_get(e, "audit"));
		o->decision = (enum decision)json_integer_value(json_object_get(e, "decision"));
		o->ran = true;
		o->exit_code = json_is_true(json_object_get(e, "error")) ? 1 : 0;
		o->applied = "run";
		o->duration_ms = json_integer_value(json_object_get(e, "ms"));
		o->out = xstrdup(text ? text : "");
		o->outlen = strlen(o->out);
		o->truncated = o->outlen >= RESULT_TEXT_CAP - 1;
		if (gate_finish(m->g, o, &err) < 0) {
			fprintf(stderr, "airlock mcp: %s\n", err);
			free(err);
		}
		outcome_free(o);
	}
	json_decref(done);
}

/* Calls forwarded whose response was never read (the server left, or
 * sent one longer than the line cap, passed on unread): each still gets
 * its outcome in the audit log. */
static void finish_unanswered(struct mcp *m)
{
	const char *k;
	json_t *p;

	json_object_foreach(m->pending, k, p) {
		struct outcome *o;
		char *err = NULL;
		if (strcmp(json_string_value(json_object_get(p, "kind")), "call") != 0)
			continue;
		o = outcome_new();
		o->audit_id = json_integer_value(json_object_get(p, "audit"));
		o->decision = DECISION_ERROR;
		outcome_set_reason(o, "forwarded, but no response from the server was read (it "
		                      "left, or its response was longer than the line cap and was "
		                      "passed to the client unread)");
		if (gate_finish(m->g, o, &err) < 0) {
			fprintf(stderr, "airlock mcp: %s\n", err);
			free(err);
		}
		outcome_free(o);
	}
}

/* The pump woke the main thread: records the responses it read; true
 * when the server is gone (nothing more can be answered). */
static bool mcp_woken(struct mcp *m)
{
	char b[256];
	bool gone;

	while (read(m->wake[0], b, sizeof(b)) == (ssize_t)sizeof(b))
		;
	drain_done(m);
	pthread_mutex_lock(&m->lock);
	gone = m->server_gone;
	pthread_mutex_unlock(&m->lock);
	return gone;
}

/* Reads client lines until the client or the server goes away. */
static void mcp_loop(struct mcp *m)
{
	struct reader *r = reader_new(STDIN_FILENO, m->cap);
	struct pollfd pfd[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = m->wake[0], .events = POLLIN}};
	const char *line;
	size_t len, lineno = 0;
	bool toolong;

	for (;;) {
		if (!reader_ready(r)) {
			while (poll(pfd, 2, -1) < 0 && errno == EINTR)
				;
			if (pfd[1].revents && mcp_woken(m)) /* the server is gone */
				break;
			if (pfd[1].revents) /* a call's response: recorded; wait again */
				continue;
		}
		if (reader_next(r, &line, &len, &toolong) != 1)
			break;
		lineno++;
		if (toolong)
			client_rejected(m, -32700, lineno, "message longer than the line cap", NULL, len);
		else
			client_line(m, lineno, line, len);
		drain_done(m);
	}
	reader_free(r);
}

/* Closes the server's stdin, gives it 2 s, then SIGTERM, then SIGKILL. */
static int server_stop(struct mcp *m)
{
	static const int sigs[] = {0, SIGTERM, SIGKILL};
	int st;

	if (m->to_server)
		fclose(m->to_server);
	m->to_server = NULL;
	for (size_t i = 0; i < nitems(sigs); i++) {
		if (sigs[i])
			kill(m->srv.pid, sigs[i]);
		for (int t = 0; t < 200; t++) {
			if (waitpid(m->srv.pid, &st, WNOHANG) == m->srv.pid)
				return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			usleep(10000);
		}
	}
	return agent_wait(m->srv.pid);
}

static void mcp_free(struct mcp *m)
{
	json_decref(m->pending);
	json_decref(m->annotations);
	json_decref(m->done);
	free(m->server);
	free(m->cwd);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->out);
	pthread_cond_destroy(&m->listed);
	for (int i = 0; i < 2; i++)
		if (m->wake[i] >= 0)
			close(m->wake[i]);
}

static int mcp_serve(struct mcp *m, char **argv, char **errstr)
{
	pthread_t pump;
	int rc;

	/* its stderr is relayed as run relays an agent's: a server that logs
	 * the arguments a model wrote must not draw over the approval screen */
	if (agent_spawn_piped(argv, &m->srv, &rc, errstr) < 0)
		return rc;
	agent_forward_signals(m->srv.pid);
	m->to_server = fdopen(m->srv.in_fd, "w");
	if (m->to_server == NULL || agent_relay_start(&m->srv, errstr) < 0 ||
	    pthread_create(&pump, NULL, pump_main, m) != 0) {
		if (*errstr == NULL)
			*errstr = xasprintf("cannot start the proxy: %s", strerror(errno));
		kill(m->srv.pid, SIGKILL);
		agent_wait(m->srv.pid);
		agent_relay_stop(&m->srv);
		return EXIT_INTERNAL;
	}
	mcp_loop(m);
	rc = server_stop(m);
	agent_relay_stop(&m->srv);
	pthread_join(pump, NULL);
	close(m->srv.out_fd);
	drain_done(m);
	finish_unanswered(m);
	return rc;
}

int cmd_mcp(int argc, char **argv)
{
	struct gate_opts o = {.mode = "mcp"};
	struct mcp m = {.wake = {-1, -1}, .pending = json_object(), .annotations = json_object(),
	                .done = json_array()};
	char *err = NULL, *cmdline = NULL;
	int c, rc = EXIT_USAGE;

	pthread_mutex_init(&m.lock, NULL);
	pthread_mutex_init(&m.out, NULL);
	pthread_cond_init(&m.listed, NULL);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", mcp_longopts, NULL)) != -1) {
		if ((rc = agent_gate_option(c, optarg, &o, &err)) < 0) {
			rc = EXIT_USAGE;
			goto fail;
		}
		if (rc > 0)
			continue;
		if (c == 'n' && *optarg) {
			free(m.server);
			m.server = xstrdup(optarg);
			m.named = true;
			continue;
		}
		fputs(mcp_usage, c == 'h' ? stdout : stderr);
		rc = c == 'h' ? EXIT_OK : EXIT_USAGE;
		goto out;
	}
	rc = EXIT_USAGE;
	if (optind >= argc) {
		fputs("airlock mcp: no server given: the command that runs the MCP server goes "
		      "after --\n", stderr);
		fputs(mcp_usage, stderr);
		goto out;
	}
	if (m.server == NULL) {
		char *copy = xstrdup(argv[optind]);
		m.server = xstrdup(basename(copy));
		free(copy);
	}
	o.agent = cmdline = agent_command_line(argv + optind);
	m.cap = o.line_cap ? o.line_cap : PROTOCOL_LINE_CAP;
	if ((m.cwd = getcwd(NULL, 0)) == NULL) {
		err = xasprintf("cannot read the current directory, where the server runs: %s",
		                strerror(errno));
		rc = EXIT_INTERNAL;
		goto fail;
	}
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(m.wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		err = xasprintf("cannot create a pipe: %s", strerror(errno));
		rc = EXIT_INTERNAL;
		goto fail;
	}
	if (gate_open(&o, &m.g, &rc, &err) < 0)
		goto fail;
	gate_watch_results(m.g, STDOUT_FILENO); /* the client */
	rc = mcp_serve(&m, argv + optind, &err);
	if (err)
		goto fail;
	goto out;
fail:
	fprintf(stderr, "airlock mcp: %s\n", err);
	free(err);
out:
	/* the server's status, unless it says success and the log is not whole */
	if (gate_close(m.g) < 0 && rc == EXIT_OK)
		rc = EXIT_INTERNAL;
	mcp_free(&m);
	free(cmdline);
	return rc;
}
