/*
 * cmd_preview.c: `airlock preview`: reads tool calls on stdin (any protocol
 * shape) and prints what each would change, without changing anything:
 * colour on a terminal, git-style plain text otherwise, JSON lines with
 * --format json. Nothing is recorded and nothing is applied.
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
#include "core/state.h"
#include "core/util.h"
#include "diff/diff.h"
#include "exec/exec.h"
#include "gate/commands.h"
#include "gate/protocol.h"
#include "policy/policy.h"

static const char preview_usage[] =
	"usage: airlock preview [--format text|json] [--color auto|always|never]\n"
	"                       [--workdir DIR] [--policy FILE]\n"
	"Reads tool calls on stdin and prints what each would change: a diff for\n"
	"write_file/edit_file, a sandboxed dry run for shell, the rows for SQL.\n"
	"Exit status 1 when a line could not be decoded or a preview failed.\n"
	"  --format F         text (the default) or json, one object per call\n"
	"  --color WHEN       auto (the default: on a terminal, off with NO_COLOR or\n"
	"                     TERM=dumb), always or never\n"
	"  --workdir DIR      the project directory (default: the current one)\n"
	"  --policy FILE      an extra policy file, the top layer (a dry run's profile)\n";

struct preview_ctx {
	char *workdir, *home;
	struct policy *policy;
	struct classify_opts copts;
	bool json, color;
	int failed;
};

static const struct option preview_longopts[] = {
	{"format", required_argument, NULL, 'f'}, {"color", required_argument, NULL, 'c'},
	{"workdir", required_argument, NULL, 'w'}, {"policy", required_argument, NULL, 'p'},
	{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
};

static void print_one(struct preview_ctx *cx, const struct call *c, struct diff *d)
{
	if (cx->json) {
		json_t *o = json_object();
		json_object_set(o, "id", c->id ? c->id : json_null());
		json_object_set_new(o, "tool", json_string(tool_name(c->tool)));
		json_object_set_new(o, "preview", d ? diff_to_json(d) : json_null());
		protocol_write(stdout, o);
		json_decref(o);
		return;
	}
	if (d == NULL) {
		/* the agent's tool name: an escape sequence or a newline in it
		 * reached the terminal as it was */
		char *name = encode_escape(c->name, 0);
		printf("preview: %s: nothing to preview\n\n", name);
		free(name);
	} else {
		size_t len;
		char *text = diff_render(d, cx->color ? DIFF_FORMAT_COLOR : DIFF_FORMAT_PLAIN, &len);
		fwrite(text, 1, len, stdout);
		fputc('\n', stdout);
		free(text);
	}
	fflush(stdout);
}

static void preview_one(struct preview_ctx *cx, const struct call *c)
{
	struct verdict *v = classify_call(c, &cx->copts);
	struct plan pl = {0};
	struct diff_opts o = {.workdir = cx->workdir, .verdict = v};
	struct diff *d;

	policy_decide(cx->policy, c, v, time(NULL), &pl);
	o.profile = pl.profile ? pl.profile : exec_builtin_profile("workspace");
	o.env = pl.env;
	o.binds = pl.binds;
	d = diff_preview_call(c, &o);
	if (d && diff_error(d))
		cx->failed = 1;
	print_one(cx, c, d);
	diff_free(d);
	plan_clear(&pl);
	verdict_free(v);
}

static void bad_line(struct preview_ctx *cx, size_t lineno, json_t *id, const char *msg)
{
	cx->failed = 1;
	if (cx->json) {
		json_t *r = protocol_error(id, lineno, msg);
		protocol_write(stdout, r);
		json_decref(r);
	} else
		fprintf(stderr, "airlock preview: line %zu: %s\n", lineno, msg);
}

static void preview_call_line(void *arg, const struct call *c)
{
	preview_one(arg, c);
}

static void preview_bad_line(void *arg, size_t lineno, json_t *id, const char *msg)
{
	bad_line(arg, lineno, id, msg);
}

