/*
 * cmd_classify.c: `airlock classify`: a verdict per call, nothing executed,
 * nothing recorded. The policy's answer (and its circuit breakers, across
 * the stream) is applied so a policy can be tested without running anything.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "classifier/classifier.h"
#include "core/encode.h"
#include "core/jalloc.h"
#include "core/state.h"
#include "core/util.h"
#include "exec/exec.h"
#include "gate/agent.h"
#include "gate/commands.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"
#include "policy/policy.h"

static const char classify_usage[] =
	"usage: airlock classify [--format json|text] [--explain] [--policy FILE]\n"
	"                        [--workdir DIR] [--shell CMD | --sql SQL]\n"
	"Reads tool calls on stdin (or one --shell/--sql string) and prints one verdict\n"
	"per call: {\"id\",\"tool\",\"tier\",\"rules\",\"reasons\",\"spans\",\"action\"}.\n"
	"Runs nothing.\n"
	"  --format F         json (the default) or text, for people\n"
	"  --explain          each rule's reason and span, and the policy's reason: as\n"
	"                     text with --shell/--sql or on a terminal, unless --format\n"
	"                     json is given; JSON verdicts then add \"policy\"\n"
	"  --policy FILE      an extra policy file, the top layer\n"
	"  --workdir DIR      the project directory (default: the current one)\n"
	"  --shell CMD        classify one shell command instead of reading stdin\n"
	"  --sql SQL          classify one SQL statement instead of reading stdin\n";

struct classify_ctx {
	struct policy *policy;
	struct classify_opts copts;
	bool text, explain;
};

/* Columns text takes on a terminal, near enough: one per character. */
static size_t columns(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* Prints the line of the subject holding the span, with carets under it.
 * The subject is the agent's text: shown escaped (buf_append_shown()), and
 * the carets counted over the escaped text so they stay under the span. */
static void explain_span(FILE *f, const char *subject, struct span sp)
{
	size_t n = strlen(subject), start, end, stop, lead, width;
	struct buf b;

	if (sp.len == 0 || sp.off >= n)
		return;
	for (start = sp.off; start > 0 && subject[start - 1] != '\n'; start--)
		;
	for (end = sp.off; end < n && subject[end] != '\n'; end++)
		;
	stop = sp.off + sp.len < end ? sp.off + sp.len : end;
	buf_init(&b, 0);
	buf_append_shown(&b, subject + start, sp.off - start, 0);
	lead = columns(b.data, b.len);
	buf_append_shown(&b, subject + sp.off, stop - sp.off, 0);
	width = columns(b.data, b.len) - lead;
	buf_append_shown(&b, subject + stop, end - stop, 0);
	fprintf(f, "      %.*s\n      %*s", (int)b.len, b.data, (int)lead, "");
	for (size_t i = 0; i < width; i++)
		fputc('^', f);
	fputc('\n', f);
	buf_free(&b);
}

/* Every string here can come from the agent (a tool name, a script name in
 * a reason, a policy rule quoting the call): escaped for the terminal. */
static void print_text(FILE *f, const struct classify_ctx *cx, const struct call *c,
                       const struct verdict *v, const struct plan *pl)
{
	char *json = json_dumps(c->id, JSON_ENCODE_ANY | JSON_COMPACT);
	char *id = encode_escape(json ? json : "null", 0), *name = encode_escape(c->name, 0);
	char *summary = encode_summary(c, 120);

	fprintf(f, "%s %s %s -> %s: %s\n", id, name, tier_name(v->tier), action_name(pl->action),
	        summary);
	for (size_t i = 0; i < v->nfindings; i++) {
		char *reason = encode_escape(v->findings[i].reason, 0);
		fprintf(f, "  %-28s %-8s %s\n", v->findings[i].rule, tier_name(v->findings[i].tier),
		        reason);
		free(reason);
		if (cx->explain)
			explain_span(f, call_subject(c), v->findings[i].span);
	}
	if (cx->explain && pl->reason) {
		char *why = encode_escape(pl->reason, 0);
		fprintf(f, "  policy: %s\n", why);
		free(why);
	}
	free(json);
	free(id);
	free(name);
	free(summary);
}

/* {"id","tool","tier","rules","reasons","spans","action"[,"policy"]}: the
 * bytes json_dumps() writes for that object, written without building it
 * (the tree cost more than classifying: encode.h). A line jansson cannot
 * finish for want of memory is left out, as protocol_print() leaves it. */
static void print_json(FILE *f, const struct classify_ctx *cx, const struct call *c,
                       const struct verdict *v, const struct plan *pl)
{
	static struct buf b; /* reused: one allocation for the whole stream */
	json_t *reason = NULL;

	b.len = 0;
	buf_append(&b, "{", 1);
	if (c->id) { /* json_object_set() leaves a NULL value out */
		buf_puts(&b, "\"id\":");
		if (encode_append_json(&b, c->id) < 0)
			goto out;
		buf_append(&b, ",", 1);
	}
	buf_puts(&b, "\"tool\":");
	if (encode_append_string(&b, tool_name(c->tool)) < 0)
		goto out;
	buf_append(&b, ",", 1);
	if (encode_append_verdict(&b, v) < 0)
		goto out;
	buf_puts(&b, ",\"action\":");
	if (encode_append_string(&b, action_name(pl->action)) < 0)
		goto out;
	/* json_string(), not encode_bytes(): a reason that is not UTF-8 is left
	 * out, as json_object_set_new() left out its NULL */
	if (cx->explain && pl->reason && (reason = json_string(pl->reason)) != NULL) {
		buf_puts(&b, ",\"policy\":");
		if (encode_append_json(&b, reason) < 0)
			goto out;
	}
	buf_append(&b, "}\n", 2);
	fwrite(b.data, 1, b.len, f);
out:
	json_decref(reason);
	if (b.alloc > (1u << 20)) /* don't keep a huge line's buffer around */
		buf_free(&b);
}

/* The verdict the gate gives c (gate_call()): an unknown or MCP tool judged
 * by what its arguments do; *unsandboxed when they hold a command its own
 * tool runs, which the gate never sandboxes. (A Grep of a tree holding a
 * path a deny rule names asks in the gate; classify does not read trees.) */
static struct verdict *classify_judge(struct classify_ctx *cx, const struct call *c,
                                      bool *unsandboxed)
{
	struct call **calls = agent_unknown_calls(c, cx->copts.workdir);
	struct verdict *v;

	*unsandboxed = c->unsandboxed;
	if (calls == NULL)
		return classify_call(c, &cx->copts);
	v = agent_classify_calls_opts(&cx->copts, calls);
	*unsandboxed = *unsandboxed || agent_calls_unsandboxed(calls);
	agent_calls_free(calls);
	return v;
}

static void classify_one(struct classify_ctx *cx, const struct call *orig, FILE *f)
{
	struct call judged = *orig; /* a view of orig: only unsandboxed differs */
	const struct call *c = &judged;
	struct verdict *v = classify_judge(cx, orig, &judged.unsandboxed);
	struct plan pl = {0};

	policy_decide(cx->policy, c, v, time(NULL), &pl);
	gate_deny_elsewhere(cx->copts.workdir, c, &pl);
	if (cx->text) {
		print_text(f, cx, c, v, &pl);
	} else {
		print_json(f, cx, c, v, &pl);
	}
	plan_clear(&pl);
	verdict_free(v);
}

/* --shell and --sql: one string, no JSON input. */
static void classify_string(struct classify_ctx *cx, enum tool tool, const char *s)
{
	struct call *c = call_new();
	c->id = json_null();
	c->tool = tool;
	c->name = xstrdup(tool_name(tool));
	c->input = json_object();
	if (tool == TOOL_SHELL)
		c->command = s;
	else
		c->query = s;
	classify_one(cx, c, stdout);
	call_free(c);
}

static void classify_call_line(void *arg, const struct call *c)
{
	classify_one(arg, c, stdout);
}

static void classify_bad_line(void *arg, size_t lineno, json_t *id, const char *msg)
{
	json_t *e = protocol_error(id, lineno, msg);

	(void)arg;
	protocol_print(stdout, e);
	json_decref(e);
}

/* Verdicts go out as soon as the input pauses, not only at its end. */
static bool classify_flush(void *arg)
{
	(void)arg;
	return fflush(stdout) != EOF;
}

static int classify_stream(struct classify_ctx *cx)
{
	/* blank lines get the gate's answer: classify shows what the gate does */
	struct protocol_sink sink = {classify_call_line, classify_bad_line, classify_flush, cx,
	                             false, true};

	/* into a file or pipe, one write per 64 KiB rather than per 4 KiB:
	 * classify_flush() still sends all there is whenever the input pauses
	 * (glibc ignores the size unless it is given the buffer) */
	static char out[1 << 16];

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, out, _IOFBF, sizeof(out));
	jalloc_install();
	if (protocol_each_call(STDIN_FILENO, &sink) < 0) {
		fprintf(stderr, "airlock classify: cannot read input: %s\n", strerror(errno));
		return EXIT_INTERNAL;
	}
	return fflush(stdout) == EOF || ferror(stdout) ? EXIT_INTERNAL : EXIT_OK;
}

