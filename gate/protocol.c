/*
 * protocol.c: decode tool calls in every accepted shape, encode results.
 * Rules it keeps:
 *  - strict JSON (jansson): duplicate keys, NUL bytes and invalid UTF-8 are
 *    errors, never silently repaired into a different call;
 *  - a field of the wrong type is an error naming the field and the type;
 *  - shapes, tool names and field names are tables: a new agent is a row.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/encode.h"
#include "core/jalloc.h"
#include "core/util.h"
#include "gate/agent.h"
#include "gate/protocol.h"

static const struct {
	const char *alias;
	enum tool tool;
} tool_aliases[] = {
	{"shell", TOOL_SHELL},          {"Bash", TOOL_SHELL},
	{"bash", TOOL_SHELL},           {"run_shell_command", TOOL_SHELL},
	{"exec_command", TOOL_SHELL},   {"local_shell", TOOL_SHELL},
	{"run_terminal_cmd", TOOL_SHELL}, {"execute_command", TOOL_SHELL},
	{"sql", TOOL_SQL},              {"query", TOOL_SQL},
	{"run_sql", TOOL_SQL},          {"execute_sql", TOOL_SQL},
	{"read_file", TOOL_READ_FILE},  {"Read", TOOL_READ_FILE},
	{"read_text_file", TOOL_READ_FILE}, {"view", TOOL_READ_FILE},
	{"write_file", TOOL_WRITE_FILE}, {"Write", TOOL_WRITE_FILE},
	{"create_file", TOOL_WRITE_FILE},
	{"edit_file", TOOL_EDIT_FILE},  {"Edit", TOOL_EDIT_FILE},
	{"MultiEdit", TOOL_EDIT_FILE},  {"replace", TOOL_EDIT_FILE},
	{"str_replace", TOOL_EDIT_FILE},
	{"http", TOOL_HTTP},            {"WebFetch", TOOL_HTTP},
	{"fetch", TOOL_HTTP},           {"web_fetch", TOOL_HTTP},
	{"http_request", TOOL_HTTP},
};

/* Input field aliases: the agent's name -> the protocol's name, for every
 * built-in tool (ANY_TOOL; unknown tools keep their input as sent) or for
 * one. Gemini CLI's run_shell_command says "directory" for the directory
 * the command runs in: ignored, `rm -rf build` with "directory":"web" ran
 * in the workdir, on another build/ than the one the agent meant. */
#define ANY_TOOL TOOL_OTHER
static const struct {
	const char *alias, *field;
	enum tool tool;
} field_aliases[] = {
	{"file_path", "path", ANY_TOOL},   {"filePath", "path", ANY_TOOL},
	{"filename", "path", ANY_TOOL},    {"old_string", "old", ANY_TOOL},
	{"new_string", "new", ANY_TOOL},   {"oldText", "old", ANY_TOOL},
	{"newText", "new", ANY_TOOL},      {"cmd", "command", ANY_TOOL},
	{"sql", "query", ANY_TOOL},        {"db", "database", ANY_TOOL},
	{"text", "content", ANY_TOOL},     {"timeout", "timeout_ms", ANY_TOOL},
	{"workdir", "cwd", ANY_TOOL},      {"directory", "cwd", TOOL_SHELL},
};

static bool alias_applies(size_t i, enum tool t)
{
	return field_aliases[i].tool == ANY_TOOL || field_aliases[i].tool == t;
}

/* Required string fields per tool. */
static const struct {
	enum tool tool;
	const char *fields[3];
} required[] = {
	{TOOL_SHELL, {"command"}},
	{TOOL_SQL, {"query"}},
	{TOOL_READ_FILE, {"path"}},
	{TOOL_WRITE_FILE, {"path", "content"}},
	{TOOL_EDIT_FILE, {"path"}},
	{TOOL_HTTP, {"url"}},
};

enum tool protocol_tool_alias(const char *name)
{
	for (size_t i = 0; i < nitems(tool_aliases); i++)
		if (strcmp(tool_aliases[i].alias, name) == 0)
			return tool_aliases[i].tool;
	return TOOL_OTHER;
}