static int preview_stream(struct preview_ctx *cx)
{
	struct protocol_sink sink = {preview_call_line, preview_bad_line, NULL, cx, true, false};

	if (protocol_each_call(STDIN_FILENO, &sink) < 0) {
		fprintf(stderr, "airlock preview: cannot read input: %s\n", strerror(errno));
		return EXIT_INTERNAL;
	}
	return cx->failed ? EXIT_FAILURE_ : EXIT_OK;
}

/* Parses the options into cx; returns -1 (usage printed) or 0. */
static int preview_args(int argc, char **argv, struct preview_ctx *cx, const char **wd,
                        const char **policy, int *rc)
{
	const char *color = "auto";
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+h", preview_longopts, NULL)) != -1) {
		switch (ch) {
		case 'f': cx->json = strcmp(optarg, "json") == 0; break;
		case 'c': color = optarg; break;
		case 'w': *wd = optarg; break;
		case 'p': *policy = optarg; break;
		case 'h': fputs(preview_usage, stdout); *rc = EXIT_OK; return -1;
		default: fputs(preview_usage, stderr); *rc = EXIT_USAGE; return -1;
		}
		if (ch == 'f' && !cx->json && strcmp(optarg, "text") != 0) {
			fprintf(stderr, "airlock preview: --format wants text or json (got \"%s\")\n",
			        optarg);
			*rc = EXIT_USAGE;
			return -1;
		}
	}
	if (strcmp(color, "auto") && strcmp(color, "always") && strcmp(color, "never")) {
		fprintf(stderr, "airlock preview: --color wants auto, always or never (got \"%s\")\n",
		        color);
		*rc = EXIT_USAGE;
		return -1;
	}
	if (optind != argc) {
		fprintf(stderr, "airlock preview: unexpected argument '%s' (the calls to preview "
		                "go on stdin, one JSON object per line)\n", argv[optind]);
		fputs(preview_usage, stderr);
		*rc = EXIT_USAGE;
		return -1;
	}
	cx->color = strcmp(color, "always") == 0 ||
	            (strcmp(color, "auto") == 0 && isatty(STDOUT_FILENO) && !getenv("NO_COLOR") &&
	             !(getenv("TERM") && strcmp(getenv("TERM"), "dumb") == 0));
	return 0;
}

int cmd_preview(int argc, char **argv)
{
	struct preview_ctx cx = {0};
	struct policy_source src = {0};
	const char *wd = ".", *policy = NULL, *h = getenv("HOME");
	char *err = NULL, *state = NULL, **guarded = NULL;
	int rc = EXIT_USAGE;

	if (preview_args(argc, argv, &cx, &wd, &policy, &rc) < 0)
		return rc;
	if ((cx.workdir = realpath(wd, NULL)) == NULL) {
		fprintf(stderr, "airlock preview: cannot resolve workdir %s: %s\n", wd,
		        strerror(errno));
		return EXIT_USAGE;
	}
	cx.home = xstrdup(h && *h == '/' ? h : "/");
	src.workdir = cx.workdir;
	src.home = cx.home;
	src.file = policy;
	if (policy_load(&src, &cx.policy, &err) < 0) {
		fprintf(stderr, "airlock preview: %s\n", err);
		free(err);
		goto out;
	}
	classify_opts_init(&cx.copts, cx.workdir, cx.home);
	cx.copts.state = state = state_root();
	/* read once: a stream of calls to judge changes no config */
	cx.copts.config_unread = exec_config_guarded(cx.workdir, &guarded) < 0;
	cx.copts.config_guarded = guarded;
	policy_classify_opts(cx.policy, &cx.copts);
	rc = preview_stream(&cx);
out:
	strv_free(guarded);
	free(state);
	policy_free(cx.policy);
	free(cx.workdir);
	free(cx.home);
	return rc;
}
