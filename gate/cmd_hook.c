/*
 * cmd_hook.c: `airlock hook claude`, a Claude Code PreToolUse hook. One
 * process per tool call: read the payload, classify under the policy of
 * its cwd, record, answer allow/deny/ask on stdout and exit 0.
 * Rules it keeps:
 *  - fail closed: bad input, a policy or log error, anything unexpected
 *    answers "deny" with the reason (exit 0, so Claude Code shows it);
 *    every other exit is 2, the one that blocks: Claude Code runs the
 *    tool after any other status;
 *  - an auto-run Bash command is rewritten to run inside `airlock exec`;
 *  - nothing slow on this path: libgit2 is not loaded unless a policy file
 *    needs it (docs/integrations.md has the measured wall time).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec.h"
#include "gate/agent.h"
#include "gate/commands.h"
#include "gate/identity.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"

static const char hook_usage[] =
	"usage: airlock hook claude [--tui] [OPTIONS]\n"
	"A Claude Code PreToolUse hook: reads the hook JSON on stdin, classifies the call\n"
	"under the policy of its project, records it and answers allow, deny or ask.\n"
	"  --tui              ask on /dev/tty (the approval screen) instead of handing\n"
	"                     the question to Claude Code's own prompt (--approve-with\n"
	"                     CMD also decides here, with or without --tui)\n" AGENT_GATE_USAGE
	"Without --workdir the project is $CLAUDE_PROJECT_DIR, else the nearest directory\n"
	"up from the call's cwd (below $HOME) holding .git or .airlock, else the cwd.\n";

static const struct option hook_longopts[] = {
	AGENT_GATE_LONGOPTS,
	{"tui", no_argument, NULL, 't'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The answer being built: decision, reason and, for Bash, the new input. */
struct hook_answer {
	const char *decision; /* "allow", "deny", "ask" */
	char *reason;         /* owned */
	json_t *updated;      /* owned, or NULL */
};

/* The signals that end a hook before it answers: Claude Code's timeout
 * (SIGTERM), Ctrl-C or Ctrl-\, a hangup (the approval screen's set).
 * Killed by one, airlock exited 128+N, a status after which Claude Code
 * runs the tool: now it blocks (2). */
static const int stop_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

static void on_stop(int sig)
{
	static const char msg[] = "airlock: stopped by a signal before answering; blocked\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to say: the exit status blocks */
	}
	_exit(EXIT_USAGE); /* fail safe: the one status Claude Code blocks on */
}

/* block: true to hold the stop signals off (the answer is being written,
 * and goes out whole), false to install on_stop for them. */
static void stop_signals_set(bool block)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < nitems(stop_signals); i++)
		sigaddset(&set, stop_signals[i]);
	if (block) {
		sigprocmask(SIG_BLOCK, &set, NULL);
		return;
	}
	sa.sa_mask = set;
	for (size_t i = 0; i < nitems(stop_signals); i++) {
		struct sigaction old;
		/* one the caller ignores (a background job's SIGINT) stays ignored */
		if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN); /* a closed stdout is a write error: blocked (2) */
}

static int answer_write(struct hook_answer *a)
{
	json_t *spec = json_pack("{s:s, s:s, s:s}", "hookEventName", "PreToolUse",
	                         "permissionDecision", a->decision, "permissionDecisionReason",
	                         a->reason ? a->reason : "");
	json_t *root;
	int rc;

	if (spec == NULL) /* the reason was not UTF-8: say so rather than nothing */
		spec = json_pack("{s:s, s:s, s:s}", "hookEventName", "PreToolUse",
		                 "permissionDecision", "deny", "permissionDecisionReason",
		                 "airlock: the reason could not be encoded; denied");
	if (a->updated && strcmp(a->decision, "deny") != 0)
		json_object_set(spec, "updatedInput", a->updated);
	root = json_pack("{s:o}", "hookSpecificOutput", spec);
	rc = protocol_write(stdout, root);
	json_decref(root);
	free(a->reason);
	json_decref(a->updated);
	/* Claude Code runs the tool after any exit but 0 and 2: an answer that
	 * could not be written blocks (2, with the reason on stderr) */
	if (rc < 0)
		fprintf(stderr, "airlock: cannot write the hook answer: %s; blocked\n",
		        strerror(errno));
	return rc < 0 ? EXIT_USAGE : EXIT_OK;
}