static const char *json_type_name(const json_t *j)
{
	static const char *const names[] = {"object", "array",  "string", "integer",
	                                    "real",   "true",   "false",  "null"};
	return j ? names[json_typeof(j)] : "nothing";
}

/* The pieces every shape yields before normalisation. */
struct raw_call {
	enum shape shape;
	json_t *id;        /* borrowed */
	const char *name;
	json_t *input;     /* borrowed, or owned when parsed from text */
	bool input_owned;
	const char *cwd;
};

static int take_name(json_t *obj, const char *key, const char **out, char **errstr)
{
	json_t *n = json_object_get(obj, key);
	if (!json_is_string(n) || json_string_length(n) == 0) {
		*errstr = xasprintf("\"%s\" must be a non-empty string (got %s)", key,
		                    json_type_name(n));
		return -1;
	}
	*out = json_string_value(n);
	return 0;
}

/* The input of a call given as JSON text (OpenAI arguments). */
static int take_arguments_text(json_t *args, struct raw_call *rc, char **errstr)
{
	json_error_t jerr;

	if (!json_is_string(args)) {
		*errstr = xasprintf("\"arguments\" must be a string of JSON text (got %s)",
		                    json_type_name(args));
		return -1;
	}
	rc->input = json_loadb(json_string_value(args), json_string_length(args),
	                       JSON_REJECT_DUPLICATES, &jerr);
	if (rc->input == NULL) {
		*errstr = xasprintf("\"arguments\" is not valid JSON: %s at column %d", jerr.text,
		                    jerr.column);
		return -1;
	}
	rc->input_owned = true;
	return 0;
}

static int shape_mcp(json_t *root, struct raw_call *rc, char **errstr)
{
	json_t *method = json_object_get(root, "method"), *params = json_object_get(root, "params");

	rc->shape = SHAPE_MCP;
	rc->id = json_object_get(root, "id");
	if (!json_is_string(method) || strcmp(json_string_value(method), "tools/call") != 0) {
		*errstr = xasprintf("not a tool call: MCP method %s",
		                    json_is_string(method) ? json_string_value(method) : "(none)");
		return -1;
	}
	if (!json_is_object(params)) {
		*errstr = xstrdup("MCP tools/call needs \"params\" as an object");
		return -1;
	}
	rc->input = json_object_get(params, "arguments");
	return take_name(params, "name", &rc->name, errstr);
}

static int shape_anthropic(json_t *root, struct raw_call *rc, char **errstr)
{
	rc->shape = SHAPE_ANTHROPIC;
	rc->id = json_object_get(root, "id");
	rc->input = json_object_get(root, "input");
	return take_name(root, "name", &rc->name, errstr);
}

static int shape_responses(json_t *root, struct raw_call *rc, char **errstr)
{
	rc->shape = SHAPE_RESPONSES;
	rc->id = json_object_get(root, "call_id");
	if (rc->id == NULL)
		rc->id = json_object_get(root, "id");
	if (take_name(root, "name", &rc->name, errstr) < 0)
		return -1;
	return take_arguments_text(json_object_get(root, "arguments"), rc, errstr);
}

static int shape_chat(json_t *root, struct raw_call *rc, char **errstr)
{
	json_t *fn = json_object_get(root, "function");

	rc->shape = SHAPE_CHAT;
	rc->id = json_object_get(root, "id");
	if (!json_is_object(fn)) {
		*errstr = xstrdup("chat tool call needs \"function\" as an object");
		return -1;
	}
	if (take_name(fn, "name", &rc->name, errstr) < 0)
		return -1;
	return take_arguments_text(json_object_get(fn, "arguments"), rc, errstr);
}

/* A hook payload asks for a call only before it runs: PostToolUse reports
 * one that ran (the gate ran it a second time), and the other events name
 * none. A payload without the event is a PreToolUse one, as the hook reads
 * it. */
