/*
 * approve.c: asks about a call policy holds: an external program
 * (--approve-with), or a person on the approval screen (tui/).
 * Rules it keeps:
 *  - fail closed: no terminal, a program that cannot run or does not answer
 *    in time, a signal, anything unexpected: denied, with a reason that
 *    says which;
 *  - the person's words go back to the agent as the deny reason;
 *  - an edited call is handed back whole, to be classified and decided again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/encode.h"
#include "core/util.h"
#include "gate/agent.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"
#include "tui/tui.h"

#define APPROVE_WITH_OUT_CAP 4096 /* bytes of the program's stdout kept */
#define REASON_MAX 400            /* bytes of a deny reason kept */

extern char **environ;

/* How each tool's subject is named and edited. */
static const struct {
	enum tool tool;
	const char *label, *field, *suffix;
} subjects[] = {
	{TOOL_SHELL, "command", "command", ".sh"}, {TOOL_SQL, "query", "query", ".sql"},
	{TOOL_READ_FILE, "path", NULL, ".json"},   {TOOL_WRITE_FILE, "path", NULL, ".json"},
	{TOOL_EDIT_FILE, "path", NULL, ".json"},   {TOOL_HTTP, "URL", NULL, ".json"},
	{TOOL_OTHER, "tool", NULL, ".json"},
};

static size_t subject_row(enum tool t)
{
	for (size_t i = 0; i < nitems(subjects); i++)
		if (subjects[i].tool == t)
			return i;
	return nitems(subjects) - 1;
}

/* Keeps the first line of s, printable, at most REASON_MAX bytes. */
static char *one_line(const char *s)
{
	struct buf b;

	buf_init(&b, REASON_MAX);
	for (; *s && *s != '\n' && *s != '\r'; s++)
		if ((unsigned char)*s >= 0x20 && *s != 0x7f)
			buf_append(&b, s, 1);
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b, NULL);
}