static void deny(struct hook_answer *a, const char *fmt, ...) AIRLOCK_PRINTF(2, 3);
static void deny(struct hook_answer *a, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	struct buf b;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	a->decision = "deny";
	free(a->reason);
	buf_init(&b, 0);
	buf_puts(&b, "airlock: ");
	buf_append_shown(&b, msg, strlen(msg), 0); /* a path from the payload: as text */
	a->reason = buf_take(&b, NULL);
	free(msg);
}

/* Reads all of stdin up to cap bytes; returns a new NUL-terminated buffer. */
static char *read_payload(size_t cap, size_t *len, char **errstr)
{
	struct buf b;
	char chunk[65536];
	ssize_t n;

	buf_init(&b, cap);
	while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*errstr = xasprintf("cannot read the hook payload: %s", strerror(errno));
			buf_free(&b);
			return NULL;
		}
		buf_append(&b, chunk, (size_t)n);
		if (b.truncated) {
			*errstr = xasprintf("the hook payload is larger than %zu bytes", cap);
			buf_free(&b);
			return NULL;
		}
	}
	return buf_take(&b, len);
}

/* " --policy '/abs/FILE'" for the policy file the hook decided with, so
 * the sandbox is the profile it chose (a tightened timeout, no network),
 * not the one the other layers define; "" without one. */
static char *policy_words(const struct gate_opts *go, char **errstr)
{
	const char *file = go->policy_file;
	/* the policy the sandbox is built under trusts what the gate's did */
	const char *trust = go->workdir_guessed ? " --untrusted-project" : "";
	char *real, *q, *words;

	if (file == NULL)
		return xstrdup(trust);
	if ((real = realpath(file, NULL)) == NULL) {
		*errstr = xasprintf("cannot resolve the policy file %s: %s", file, strerror(errno));
		return NULL;
	}
	q = agent_shell_quote(real);
	words = xasprintf("%s --policy %s", trust, q);
	free(q);
	free(real);
	return words;
}

/* " --workdir 'WD' --chdir 'CWD'": the sandbox holds the project, and the
 * command starts where the call was judged from (its cwd, when it names
 * one); NULL with *errstr when that cwd is outside the project, which the
 * sandbox does not show. */
static char *place_words(const char *workdir, const char *cwd, char **errstr)
{
	char real[PATH_MAX], *qwd = agent_shell_quote(workdir), *qcwd, *words;

	if (cwd && (!realpath(cwd, real) || !path_contains(workdir, real))) {
		*errstr = xasprintf("the Bash tool's cwd %s is outside the project %s, and the "
		                    "sandbox shows only the project: cd back into it",
		                    cwd, workdir);
		free(qwd);
		return NULL;
	}
	if (cwd == NULL || strcmp(real, workdir) == 0) {
		words = xasprintf(" --workdir %s", qwd);
		free(qwd);
		return words;
	}
	qcwd = agent_shell_quote(real);
	words = xasprintf(" --workdir %s --chdir %s", qwd, qcwd);
	free(qwd);
	free(qcwd);
	return words;
}

/* For Bash: the same input with c's command as decoded and judged (an argv
 * array quoted, an alias read), run inside airlock's sandbox of workdir:
 * what runs is what was recorded. A call that writes to git gets the
 * host's git identity (--git-identity), one that runs git its
 * safe.directory (--git-trust): airlock exec reads them; the hook itself
 * never loads libgit2. */