static int shape_hook(json_t *root, struct raw_call *rc, char **errstr)
{
	json_t *cwd = json_object_get(root, "cwd"), *ev = json_object_get(root, "hook_event_name");

	rc->shape = SHAPE_HOOK;
	rc->id = json_object_get(root, "tool_use_id");
	rc->input = json_object_get(root, "tool_input");
	if (ev && (!json_is_string(ev) || strcmp(json_string_value(ev), "PreToolUse") != 0)) {
		*errstr = json_is_string(ev)
		                  ? xasprintf("not a tool call: hook event %s (only PreToolUse asks "
		                              "for one)",
		                              json_string_value(ev))
		                  : xasprintf("\"hook_event_name\" must be a string (got %s)",
		                              json_type_name(ev));
		return -1;
	}
	if (cwd && !json_is_string(cwd)) {
		*errstr = xasprintf("\"cwd\" must be a string (got %s)", json_type_name(cwd));
		return -1;
	}
	rc->cwd = json_string_value(cwd);
	return take_name(root, "tool_name", &rc->name, errstr);
}

static int shape_canonical(json_t *root, struct raw_call *rc, char **errstr)
{
	rc->shape = SHAPE_CANONICAL;
	rc->id = json_object_get(root, "id");
	rc->input = json_object_get(root, "input");
	return take_name(root, "tool", &rc->name, errstr);
}

static bool has(json_t *o, const char *k)
{
	return json_object_get(o, k) != NULL;
}

/* The keys that tell the shapes apart, each looked up once: a lookup
 * hashes the key, and the shape tests below ask about each more than once. */
struct shape_marks {
	const char *type; /* "type" when a string, else NULL */
	bool jsonrpc, hook, tool;
};

/* k[0..kl) is the key lit, as json_object_get() compares them. */
static bool key_is(const char *k, size_t kl, const char *lit)
{
	return kl == strlen(lit) && memcmp(k, lit, kl) == 0;
}

/* One pass over the call's few keys, not a hashed lookup of each mark. */
static void shape_marks(json_t *root, struct shape_marks *m)
{
	const char *k;
	size_t kl;
	json_t *v;

	memset(m, 0, sizeof(*m));
	json_object_keylen_foreach(root, k, kl, v) {
		if (key_is(k, kl, "type"))
			m->type = json_string_value(v);
		else if (key_is(k, kl, "jsonrpc"))
			m->jsonrpc = true;
		else if (key_is(k, kl, "hook_event_name") || key_is(k, kl, "tool_name"))
			m->hook = true;
		else if (key_is(k, kl, "tool"))
			m->tool = true;
	}
}

static bool type_is(const struct shape_marks *m, const char *v)
{
	return m->type && strcmp(m->type, v) == 0;
}

/* Picks the shape: the first row whose test matches decides. */
/* A call that holds the marks of more than one shape
 * ({"tool":"read_file","tool_name":"shell"}) would run as one and be read
 * as another by whoever looks at it: refused. A hook payload's
 * hook_event_name and tool_name are one shape. */
static bool shape_ambiguous(const struct shape_marks *m)
{
	int marks = (type_is(m, "tool_use") || type_is(m, "function_call") ||
	             type_is(m, "function")) +
	            m->jsonrpc + m->hook + m->tool;
	return marks > 1;
}

/* The id of a line no shape can read: whichever id key it has, so the
 * error result still answers the call the agent is waiting on. */
static json_t *any_id(json_t *root)
{
	static const char *const keys[] = {"id", "call_id", "tool_use_id"};
	json_t *id = NULL;

	for (size_t i = 0; id == NULL && i < nitems(keys); i++)
		id = json_object_get(root, keys[i]);
	return id;
}

static int decode_shape(json_t *root, struct raw_call *rc, char **errstr)
{
	struct shape_marks m;

	shape_marks(root, &m);
	if (shape_ambiguous(&m)) {
		rc->id = any_id(root);
		*errstr = xstrdup("ambiguous call shape: it holds the keys of more than one (\"tool\", "
		                  "\"tool_name\", \"jsonrpc\", a \"type\"); send one");
		return -1;
	}
	if (m.jsonrpc)
		return shape_mcp(root, rc, errstr);
	if (type_is(&m, "tool_use"))
		return shape_anthropic(root, rc, errstr);
	if (type_is(&m, "function_call"))
		return shape_responses(root, rc, errstr);
	if (type_is(&m, "function") && has(root, "function"))
		return shape_chat(root, rc, errstr);
	if (m.hook)
		return shape_hook(root, rc, errstr);
	if (m.tool)
		return shape_canonical(root, rc, errstr);
	rc->id = any_id(root);
	*errstr = xstrdup("unrecognised call shape: expected \"tool\" (canonical), a tool_use "
	                  "block, a function_call, a chat tool call, a Claude Code hook payload "
	                  "or an MCP tools/call request");
	return -1;
}