static const struct option classify_longopts[] = {
	{"format", required_argument, NULL, 'f'}, {"explain", no_argument, NULL, 'x'},
	{"policy", required_argument, NULL, 'p'}, {"workdir", required_argument, NULL, 'w'},
	{"shell", required_argument, NULL, 's'},  {"sql", required_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
};

/* Parses the options into cx, src, *shell and *sql. Returns 0, or -1 with
 * *rc the exit status (usage printed, after what was wrong). */
static int classify_args(int argc, char **argv, struct classify_ctx *cx,
                         struct policy_source *src, const char **shell, const char **sql,
                         int *rc)
{
	bool format_given = false;
	int ch;

	*rc = EXIT_USAGE;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+h", classify_longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0) {
				fprintf(stderr, "airlock classify: --format wants json or text (got \"%s\")\n",
				        optarg);
				goto usage;
			}
			cx->text = strcmp(optarg, "text") == 0;
			format_given = true;
			break;
		case 'x': cx->explain = true; break;
		case 'p': src->file = optarg; break;
		case 'w': src->workdir = optarg; break;
		case 's': *shell = optarg; break;
		case 'q': *sql = optarg; break;
		case 'h': fputs(classify_usage, stdout); *rc = EXIT_OK; return -1;
		default: goto usage;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "airlock classify: unexpected argument '%s' (one command goes in "
		                "--shell 'CMD', calls on stdin)\n", argv[optind]);
		goto usage;
	}
	if (*shell && *sql) {
		fprintf(stderr, "airlock classify: --shell and --sql each classify one string: "
		                "give one of them\n");
		goto usage;
	}
	/* --explain is for people: text, unless JSON was asked for by name (it
	 * was turned into text all the same) or the stream goes to a program */
	if (cx->explain && !format_given && (*shell || *sql || isatty(STDOUT_FILENO)))
		cx->text = true;
	return 0;