static json_t *bash_sandboxed(json_t *tool_input, const struct call *c, const char *workdir,
                              const char *profile, const struct verdict *v,
                              const struct gate_opts *go, char **errstr)
{
	char *self = agent_self_path(errstr), *pol = self ? policy_words(go, errstr) : NULL;
	char *place = pol ? place_words(workdir, c->cwd, errstr) : NULL;
	char *qself, *qprof, *qcmd;
	json_t *in = NULL, *cmd;

	if (place == NULL)
		goto out;
	qself = agent_shell_quote(self);
	qprof = agent_shell_quote(profile);
	qcmd = agent_shell_quote(c->command ? c->command : "");
	in = json_deep_copy(tool_input);
	/* "bash -c -- CMD": without the "--", a command that starts with '-'
	 * or '+' is read by bash as its own options and fails. */
	cmd = json_sprintf("%s exec --profile %s%s%s%s%s -- bash -c -- %s", qself, qprof, pol, place,
	                   git_identity_wanted(v) ? " --git-identity" : "",
	                   git_trust_wanted(v) ? " --git-trust" : "", qcmd);
	/* json_sprintf refuses text that is not UTF-8 (a project or cwd whose
	 * real path holds such bytes): the input would keep the original
	 * command, allowed to run outside the sandbox. Fail safe. */
	if (cmd == NULL || json_object_set_new(in, "command", cmd) < 0) {
		*errstr = xstrdup("the sandboxed command is not valid UTF-8 (a path in it holds "
		                  "bytes a JSON answer cannot carry)");
		json_decref(in);
		in = NULL;
	}
	free(qself);
	free(qprof);
	free(qcmd);
out:
	free(self);
	free(pol);
	free(place);
	return in;
}

/* For a Bash call allowed or asked: its input run in airlock's sandbox
 * under the plan's profile (bash_sandboxed()); denied, saying why, when it
 * cannot be. Other tools keep their input. */
static void answer_sandboxed(struct hook_answer *a, const struct call *c, json_t *tool_input,
                             const struct verdict *v, const struct plan *pl,
                             const char *workdir, const struct gate_opts *go)
{
	char *err = NULL;

	if (c->tool != TOOL_SHELL || c->shape != SHAPE_HOOK)
		return;
	if (pl->profile == NULL)
		deny(a, "no sandbox profile for this Bash call; not run");
	else if ((a->updated = bash_sandboxed(tool_input, c, workdir, pl->profile->name, v, go,
	                                      &err)) == NULL)
		deny(a, "cannot sandbox the command: %s", err);
	free(err);
}

/* What a person approving a call that needs the network should know: the
 * profile it runs in has none, and the call fails there. A new string,
 * empty when not so. */
static char *no_network_note(const struct plan *pl)
{
	return pl->net_wanted && !pl->profile->none && !pl->profile->network
	               ? xasprintf(", without the network this call needs ([profile \"%s\"] "
	                           "network = true in a policy gives it)",
	                           pl->profile->name)
	               : xstrdup("");
}

/* Fills the answer from what the gate decided for the project workdir
 * under go's policy (--policy FILE, a guessed project's trust). */
static void answer_decided(struct hook_answer *a, const struct call *c, json_t *tool_input,
                           const struct verdict *v, const struct plan *pl, struct outcome *o,
                           bool tui, const char *workdir, const struct gate_opts *go)
{
	char *why, *net;

	if (!tui && pl->action == ACTION_ASK && o->decision == DECISION_DENIED && o->audit_id) {
		/* handed to Claude Code's own prompt: not decided here. What the
		 * person approves there runs in the sandbox an approval gets, as
		 * the policy says (the prompt shows the rewritten command); it
		 * used to run as written, outside any sandbox. */
		a->decision = "ask";
		/* profile none is no sandbox: the person must not be told one */
		net = pl->profile ? no_network_note(pl) : NULL;
		why = pl->profile && c->tool == TOOL_SHELL && c->shape == SHAPE_HOOK
		              ? xasprintf(pl->profile->none
		                                  ? "%s; approved, it runs with NO sandbox (profile %s)%s"
		                                  : "%s; approved, it runs in airlock's sandbox (profile %s)%s",
		                          pl->reason ? pl->reason : "ask", pl->profile->name, net)
		              : xstrdup(pl->reason ? pl->reason : "ask");
		a->reason = agent_reason_text("airlock: ", v, why);
		free(why);
		free(net);
		answer_sandboxed(a, c, tool_input, v, pl, workdir, go);
		return;
	}
	if (o->decision != DECISION_AUTO && o->decision != DECISION_APPROVED) {
		a->decision = "deny";
		a->reason = agent_reason_text("airlock: ", v, o->reason);
		return;
	}
	a->decision = "allow";
	/* an approval says who gave it: the policy's line alone ("tier high:
	 * ask") read as if nobody had been asked */
	why = o->decision == DECISION_APPROVED
	              ? xasprintf("%s; approved by %s", pl->reason ? pl->reason : "ask",
	                          go->approve_with ? "the --approve-with program"
	                                           : "a person on airlock's screen")
	              : xstrdup(pl->reason ? pl->reason : "auto");
	a->reason = agent_reason_text("airlock: ", v, why);
	free(why);
	answer_sandboxed(a, c, tool_input, v, pl, workdir, go);
}