/* Returns the id if it is a string, number or null; anything else is refused. */
static int check_id(json_t *id, char **errstr)
{
	if (id == NULL || json_is_string(id) || json_is_integer(id) || json_is_real(id) ||
	    json_is_null(id))
		return 0;
	*errstr = xasprintf("\"id\" must be a string or a number (got %s)", json_type_name(id));
	return -1;
}

/* A command given as an argv array becomes one shell-quoted string. */
static json_t *argv_to_command(json_t *arr)
{
	struct buf b;
	size_t i;
	json_t *v;
	char *s;

	buf_init(&b, 0);
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v)) {
			buf_free(&b);
			return NULL;
		}
		s = agent_shell_quote(json_string_value(v));
		buf_printf(&b, "%s%s", i ? " " : "", s);
		free(s);
	}
	s = buf_take(&b, NULL);
	v = json_string(s);
	free(s);
	return v;
}

/* Copies the input with field aliases renamed; refuses conflicting copies. */
static bool has_alias(json_t *in, enum tool t)
{
	const char *key;
	json_t *v;

	json_object_foreach(in, key, v)
		for (size_t i = 0; i < nitems(field_aliases); i++)
			if (key[0] == field_aliases[i].alias[0] &&
			    strcmp(key, field_aliases[i].alias) == 0 && alias_applies(i, t))
				return true;
	return false;
}

static json_t *normalise_input(json_t *in, enum tool t, char **errstr)
{
	json_t *out, *cmd;

	/* the common case, nothing to rename: share it (the call only reads) */
	if (!has_alias(in, t) && !json_is_array(json_object_get(in, "command")))
		return json_incref(in);
	out = json_copy(in); /* shallow: values are only read */

	/* jansson's shallow copy drops a key it cannot allocate: count them */
	if (out == NULL || json_object_size(out) != json_object_size(in)) {
		*errstr = xstrdup("out of memory copying the call's input");
		json_decref(out);
		return NULL;
	}
	for (size_t i = 0; i < nitems(field_aliases); i++) {
		json_t *v = json_object_get(out, field_aliases[i].alias);
		json_t *have = json_object_get(out, field_aliases[i].field);
		if (v == NULL || !alias_applies(i, t))
			continue;
		if (have && !json_equal(have, v)) {
			*errstr = xasprintf("input has both \"%s\" and \"%s\" with different values",
			                    field_aliases[i].alias, field_aliases[i].field);
			json_decref(out);
			return NULL;
		}
		/* a rename that fails half way would change the call: refuse it */
		if (json_object_set(out, field_aliases[i].field, v) < 0 ||
		    json_object_del(out, field_aliases[i].alias) < 0) {
			*errstr = xasprintf("out of memory renaming input.%s", field_aliases[i].alias);
			json_decref(out);
			return NULL;
		}
	}
	cmd = json_object_get(out, "command");
	if (json_is_array(cmd) && json_array_size(cmd) == 0) {
		*errstr = xstrdup("input.command is an empty array: it names no program to run");
		json_decref(out);
		return NULL;
	}
	if (json_is_array(cmd)) {
		json_t *s = argv_to_command(cmd);
		if (s == NULL) {
			*errstr = xstrdup("input.command as an array must hold only strings");
			json_decref(out);
			return NULL;
		}
		json_object_set_new(out, "command", s);
	}
	return out;
}

static const char *str_field(json_t *in, const char *k)
{
	return json_string_value(json_object_get(in, k));
}