usage:
	fputs(classify_usage, stderr);
	return -1;
}

int cmd_classify(int argc, char **argv)
{
	struct classify_ctx cx = {0};
	struct policy_source src = {0};
	const char *shell = NULL, *sql = NULL;
	char *wd = NULL, *err = NULL, *state = NULL, **guarded = NULL;
	int rc;

	if (classify_args(argc, argv, &cx, &src, &shell, &sql, &rc) < 0)
		return rc;
	if ((wd = realpath(src.workdir ? src.workdir : ".", NULL)) == NULL) {
		fprintf(stderr, "airlock classify: cannot resolve workdir %s: %s\n",
		        src.workdir ? src.workdir : ".", strerror(errno));
		return EXIT_USAGE;
	}
	src.workdir = wd;
	src.home = getenv("HOME");
	if (policy_load(&src, &cx.policy, &err) < 0) {
		fprintf(stderr, "airlock classify: %s\n", err);
		free(err);
		free(wd);
		return EXIT_USAGE;
	}
	classify_opts_init(&cx.copts, wd, src.home ? src.home : "/");
	cx.copts.state = state = state_root();
	/* read once: a stream of calls to judge changes no config */
	cx.copts.config_unread = exec_config_guarded(wd, &guarded) < 0;
	cx.copts.config_guarded = guarded;
	policy_classify_opts(cx.policy, &cx.copts);
	policy_set_reasons(cx.policy, cx.explain); /* only --explain shows them */
	if (shell || sql) {
		classify_string(&cx, shell ? TOOL_SHELL : TOOL_SQL, shell ? shell : sql);
		/* as the stream does: a verdict not written (a full disk, a
		 * closed stdout) exited 0 with nothing said */
		rc = fflush(stdout) == EOF || ferror(stdout) ? EXIT_INTERNAL : EXIT_OK;
		if (rc != EXIT_OK)
			fprintf(stderr, "airlock classify: cannot write the verdict: %s\n",
			        strerror(errno));
	} else
		rc = classify_stream(&cx);
	policy_free(cx.policy);
	strv_free(guarded);
	free(state);
	free(wd);
	return rc;
}