/* Claude Code's permission modes in which its own prompt is a person's
 * answer. Under bypassPermissions an "ask" has been seen to run with no
 * prompt at all, and under auto a model answers prompts: there, and in any
 * mode not known here, the question is not handed on (fail closed). */
static const char *const person_modes[] = {"default", "plan", "acceptEdits", "dontAsk"};

/* NULL when Claude Code would put an ask to a person; else the mode. */
static const char *mode_without_person(json_t *root)
{
	json_t *m = json_object_get(root, "permission_mode");
	const char *s = json_string_value(m);

	if (m == NULL)
		return NULL; /* no field (an older Claude Code): its default, which asks */
	for (size_t i = 0; s && i < nitems(person_modes); i++)
		if (strcmp(s, person_modes[i]) == 0)
			return NULL;
	return s ? s : "(not a string)";
}

/* An ask denied because the mode would not ask a person: say so. */
static void deny_for_mode(struct hook_answer *a, const struct plan *pl, const char *mode)
{
	char *r = a->reason;

	if (mode == NULL || pl->action != ACTION_ASK || strcmp(a->decision, "deny") != 0)
		return;
	a->reason = xasprintf("%s; in permission mode %s Claude Code may settle an ask without "
	                      "a person, so airlock denies it (--tui or --approve-with CMD asks "
	                      "here)",
	                      r, mode);
	free(r);
}

/* True when dir could hold the project: a sandbox may have it as workdir. */
static bool project_fits(const char *dir)
{
	char *err = NULL;
	bool yes = exec_workdir_check(dir, &err) == 0;

	free(err);
	return yes;
}

/*
 * The project a call from cwd belongs to: the sandbox's workdir and where
 * the project's policy file lives. Judged from the cwd alone, `cd sub` left
 * the project's .airlock/policy unread (its deny rules too) and shrank the
 * sandbox to sub. Claude Code's CLAUDE_PROJECT_DIR when set, even when the
 * cwd has left it (`cd ..` must not leave the project's rules behind
 * either; such a Bash call is not auto-run); when unset (some versions),
 * the nearest directory up from the cwd, below the home, holding .git or
 * .airlock, else the cwd. A nested .git (git init sub) makes sub the
 * project here, but policy_load still reads every .airlock/policy above
 * it, and a nested one only ever adds restrictions. A project found from
 * the cwd is guessed (*guessed set): the agent chose it (a `tar xf` can plant
 * sub/.airlock/policy), so policy trusts no project file then. Returns a
 * new string, or NULL without a cwd.
 */