/* The input's string fields, and where the call keeps a view of each. */
#define NO_VIEW SIZE_MAX
static const struct {
	const char *name;
	size_t view; /* offsetof(struct call, ...), or NO_VIEW: type-checked only */
} string_fields[] = {
        {"command", offsetof(struct call, command)},
        {"cwd", NO_VIEW},
        {"query", offsetof(struct call, query)},
        {"database", offsetof(struct call, database)},
        {"path", offsetof(struct call, path)},
        {"content", offsetof(struct call, content)},
        {"old", offsetof(struct call, old_text)},
        {"new", offsetof(struct call, new_text)},
        {"method", offsetof(struct call, method)},
        {"url", offsetof(struct call, url)},
        {"body", offsetof(struct call, body)},
};

static size_t string_field(const char *name)
{
	for (size_t i = 0; i < nitems(string_fields); i++)
		if (strcmp(name, string_fields[i].name) == 0)
			return i;
	return NO_VIEW;
}

static const char **call_view(struct call *c, size_t field)
{
	return (const char **)(void *)((char *)c + string_fields[field].view);
}

/* Type-checks the input's string fields and points the call's views at
 * them, in one pass over the input (a lookup per field cost more); counts
 * in *bound the keys that went to a view. */
static int bind_strings(struct call *c, size_t *bound, char **errstr)
{
	const char *key;
	json_t *v;

	*bound = 0;
	json_object_foreach(c->input, key, v) {
		size_t i = string_field(key);
		if (i == NO_VIEW || c->tool == TOOL_OTHER) /* unknown tools keep their own meanings */
			continue;
		if (!json_is_string(v)) {
			*errstr = xasprintf("%s: input.%s must be a string (got %s)", c->name, key,
			                    json_type_name(v));
			return -1;
		}
		if (string_fields[i].view != NO_VIEW) {
			*call_view(c, i) = json_string_value(v);
			(*bound)++;
		}
	}
	for (size_t i = 0; i < nitems(required); i++)
		for (size_t k = 0; required[i].tool == c->tool && k < 3 && required[i].fields[k]; k++)
			if (*call_view(c, string_field(required[i].fields[k])) == NULL) {
				*errstr = xasprintf("%s call needs input.%s as a string", tool_name(c->tool),
				                    required[i].fields[k]);
				return -1;
			}
	return 0;
}

/* Checks types and fills the call's views into its input; cwd is the hook
 * payload's, else input.cwd. */
static int bind_fields(struct call *c, const char *cwd, char **errstr)
{
	json_t *t = NULL, *ra = NULL;
	size_t bound;
	bool more; /* keys other than the bound strings: usually none */

	if (bind_strings(c, &bound, errstr) < 0)
		return -1;
	more = json_object_size(c->input) > bound; /* keys are unique */
	if (c->tool == TOOL_EDIT_FILE && !json_is_array(json_object_get(c->input, "edits")) &&
	    (c->old_text == NULL || c->new_text == NULL)) {
		*errstr = xstrdup("edit_file call needs input.old and input.new as strings (or edits)");
		return -1;
	}
	if (more)
		ra = json_object_get(c->input, "replace_all");
	if (ra && !json_is_boolean(ra) && c->tool == TOOL_EDIT_FILE) {
		*errstr = xasprintf("edit_file: input.replace_all must be a boolean (got %s)",
		                    json_type_name(ra));
		return -1;
	}
	c->replace_all = json_is_true(ra);
	if (more)
		t = json_object_get(c->input, "timeout_ms");
	if (t && c->tool == TOOL_SHELL && (!json_is_integer(t) || json_integer_value(t) < 0)) {
		*errstr = xstrdup("shell: input.timeout_ms must be a non-negative integer");
		return -1;
	}
	c->timeout_ms = json_is_integer(t) ? json_integer_value(t) : 0;
	c->cwd = xstrdup(cwd ? cwd : more ? str_field(c->input, "cwd") : NULL);
	return 0;
}

/* The directory an unknown tool's input names in *cwd (cwd, or an alias
 * of it such as Codex's workdir; NULL when none is a string): the gate
 * denies one that is not the workdir, as for a known tool. Two that
 * differ are an error, as for a known tool's aliases. */