static char *id_text(const struct call *c)
{
	if (c->id == NULL || json_is_null(c->id))
		return xstrdup("");
	if (json_is_string(c->id))
		return xstrdup(json_string_value(c->id));
	return json_dumps(c->id, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* ---- --approve-with CMD ------------------------------------------------ */

/*
 * What approving does, from the preview's head lines (diff/render.c: the
 * title, then "error: " when the preview failed, "not applied from the
 * preview: " when it is incomplete; no line of a file or an output starts
 * so): "preview" (its changes are applied, outcome applied = preview),
 * "run" (the call itself runs; no preview) or "refused" (the preview
 * failed: nothing runs). The program's JSON said none of it, and a
 * previewed diff read as what would happen. The approval screen is handed
 * this reading (tui_ask.applies): it parsed the text apart, and said
 * nothing of a refusal.
 */
static enum tui_applies approval_applies(const char *preview)
{
	static const char not_applied[] = "not applied from the preview: ";
	const char *second = preview ? strchr(preview, '\n') : NULL;

	if (preview == NULL)
		return TUI_APPLIES_RUN;
	if (second && strncmp(second + 1, "error: ", 7) == 0)
		return TUI_APPLIES_REFUSED;
	for (const char *l = preview; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, not_applied, sizeof(not_applied) - 1) == 0)
			return TUI_APPLIES_RUN;
	return TUI_APPLIES_PREVIEW;
}

static const char *const applies_names[] = {
	[TUI_APPLIES_PREVIEW] = "preview", [TUI_APPLIES_RUN] = "run",
	[TUI_APPLIES_REFUSED] = "refused"};

static json_t *call_json(const struct call *c, const struct verdict *v, const struct plan *pl,
                         const char *preview)
{
	json_t *o = json_object();

	json_object_set(o, "id", c->id ? c->id : json_null());
	json_object_set_new(o, "tool", encode_bytes(c->name, strlen(c->name)));
	json_object_set(o, "input", c->input ? c->input : json_null());
	encode_verdict(o, v);
	if (pl->reason)
		json_object_set_new(o, "policy_reason", json_string(pl->reason));
	if (preview)
		json_object_set_new(o, "preview", encode_bytes(preview, strlen(preview)));
	json_object_set_new(o, "applies", json_string(applies_names[approval_applies(preview)]));
	return o;
}

/*
 * Each AIRLOCK_* value is cut at 64 KiB (at a character's start) and the
 * names of those cut are listed in AIRLOCK_CUT: the kernel refuses an
 * execve() with any one string over 128 KiB (E2BIG), so a long command
 * left the program unstarted and the call denied as "exit status 127".
 * The whole call is on the program's stdin.
 */
#define APPROVE_ENV_MAX (64 * 1024)

static void approve_env_push(char ***env, struct buf *cut, const char *name, const char *value)
{
	size_t n = strlen(value);

	if (n > APPROVE_ENV_MAX) {
		n = APPROVE_ENV_MAX;
		while (n > 0 && ((unsigned char)value[n] & 0xC0) == 0x80)
			n--;
		buf_printf(cut, "%s%s", cut->len ? " " : "", name);
	}
	strv_push_owned(env, xasprintf("AIRLOCK_%s=%.*s", name, (int)n, value));
}

/* The environment for the program: ours plus AIRLOCK_* describing the call.
 * Built before fork: the child of a threaded process must not allocate. */
static char **approve_env(struct gate *g, const struct call *c, const struct verdict *v,
                          const struct plan *pl)
{
	char **env = NULL, *id = id_text(c), timeout[24];
	struct buf rules, reasons, cut;

	buf_init(&rules, 1 << 16);
	buf_init(&reasons, 1 << 16);
	buf_init(&cut, 256);
	for (size_t i = 0; i < v->nfindings; i++) {
		buf_printf(&rules, "%s%s", i ? " " : "", v->findings[i].rule);
		buf_printf(&reasons, "%s%s", i ? "; " : "", v->findings[i].reason);
	}
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "AIRLOCK_", 8) != 0)
			strv_push(&env, *e);
	snprintf(timeout, sizeof(timeout), "%d", pl->approval_timeout);
	approve_env_push(&env, &cut, "TOOL", c->name);
	approve_env_push(&env, &cut, "TIER", tier_name(v->tier));
	approve_env_push(&env, &cut, "CALL_ID", id);
	approve_env_push(&env, &cut, "SUBJECT", call_subject(c));
	approve_env_push(&env, &cut, "RULES", rules.data ? rules.data : "");
	approve_env_push(&env, &cut, "REASONS", reasons.data ? reasons.data : "");
	approve_env_push(&env, &cut, "POLICY_REASON", pl->reason ? pl->reason : "");
	approve_env_push(&env, &cut, "WORKDIR", gate_workdir(g));
	approve_env_push(&env, &cut, "TIMEOUT", timeout);
	if (cut.len)
		strv_push_owned(&env, xasprintf("AIRLOCK_CUT=%s", cut.data));
	buf_free(&rules);
	buf_free(&reasons);
	buf_free(&cut);
	free(id);
	return env;
}

static pid_t spawn(const char *cmd, char **env, int in[2], int out[2])
{
	char sh[] = "sh", dash_c[] = "-c";
	char *argv[] = {sh, dash_c, (char *)cmd, NULL};
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	setpgid(0, 0);
	dup2(in[0], STDIN_FILENO);
	dup2(out[1], STDOUT_FILENO);
	signal(SIGPIPE, SIG_DFL);
	execve("/bin/sh", argv, env);
	_exit(127);
}

/* Feeds the JSON and collects stdout until both are done or the deadline.
 * Returns 0, or -1 on timeout. */
static int converse(int wfd, int rfd, const char *json, struct buf *out, long long deadline)
{
	size_t len = strlen(json), off = 0;
	char chunk[4096];
	int rc = 0;

	fcntl(wfd, F_SETFL, O_NONBLOCK);
	while (rfd >= 0 && rc == 0) {
		struct pollfd p[2] = {{.fd = rfd, .events = POLLIN}, {.fd = wfd, .events = POLLOUT}};
		long long left = deadline ? (deadline - clock_ns()) / 1000000 : 1000;
		ssize_t n;
		if (left <= 0 || (poll(p, wfd >= 0 ? 2 : 1, (int)(left > 1000 ? 1000 : left)) < 0 &&
		                  errno != EINTR)) {
			rc = -1;
			break;
		}
		if (wfd >= 0 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			n = write(wfd, json + off, len - off);
			if (n > 0)
				off += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || off == len) {
				close(wfd);
				wfd = -1;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(rfd, chunk, sizeof(chunk));
			if (n > 0)
				buf_append(out, chunk, (size_t)n); /* past the cap: dropped, flagged */
			else if (n == 0 || errno != EINTR)
				rfd = -1;
		}
	}
	if (wfd >= 0)
		close(wfd);
	return rc;
}