static char *hook_project(const char *cwd, bool *guessed)
{
	const char *env = getenv("CLAUDE_PROJECT_DIR"), *home = getenv("HOME");
	char real[PATH_MAX], dir[PATH_MAX], top[PATH_MAX + 16], h[PATH_MAX];

	if (env && env[0] == '/' && realpath(env, top) && project_fits(top))
		return xstrdup(top);
	*guessed = true;
	if (cwd == NULL || realpath(cwd, real) == NULL)
		return cwd ? xstrdup(cwd) : NULL; /* gate_open says what is wrong */
	if (!home || home[0] != '/' || !realpath(home, h))
		h[0] = '\0';
	memcpy(dir, real, sizeof(dir));
	while (strcmp(dir, "/") != 0 && strcmp(dir, h) != 0) {
		snprintf(top, sizeof(top), "%s/.git", dir);
		bool git = access(top, F_OK) == 0;
		snprintf(top, sizeof(top), "%s/.airlock", dir);
		if (git || access(top, F_OK) == 0)
			return xstrdup(project_fits(dir) ? dir : real);
		path_up(dir);
	}
	return xstrdup(real);
}

/* Decodes, classifies and decides one payload; fills a. *gp gets the
 * gate (or NULL), which the caller closes after answering: an outcome the
 * log could not take is tried again there, and the answer need not wait. */
static void hook_decide(struct gate_opts *go, json_t *root, bool tui, struct hook_answer *a,
                        struct gate **gp)
{
	const char *ev = json_string_value(json_object_get(root, "hook_event_name"));
	const char *sid = json_string_value(json_object_get(root, "session_id"));
	const char *nomode = tui ? NULL : mode_without_person(root);
	struct call *c = NULL, **calls = NULL;
	struct gate *g = NULL;
	struct verdict *v = NULL;
	struct outcome *o = NULL;
	struct plan pl = {0};
	json_t *id = NULL;
	char *err = NULL, *agent = NULL, *project = NULL;
	struct stat st;
	int ec;

	if (json_object_get(root, "hook_event_name") && (ev == NULL || strcmp(ev, "PreToolUse"))) {
		deny(a, "this hook answers PreToolUse only (got %s)", ev ? ev : "a non-string");
		goto out;
	}
	if (protocol_decode_json(root, 1, &c, &id, &err) < 0) {
		deny(a, "malformed hook payload: %s", err);
		goto out;
	}
	/* another shape ({"tool":"shell",...}, a tool_use block) decodes too,
	 * but only a hook payload's Bash is rewritten into the sandbox: such a
	 * shell call was allowed as it stood, to run unsandboxed */
	if (c->shape != SHAPE_HOOK) {
		deny(a, "malformed hook payload: not a Claude Code hook payload (tool_name and "
		        "tool_input)");
		goto out;
	}
	if (c->cwd && c->cwd[0] != '/') { /* Claude Code sends an absolute one */
		deny(a, "malformed hook payload: cwd %s is not an absolute path", c->cwd);
		goto out;
	}
	/* relative paths resolve against it: one that is not there is no
	 * place a call can be judged from, whatever the project */
	errno = 0;
	if (c->cwd && (stat(c->cwd, &st) < 0 || !S_ISDIR(st.st_mode))) {
		deny(a, "the call's cwd %s cannot be used: %s", c->cwd,
		     errno ? strerror(errno) : "not a directory");
		goto out;
	}
	if (go->workdir == NULL)
		go->workdir = project = hook_project(c->cwd, &go->workdir_guessed);
	go->agent = agent = xasprintf("claude-code%s%s", sid ? " session " : "", sid ? sid : "");
	if (gate_open(go, &g, &ec, &err) < 0) {
		deny(a, "%s", err);
		goto out;
	}
	/* each hook call is its own process: the breakers' memory is the log */
	if (gate_breakers_restore(g, &err) < 0) {
		deny(a, "cannot restore the circuit breakers from the audit log: %s", err);
		goto out;
	}
	calls = agent_named_calls(c, json_object_get(root, "tool_input"),
	                          c->cwd ? c->cwd : gate_workdir(g));
	/* Claude Code resolves a relative path (Grep's, Glob's, a notebook's)
	 * from the call's cwd, as it does Read's: judged from the project, a
	 * Grep of ".ssh" from the home read the home's keys as the project's
	 * own .ssh, at low. An MCP server keeps the directory it started in. */
	agent_calls_place(calls, strncmp(c->name, "mcp:", 4) != 0 ? c->cwd : NULL);
	v = calls ? agent_classify_calls(g, calls) : gate_classify(g, c);
	c->unsandboxed = agent_calls_unsandboxed(calls); /* policy asks then */
	/* Grep, Glob and LS read their whole tree outside the sandbox: a path a
	 * deny rule names in it is asked about, on the call decided below */
	if (agent_tree_denied(g, c, v))
		for (size_t i = 0; calls && calls[i]; i++)
			c->unsandboxed = calls[i]->unsandboxed = true;
	/* rules match the one derived call, or with several the tool itself: a
	 * rule about one part (a host allowed) must not allow the others */
	o = gate_decide(g, calls && calls[1] == NULL ? calls[0] : c, v,
	                tui || nomode ? GATE_ASK_PERSON : GATE_ASK_RETURN, &pl);
	answer_decided(a, c, json_object_get(root, "tool_input"), v, &pl, o, tui || nomode,
	               gate_workdir(g), go);
	deny_for_mode(a, &pl, nomode);
	if (strcmp(a->decision, "ask") != 0) {
		outcome_set_reason(o, "%s; handed back to Claude Code, which runs it", a->reason);
		if (strcmp(a->decision, "deny") == 0 && o->decision != DECISION_ERROR)
			o->decision = DECISION_DENIED;
		if (gate_finish(g, o, &err) < 0) {
			deny(a, "cannot record the outcome in the audit log: %s", err);
			/* what is written later is what Claude Code was told */
			o->decision = DECISION_DENIED;
			outcome_set_reason(o, "%s; handed back to Claude Code as a denial", a->reason);
			gate_keep_late(g, o, err);
		}
	}
out:
	free(err);
	plan_clear(&pl);
	outcome_free(o);
	verdict_free(v);
	agent_calls_free(calls);
	call_free(c);
	json_decref(id);
	*gp = g;
	free(agent);
	free(project);
}