static int other_cwd(const struct call *c, const char **cwd, char **errstr)
{
	*cwd = str_field(c->input, "cwd");
	for (size_t i = 0; c->tool == TOOL_OTHER && i < nitems(field_aliases); i++) {
		const char *v = str_field(c->input, field_aliases[i].alias);
		if (strcmp(field_aliases[i].field, "cwd") != 0 || v == NULL ||
		    field_aliases[i].tool != ANY_TOOL) /* "directory" is a path read there */
			continue;
		if (*cwd && strcmp(*cwd, v) != 0) {
			*errstr = xasprintf("input has both \"%s\" and \"cwd\" with different values",
			                    field_aliases[i].alias);
			return -1;
		}
		*cwd = v;
	}
	return 0;
}

/* Claude Code names MCP tools mcp__server__tool; we say mcp:server.tool. */
static char *tool_display_name(const char *name)
{
	const char *sep;
	if (strncmp(name, "mcp__", 5) == 0 && (sep = strstr(name + 5, "__")) != NULL)
		return xasprintf("mcp:%.*s.%s", (int)(sep - name - 5), name + 5, sep + 2);
	return xstrdup(name);
}

int protocol_decode_json(json_t *root, size_t lineno, struct call **out, json_t **id,
                         char **errstr)
{
	struct raw_call rc = {0};
	struct call *c = NULL;
	int rc_status = -1;

	*out = NULL;
	*id = NULL;
	if (!json_is_object(root)) {
		*errstr = xasprintf("a call must be a JSON object (got %s)", json_type_name(root));
		return -1;
	}
	if (decode_shape(root, &rc, errstr) < 0)
		goto out;
	if (check_id(rc.id, errstr) < 0) {
		rc.id = NULL;
		goto out;
	}
	if (rc.input == NULL && (rc.shape == SHAPE_MCP || rc.shape == SHAPE_CANONICAL))
		rc.input = json_object(), rc.input_owned = true;
	if (!json_is_object(rc.input)) {
		*errstr = xasprintf("the call's input must be a JSON object (got %s)",
		                    json_type_name(rc.input));
		goto out;
	}
	c = call_new();
	c->shape = rc.shape;
	c->line = lineno;
	c->id = json_incref(rc.id ? rc.id : json_null());
	c->name = tool_display_name(rc.name);
	c->tool = protocol_tool_alias(rc.name);
	/* an unknown tool's input is its own, kept as sent: its caller or its
	 * server runs it with those keys, and the log recorded "content" and
	 * "path" where it was sent "text" and "file_path" */
	c->input = c->tool == TOOL_OTHER ? json_incref(rc.input) : normalise_input(rc.input, c->tool, errstr);
	if (c->input == NULL)
		goto out;
	if (c->tool == TOOL_OTHER && rc.cwd == NULL && other_cwd(c, &rc.cwd, errstr) < 0)
		goto out;
	if (bind_fields(c, rc.cwd, errstr) < 0)
		goto out;
	rc_status = 0;
out:
	if (rc_status < 0) {
		call_free(c);
		c = NULL;
		*id = rc.id ? json_incref(rc.id) : NULL;
	}
	if (rc.input_owned)
		json_decref(rc.input);
	*out = c;
	return rc_status;
}

int protocol_decode(const char *line, size_t len, size_t lineno, struct call **out,
                    json_t **id, char **errstr)
{
	json_error_t jerr;
	json_t *root;
	int rc;

	*out = NULL;
	*id = NULL;
	if (memchr(line, '\0', len) != NULL) {
		*errstr = xstrdup("the line holds a NUL byte");
		return -1;
	}
	root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		*errstr = xasprintf("invalid JSON: %s at column %d", jerr.text, jerr.column);
		return -1;
	}
	rc = protocol_decode_json(root, lineno, out, id, errstr);
	json_decref(root);
	return rc;
}

/* True when p[0..4) are hex digits; *v gets their value. */
static bool hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit((unsigned char)p[i]);
		if (d < 0)
			return false;
		*v = *v << 4 | (unsigned)d;
	}
	return true;
}

/* The line with bytes that are not UTF-8 and \uD800-\uDFFF escapes
 * without their pair made U+FFFD: a new string of *n bytes (caller frees). */