/* Waits for pid until the deadline (0: none); -1 when it passed. A program
 * can close its stdout and keep running: the deadline holds until it exits. */
static int wait_until(pid_t pid, long long deadline, int *status)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), rc = 0;

	while (deadline && fd >= 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long long left = (deadline - clock_ns()) / 1000000;
		if (left <= 0) {
			rc = -1;
			break;
		}
		if (poll(&p, 1, (int)(left > 1000 ? 1000 : left)) > 0)
			break;
	}
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return rc;
}

static void approve_with(struct gate *g, const struct call *c, const struct verdict *v,
                         const struct plan *pl, const char *preview, struct approval *a)
{
	const char *cmd = gate_options(g)->approve_with;
	json_t *j = call_json(c, v, pl, preview);
	char *json = json_dumps(j, JSON_COMPACT), **env = approve_env(g, c, v, pl), *line;
	int in[2] = {-1, -1}, out[2] = {-1, -1}, status = 0, timed_out;
	long long deadline = pl->approval_timeout > 0
	                         ? clock_ns() + pl->approval_timeout * 1000000000LL : 0;
	struct buf res;
	pid_t pid = -1;
	void (*old_pipe)(int);

	buf_init(&res, APPROVE_WITH_OUT_CAP);
	a->who = "approve-with";
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    (pid = spawn(cmd, env, in, out)) < 0) {
		a->reason = xasprintf("--approve-with: cannot run %s: %s", cmd, strerror(errno));
		goto out;
	}
	close(in[0]), close(out[1]);
	in[0] = out[1] = -1;
	old_pipe = signal(SIGPIPE, SIG_IGN); /* a program that does not read: EPIPE */
	timed_out = converse(in[1], out[0], json, &res, deadline);
	signal(SIGPIPE, old_pipe);
	in[1] = -1;
	if (timed_out)
		kill(-pid, SIGKILL);
	if (wait_until(pid, timed_out ? 0 : deadline, &status) < 0)
		timed_out = 1;
	line = one_line(res.data ? res.data : "");
	if (timed_out) {
		a->who = "timeout";
		a->reason = xasprintf("--approve-with did not decide within %d s", pl->approval_timeout);
		free(line);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		a->decision = DECISION_APPROVED;
		a->reason = line;
	} else {
		a->reason = line ? line
		                 : xasprintf("denied by --approve-with (%s %d)",
		                             WIFEXITED(status) ? "exit status" : "signal",
		                             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
out:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	buf_free(&res);
	strv_free(env);
	free(json);
	json_decref(j);
}

/* ---- the approval screen ------------------------------------------------ */

/* The input field by field: strings as text (so a file's content reads as
 * lines), everything else as JSON. Caller frees. */
static char *input_text(const struct call *c)
{
	const char *k;
	json_t *val;
	struct buf b;

	buf_init(&b, 0);
	json_object_foreach(c->input, k, val) {
		buf_printf(&b, "%s:\n", k);
		if (json_is_string(val)) {
			buf_append(&b, json_string_value(val), json_string_length(val));
		} else {
			char *s = json_dumps(val, JSON_INDENT(2) | JSON_ENCODE_ANY);
			buf_puts(&b, s ? s : "?");
			free(s);
		}
		buf_puts(&b, "\n\n");
	}
	return buf_take(&b, NULL);
}

/* What $EDITOR gets: the command or query, else the input as JSON. */
static char *edit_text(const struct call *c)
{
	const char *field = subjects[subject_row(c->tool)].field;
	json_t *s = field ? json_object_get(c->input, field) : NULL;

	if (json_is_string(s))
		return xstrdup(json_string_value(s));
	return json_dumps(c->input, JSON_INDENT(2));
}

/* Builds the edited call, as if the agent had sent it. */
static struct call *edited_call(const struct call *c, const char *text, char **errstr)
{
	const char *field = subjects[subject_row(c->tool)].field;
	json_t *input, *root, *id = NULL;
	json_error_t je;
	struct call *out = NULL;

	if (field && json_is_string(json_object_get(c->input, field))) {
		input = json_deep_copy(c->input);
		json_object_set_new(input, field, json_string(text));
	} else if ((input = json_loads(text, JSON_REJECT_DUPLICATES, &je)) == NULL) {
		*errstr = xasprintf("the edited input is not JSON (line %d: %s)", je.line, je.text);
		return NULL;
	}
	root = json_pack("{s:O,s:s,s:o}", "id", c->id ? c->id : json_null(), "tool", c->name,
	                 "input", input);
	if (root == NULL || protocol_decode_json(root, c->line, &out, &id, errstr) < 0)
		out = NULL;
	if (root == NULL)
		*errstr = xstrdup("the edited call cannot be built (bad text encoding?)");
	json_decref(id);
	json_decref(root);
	return out;
}

static size_t pending_cb(void *arg)
{
	return gate_pending(arg);
}

static bool gone_cb(void *arg)
{
	return gate_requester_gone(arg) != NULL;
}

/* The call's requester left before a person decided: nobody reads the
 * result, so it is not run (it was shown until then, or never). */
static void requester_gone(struct gate *g, struct approval *a)
{
	const char *what = gate_requester_gone(g);

	a->who = "agent-gone";
	a->reason = xasprintf("%s before a person decided; the call was not run",
	                      what ? what : "the agent left");
}

/* Says once per process why no screen can be shown (the reason the agent
 * gets stays the short fixed text). */
static void no_terminal(struct approval *a, const char *why)
{
	static bool said;

	if (why && !said) {
		fprintf(stderr, "airlock: no terminal for approval: %s; asks are denied "
		                "(--approve-with CMD lets a program decide)\n", why);
		said = true;
	}
	a->who = "no-terminal";
	a->reason = xstrdup("no terminal for approval");
}

/* Applies A and s: the rule goes into the policy; the approval stands. */
static void keep_rule(struct gate *g, const struct call *c, const struct verdict *v,
                      const char *pattern, enum tui_choice ch)
{
	char *err = NULL, *pat = NULL;
	int rc = ch == TUI_REMEMBER
	             ? policy_remember(gate_policy(g), c, v, &pat, &err)
	             : policy_save_rule(gate_policy(g), pattern, ch == TUI_SAVE_PROJECT, &err);

	if (rc < 0) { /* the error may quote the call's pattern: escaped */
		char *shown = encode_escape(err, 0);
		fprintf(stderr, "airlock: approved, but the rule was not kept: %s\n", shown);
		free(shown);
		free(err);
	}
	free(pat);
}

static void take_answer(struct gate *g, const struct call *c, const struct verdict *v,
                        const struct tui_ask *ask, struct tui_answer *ans, struct approval *a)
{
	char *err = NULL;

	switch (ans->choice) {
	case TUI_REMEMBER:
	case TUI_SAVE_PROJECT:
	case TUI_SAVE_USER:
		keep_rule(g, c, v, ask->pattern, ans->choice);
		/* fall through */
	case TUI_APPROVE:
		a->decision = DECISION_APPROVED;
		break;
	case TUI_DENY:
		a->reason = ans->reason ? xstrdup(ans->reason)
		                        : xstrdup("denied by the person approving calls");
		break;
	case TUI_EDIT:
		if ((a->edited = edited_call(c, ans->edited, &err)) == NULL) {
			a->reason = xasprintf("the edit was refused: %s", err);
			free(err);
		}
		break;
	case TUI_TIMEOUT:
		a->who = "timeout";
		a->reason = xasprintf("no decision within %d s (approval timeout)", ask->timeout_s);
		break;
	case TUI_SIGNAL:
		a->who = "signal";
		a->reason = xasprintf("approval interrupted by %s; airlock is stopping",
		                      strsignal(ans->signal));
		gate_signals_forward(ans->signal); /* the screen caught it: stop the gate too */
		agent_forward_signal(ans->signal); /* ... and run's agent, mcp's server */
		break;
	case TUI_HANGUP:
		no_terminal(a, NULL);
		a->reason = xstrdup("no terminal for approval: the terminal went away while waiting");
		break;
	case TUI_GONE:
		requester_gone(g, a);
		break;
	}
}

/* Appends when the first frame was on screen: milliseconds after the
 * approval began, and the wall clock (ms since the epoch) so a benchmark can
 * measure from the moment it wrote the call. */
static void note_timing(const char *path, long long t0, long long first_ns)
{
	struct timespec now;
	FILE *f = fopen(path, "a");

	if (f == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	fprintf(f, "first_frame_ms %.3f wall_ms %.3f\n", (double)(first_ns - t0) / 1e6,
	        (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6 -
	            (double)(clock_ns() - first_ns) / 1e6);
	fclose(f);
}

static void ask_person(struct gate *g, const struct call *c, const struct verdict *v,
                       const struct plan *pl, const char *preview, struct approval *a,
                       long long t0)
{
	char *id = id_text(c), *in = input_text(c), *ed = edit_text(c), *err = NULL;
	char *pattern = policy_suggest_pattern(gate_policy(g), c, v, &err);
	struct tui_ask ask = {
		.tool = c->name, .tier = v->tier, .call_id = id, .subject = call_subject(c),
		.subject_label = subjects[subject_row(c->tool)].label, .verdict = v,
		.policy_reason = pl->reason, .input_text = in, .preview = preview,
		.applies = approval_applies(preview),
		.edit_text = ed, .edit_suffix = subjects[subject_row(c->tool)].suffix,
		.pattern = pattern, .no_pattern = err, .can_save = pattern != NULL,
		.timeout_s = pl->approval_timeout, .pending = pending_cb, .pending_arg = g,
		.gone = gone_cb, .gone_arg = g, .tty = getenv("AIRLOCK_TTY"),
	};
	struct tui_answer ans;
	char *terr = NULL;
	const char *timing = getenv("AIRLOCK_TUI_TIMING");

	a->who = "user";
	if (tui_approve(&ask, &ans, &terr) < 0) {
		no_terminal(a, terr);
		free(terr);
		goto out;
	}
	if (timing && ans.first_frame_ns) /* bench/tui.sh reads this */
		note_timing(timing, t0, ans.first_frame_ns);
	take_answer(g, c, v, &ask, &ans, a);
	tui_answer_clear(&ans);
out:
	free(id), free(in), free(ed), free(pattern), free(err);
}

/* Held while a screen is up: what a child prints waits (agent_relay). */
static pthread_mutex_t terminal_lock = PTHREAD_MUTEX_INITIALIZER;

void gate_terminal_lock(void)
{
	pthread_mutex_lock(&terminal_lock);
}

void gate_terminal_unlock(void)
{
	pthread_mutex_unlock(&terminal_lock);
}

/* `airlock gate` typed at a terminal reads its calls from it: keys meant
 * for the screen could become input, and input keys could approve. */
static bool reads_calls_from_tty(struct gate *g)
{
	const char *mode = gate_options(g)->mode;
	return (mode == NULL || strcmp(mode, "gate") == 0) && isatty(STDIN_FILENO);
}

void gate_approve(struct gate *g, const struct call *c, const struct verdict *v,
                  const struct plan *pl, const char *preview, struct approval *a)
{
	long long t0 = clock_ns();

	memset(a, 0, sizeof(*a));
	a->decision = DECISION_DENIED; /* fail safe: only an explicit yes approves */
	a->who = "user";
	if (gate_requester_gone(g)) /* calls it left queued: not asked one by one */
		requester_gone(g, a);
	else if (gate_options(g)->approve_with)
		approve_with(g, c, v, pl, preview, a);
	else if (gate_options(g)->no_tty)
		no_terminal(a, "terminals are disabled for this gate");
	else if (reads_calls_from_tty(g)) /* the screen and the reader would share keys */
		no_terminal(a, "the calls come from the terminal itself (pipe them in)");
	else {
		gate_terminal_lock();
		ask_person(g, c, v, pl, preview, a, t0);
		gate_terminal_unlock();
	}
	if (a->decision == DECISION_APPROVED && a->edited == NULL) {
		free(a->reason); /* an approval carries no reason */
		a->reason = NULL;
	}
	a->wait_ms = (clock_ns() - t0) / 1000000;
}