int cmd_hook(int argc, char **argv)
{
	struct gate_opts o = {.mode = "hook", .single_call = true};
	struct hook_answer a = {.decision = "deny"};
	struct gate *g = NULL;
	bool tui = false;
	json_error_t jerr;
	json_t *root = NULL;
	char *err = NULL, *text = NULL;
	size_t len = 0;
	int ch, r;

	if (argc >= 2 && strcmp(argv[1], "claude") == 0) /* the agent, then its options */
		argc--, argv++;
	else if (argc < 2 || (strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0)) {
		fputs(hook_usage, stderr);
		return EXIT_USAGE;
	}
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+h", hook_longopts, NULL)) != -1) {
		if ((r = agent_gate_option(ch, optarg, &o, &err)) != 0) {
			if (r < 0) {
				fprintf(stderr, "airlock hook: %s\n", err);
				free(err);
				return EXIT_USAGE;
			}
			continue;
		}
		switch (ch) {
		case 't': tui = true; break;
		case 'h': fputs(hook_usage, stdout); return EXIT_OK;
		default: fputs(hook_usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fputs(hook_usage, stderr);
		return EXIT_USAGE;
	}
	stop_signals_set(false);
	o.no_tty = o.no_tty || !tui; /* without --tui, Claude Code asks; never the terminal */
	tui = tui || o.approve_with;  /* a program asked to decide decides */
	if ((text = read_payload(o.line_cap ? o.line_cap : PROTOCOL_LINE_CAP, &len, &err)) == NULL)
		deny(&a, "%s", err);
	else if (memchr(text, '\0', len))
		deny(&a, "malformed hook payload: it holds a NUL byte");
	else if ((root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)) == NULL)
		deny(&a, "malformed hook payload: invalid JSON: %s at line %d column %d", jerr.text,
		     jerr.line, jerr.column);
	else
		hook_decide(&o, root, tui, &a, &g);
	if (strcmp(a.decision, "deny") == 0 && a.reason)
		fprintf(stderr, "%s\n", a.reason);
	json_decref(root);
	free(text);
	free(err);
	stop_signals_set(true);
	r = answer_write(&a);
	(void)gate_close(g); /* the answer says what a log failure changed */
	return r;
}