static char *text_repair(const char *line, size_t len, size_t *n)
{
	char *u = utf8_repair(line, len); /* NUL-terminated, no NUL inside */
	struct buf b;
	unsigned hi, lo;

	buf_init(&b, 0);
	for (const char *p = u; *p;) {
		if (p[0] != '\\' || p[1] == '\0') {
			buf_append(&b, p++, 1);
		} else if (p[1] != 'u' || !hex4(p + 2, &hi) || hi < 0xd800 || hi > 0xdfff) {
			buf_append(&b, p, 2); /* any other escape, \\ too, whole */
			p += 2;
		} else if (hi < 0xdc00 && p[6] == '\\' && p[7] == 'u' && hex4(p + 8, &lo) &&
		           lo >= 0xdc00 && lo <= 0xdfff) {
			buf_append(&b, p, 12); /* a pair */
			p += 12;
		} else {
			buf_puts(&b, "\\ufffd");
			p += 6;
		}
	}
	free(u);
	return buf_take(&b, n);
}

json_t *protocol_load_repaired(const char *line, size_t len, size_t flags, json_error_t *jerr)
{
	json_t *j = json_loadb(line, len, flags, jerr);
	char *fixed;
	size_t n;

	if (j)
		return j;
	fixed = text_repair(line, len, &n);
	j = json_loadb(fixed, n, flags, NULL);
	free(fixed);
	return j;
}

json_t *protocol_result(const struct call *c, const struct verdict *v, const struct outcome *o)
{
	json_t *r = json_object();

	json_object_set(r, "id", c->id ? c->id : json_null());
	json_object_set_new(r, "tool", json_string(tool_name(c->tool)));
	if (c->tool == TOOL_OTHER)
		json_object_set_new(r, "name", encode_bytes(c->name, strlen(c->name)));
	encode_verdict(r, v);
	json_object_set_new(r, "decision", json_string(decision_name(o->decision)));
	if (o->reason)
		json_object_set_new(r, o->decision == DECISION_ERROR ? "error" : "reason",
		                    encode_bytes(o->reason, strlen(o->reason)));
	json_object_set_new(r, "exit_code", o->ran && o->exit_code >= 0
	                                            ? json_integer(o->exit_code)
	                                            : json_null());
	if (o->signal)
		json_object_set_new(r, "signal", json_integer(o->signal));
	json_object_set_new(r, "stdout", encode_bytes(o->out, o->outlen));
	json_object_set_new(r, "stderr", encode_bytes(o->err, o->errlen));
	json_object_set_new(r, "truncated", json_boolean(o->truncated));
	if (o->timed_out)
		json_object_set_new(r, "timed_out", json_true());
	json_object_set_new(r, "duration_ms", json_integer(o->duration_ms));
	if (o->applied)
		json_object_set_new(r, "applied", json_string(o->applied));
	json_object_set_new(r, "audit_id", o->audit_id ? json_integer(o->audit_id) : json_null());
	return r;
}

json_t *protocol_error(json_t *id, size_t lineno, const char *msg)
{
	json_t *r = json_object();
	json_object_set(r, "id", id ? id : json_null());
	json_object_set_new(r, "decision", json_string("error"));
	json_object_set_new(r, "error", encode_bytes(msg, strlen(msg)));
	json_object_set_new(r, "line", json_integer((json_int_t)lineno));
	return r;
}

static int dump_to_buf(const char *p, size_t n, void *arg)
{
	buf_append(arg, p, n);
	return 0;
}

int protocol_print(FILE *f, json_t *obj)
{
	static struct buf b; /* reused: one allocation for the whole stream */
	int rc = 0;

	b.len = 0;
	if (json_dump_callback(obj, dump_to_buf, &b, JSON_COMPACT) < 0)
		return -1;
	buf_append(&b, "\n", 1);
	if (fwrite(b.data, 1, b.len, f) != b.len)
		rc = -1;
	if (b.alloc > (1u << 20)) /* don't keep a huge line's buffer around */
		buf_free(&b);
	return rc;
}

int protocol_write(FILE *f, json_t *obj)
{
	if (protocol_print(f, obj) < 0 || fflush(f) == EOF)
		return -1;
	return 0;
}

struct reader {
	int fd;
	char *buf;
	size_t start, len, alloc, cap;
	bool eof, skipping;
	reader_pass_fn pass; /* or NULL: a long line is discarded */
	void *pass_arg;
};

struct reader *reader_new(int fd, size_t cap)
{
	struct reader *r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->cap = cap ? cap : PROTOCOL_LINE_CAP;
	r->alloc = 65536;
	r->buf = xmalloc(r->alloc);
	return r;
}

void reader_free(struct reader *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	free(r);
}

void reader_set_pass(struct reader *r, reader_pass_fn fn, void *arg)
{
	r->pass = fn;
	r->pass_arg = arg;
}

bool reader_ready(const struct reader *r)
{
	return memchr(r->buf + r->start, '\n', r->len) != NULL;
}

/* Reads more input after the buffered bytes; returns bytes read, 0 at EOF, -1. */
static ssize_t reader_fill(struct reader *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->len);
		r->start = 0;
	}
	if (r->len == r->alloc) {
		r->alloc *= 2;
		r->buf = xrealloc(r->buf, r->alloc);
	}
	do
		n = read(r->fd, r->buf + r->len, r->alloc - r->len);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		r->len += (size_t)n;
	return n;
}

int reader_next(struct reader *r, const char **line, size_t *len, bool *toolong)
{
	for (;;) {
		char *nl = memchr(r->buf + r->start, '\n', r->len);
		size_t n = nl ? (size_t)(nl - (r->buf + r->start)) : r->len;
		ssize_t got;

		if (nl || (r->eof && (r->len > 0 || r->skipping))) {
			*toolong = r->skipping || n > r->cap;
			if (*toolong && r->pass)
				r->pass(r->pass_arg, r->buf + r->start, n, !r->skipping);
			*line = *toolong ? "" : r->buf + r->start;
			*len = *toolong ? 0 : n;
			r->start += n + (nl != NULL);
			r->len -= n + (nl != NULL);
			r->skipping = false;
			return 1;
		}
		if (r->eof)
			return 0;
		if (r->len > r->cap) { /* too long: drop what we have, remember it */
			if (r->pass)
				r->pass(r->pass_arg, r->buf + r->start, r->len, !r->skipping);
			r->skipping = true;
			r->start = r->len = 0;
		}
		got = reader_fill(r);
		if (got < 0)
			return -1;
		if (got == 0)
			r->eof = true;
	}
}

bool protocol_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return false;
	return true;
}

/* protocol_decode(), from the line's block when the sink asks for one: what
 * the sink does with the call allocates from the heap again (a json_dumps()
 * string it free()s must not come from the block). */
static int decode_line(const struct protocol_sink *sink, const char *line, size_t len,
                       size_t lineno, struct call **c, json_t **id, char **err)
{
	int rc;

	if (sink->line_block)
		jalloc_line_begin();
	rc = protocol_decode(line, len, lineno, c, id, err);
	if (sink->line_block)
		jalloc_line_decoded();
	return rc;
}

int protocol_each_call(int fd, const struct protocol_sink *sink)
{
	struct reader *r = reader_new(fd, 0);
	size_t lineno = 0, len;
	const char *line;
	bool toolong;
	int rc;

	while ((rc = reader_next(r, &line, &len, &toolong)) == 1) {
		struct call *c = NULL;
		json_t *id = NULL;
		char *err = NULL;

		lineno++;
		if (toolong) {
			err = xasprintf("line %zu is longer than the line cap (%zu bytes); skipped",
			                lineno, (size_t)PROTOCOL_LINE_CAP);
			sink->bad(sink->arg, lineno, NULL, err);
		} else if (sink->skip_blank && protocol_blank(line, len)) {
			/* nothing to answer */
		} else if (decode_line(sink, line, len, lineno, &c, &id, &err) < 0) {
			sink->bad(sink->arg, lineno, id, err);
		} else {
			sink->call(sink->arg, c);
		}
		call_free(c);
		json_decref(id);
		free(err);
		if (sink->idle && !reader_ready(r) && !sink->idle(sink->arg))
			break;
	}
	int e = errno;
	reader_free(r);
	errno = e;
	return rc < 0 ? -1 : 0;
}
