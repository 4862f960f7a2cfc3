/*
 * pipeline.c: the gate, top to bottom.
 * Rules it keeps:
 *  - a call is recorded (received, classified, decided) before it runs, and
 *    its outcome is recorded before its result is written;
 *  - if the log cannot be written, the call does not run;
 *  - results come out one per input line, in input order, flushed at once;
 *  - a line that cannot be decoded is an error result and the stream goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "classifier/classifier.h"
#include "core/encode.h"
#include "core/state.h"
#include "core/util.h"
#include "db/db.h"
#include "exec/exec.h"
#include "gate/agent.h"
#include "gate/identity.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"

/* Lines read ahead of the one being answered (bounded: the reader waits),
 * and their bytes: 4096 lines of up to the line cap each let an agent
 * queue 64 GiB while a call ran or waited for a person (40 lines of 15 MiB
 * were 640 MB of RSS). A line longer than this still goes alone. */
#define QUEUE_MAX 4096
#define QUEUE_BYTES_MAX ((size_t)64 << 20)

struct qline {
	char *text;
	size_t len, lineno;
	bool toolong;
	struct qline *next;
};

struct gate {
	struct gate_opts opts;
	char *workdir, *home;
	char *state; /* airlock's state directory, resolved, or NULL */
	struct policy *policy;
	struct classify_opts copts;
	struct db *db;

	/* The read-ahead queue filled by the reader thread. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct qline *head, *tail;
	size_t queued, queued_bytes;
	bool eof;
	int read_errno;
	int stop;        /* gate_stop(): the signal, or -1 when the output went away */
	pthread_t reader;
	int requester;   /* pidfd of gate_set_requester()'s process, or -1 */
	int results;     /* gate_watch_results()'s pipe or socket, or -1 (borrowed) */
	struct late *late;     /* outcomes the log could not take yet, oldest first */
	pthread_t streamer;    /* the thread in gate_stream() */
	atomic_bool writing;   /* it is writing a result (see gate_unstick_output) */
};

/* The outcome of a call that ran but whose finished event failed (the log
 * locked past the busy timeout): it is written at the next call or at the
 * end, so the log says the call ran and how it ended. */
struct late {
	struct outcome *o; /* without output; reason says it came late */
	struct late *next;
};

/* One past call, from its received event's body, into the breakers. */
static void breaker_replay_one(struct gate *g, json_t *item)
{
	json_t *body = json_object_get(item, "call"), *id = NULL;
	json_t *root = json_pack("{s:O, s:O}", "tool", json_object_get(body, "name"), "input",
	                         json_object_get(body, "input"));
	struct call *c = NULL;
	char *err = NULL;

	/* a body that no longer decodes (an older schema) counts for nothing */
	if (root && protocol_decode_json(root, 0, &c, &id, &err) == 0)
		policy_breaker_replay(g->policy, c,
		                      (time_t)json_integer_value(json_object_get(item, "time")));
	call_free(c);
	json_decref(id);
	json_decref(root);
	free(err);
}

/* The repeat breaker's view of a field: as the log stores it. */
static char *breaker_key_redact(const char *field, void *db)
{
	return db_redact(db, field);
}

/* How far the replay grows past policy_breaker_memory(): 16 times it, at
 * most 8192 calls (~90 ms of CPU) unless the memory alone is more. */
#define REPLAY_GROWTH_MAX 16
#define REPLAY_CALLS_MAX 8192

/* The agent's last n calls, more while the oldest is still inside the
 * per-minute window: the last `per-minute` calls of every tool left out
 * the calls of one tool among many of another (a Bash call between three
 * Reads ran past per-minute = 5 with no trip). Up to 16 times as many. */
static int breaker_history(struct gate *g, size_t n, json_t **recent, char **errstr)
{
	size_t most = n * REPLAY_GROWTH_MAX;
	time_t since = time(NULL) - POLICY_BREAKER_WINDOW;

	if (most > REPLAY_CALLS_MAX)
		most = REPLAY_CALLS_MAX;
	for (;;) {
		if (db_agent_recent(g->db, g->opts.agent, n, recent, errstr) < 0)
			return -1;
		if (json_array_size(*recent) < n || n >= most || /* most may be below n */
		    json_integer_value(json_object_get(json_array_get(*recent, 0), "time")) <= since)
			return 0;
		json_decref(*recent);
		*recent = NULL;
		n = n * 4 < most ? n * 4 : most;
	}
}

int gate_breakers_restore(struct gate *g, char **errstr)
{
	size_t n = policy_breaker_memory(g->policy), i;
	json_t *recent = NULL, *item;

	if (n == 0 || g->opts.agent == NULL)
		return 0;
	if (breaker_history(g, n, &recent, errstr) < 0)
		return -1;
	json_array_foreach(recent, i, item)
		breaker_replay_one(g, item);
	json_decref(recent);
	/* the past calls came back redacted: the live one is compared so too
	 * (set after them, which need no second pass: ~45 ms for 2,000) */
	policy_breaker_key(g->policy, breaker_key_redact, g->db);
	return 0;
}

char **gate_call_env(struct gate *g, const struct plan *pl, char ***binds)
{
	char **env = strv_dup(pl->env);
	/* read for each call: libgit2 stays loaded once it is (the ~20 ms),
	 * and a read costs ~0.5 ms; kept for the session, the identity went
	 * stale when the user ran `git config user.email` meanwhile */
	char **ident = pl->git_identity ? git_identity_read(g->workdir, binds) : NULL;
	char **trust = pl->git_trust ? git_trust_read(g->workdir) : NULL;

	for (char **b = pl->binds; b && *b; b++)
		strv_push(binds, *b);
	for (char **e = ident; e && *e; e++)
		strv_push(&env, *e);
	for (char **e = trust; e && *e; e++)
		strv_push(&env, *e);
	strv_free(ident);
	strv_free(trust);
	return env;
}

const char *gate_workdir(const struct gate *g)
{
	return g->workdir;
}

struct policy *gate_policy(struct gate *g)
{
	return g->policy;
}

const struct gate_opts *gate_options(const struct gate *g)
{
	return &g->opts;
}

static char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;
	if (h && *h == '/')
		return xstrdup(h);
	pw = getpwuid(getuid());
	return xstrdup(pw ? pw->pw_dir : "/");
}

/* Returns true when path (which may not exist yet: its nearest existing
 * ancestor is resolved) is dir or lies below it. */
static bool path_below(const char *path, const char *dir)
{
	char *p = xstrdup(path), *real = NULL;
	bool below;

	while ((real = realpath(p, NULL)) == NULL && path_up(p))
		;
	if (real == NULL) /* a relative name with no existing part: the cwd */
		real = realpath(".", NULL);
	below = real && path_contains(dir, real);
	free(real);
	free(p);
	return below;
}

/*
 * The audit log may not live in the workdir: the agent's sandboxed
 * commands and its file writes may change anything there (medium, auto),
 * and one `sqlite3` run could cut the log's tail and move its head anchor,
 * which nothing in the file can reveal. Refused before the file is made.
 */
static int db_outside_workdir(const char *dbpath, const char *workdir, char **errstr)
{
	if (!path_below(dbpath, workdir))
		return 0;
	*errstr = xasprintf("the audit log %s is inside the workdir %s, where the agent's"
	                    " commands and writes may change it (and could remove its last"
	                    " events unseen): put it elsewhere with --db or $AIRLOCK_DB",
	                    dbpath, workdir);
	return -1;
}

/* No sandbox may write the audit log, nor the files SQLite keeps beside
 * it, through a profile's read-write grant (exec/mounts.c refuses one). */
static void db_protect(const char *dbpath)
{
	static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
	char real[PATH_MAX];

	if (realpath(dbpath, real) == NULL)
		return; /* db_open() made it, so not reached */
	for (size_t i = 0; i < nitems(sides); i++) {
		char *p = xasprintf("%s%s", real, sides[i]);
		exec_protect_path(p);
		free(p);
	}
}

int gate_open(const struct gate_opts *o, struct gate **out, int *exit_code, char **errstr)
{
	struct gate *g = xcalloc(1, sizeof(*g));
	struct policy_source src = {0};
	char *dbpath = NULL, *err = NULL;
	bool sandboxable;
	int rc = -1;

	g->opts = *o;
	g->requester = g->results = -1;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	*exit_code = EXIT_USAGE;
	if ((g->workdir = realpath(o->workdir ? o->workdir : ".", NULL)) == NULL) {
		*errstr = xasprintf("cannot resolve workdir %s: %s", o->workdir ? o->workdir : ".",
		                    strerror(errno));
		goto out;
	}
	g->home = home_dir();
	src.workdir = g->workdir;
	src.home = g->home;
	src.file = o->policy_file;
	src.guessed = o->workdir_guessed;
	if (policy_load(&src, &g->policy, errstr) < 0)
		goto out;
	/* A workdir that is a system directory or holds a home cannot be
	 * sandboxed; nor may everything in it count as "inside the workdir"
	 * (medium, auto): the classifier then treats every path as outside. */
	sandboxable = exec_workdir_check(g->workdir, &err) == 0;
	if (!sandboxable)
		fprintf(stderr, "airlock: %s; every path counts as outside it\n", err);
	free(err);
	classify_opts_init(&g->copts, sandboxable ? g->workdir : NULL, g->home);
	g->copts.state = g->state = state_root();
	policy_classify_opts(g->policy, &g->copts);

	*exit_code = EXIT_INTERNAL;
	dbpath = o->db_path ? xstrdup(o->db_path) : db_default_path();
	if (sandboxable && db_outside_workdir(dbpath, g->workdir, errstr) < 0)
		goto out;
	if (db_open(dbpath, &g->db, errstr) < 0)
		goto out;
	db_protect(dbpath);
	db_set_redact(g->db, !o->no_redact);
	if (db_session_begin(g->db,
	                     &(struct db_session_info){.cwd = g->workdir,
	                                               .agent = o->agent,
	                                               .mode = o->mode ? o->mode : "gate",
	                                               .policy_digest = policy_digest(g->policy)},
	                     errstr) < 0)
		goto out;
	/* a long session keeps the next sandbox built while a call runs */
	if (!o->single_call && exec_pool_start(errstr) < 0)
		goto out;
	rc = 0;
out:
	free(dbpath);
	if (rc < 0) {
		(void)gate_close(g);
		g = NULL;
	}
	*out = g;
	return rc;
}

void gate_keep_late(struct gate *g, const struct outcome *o, const char *err)
{
	struct late *l = xcalloc(1, sizeof(*l)), **tail = &g->late;

	l->o = outcome_new();
	*l->o = *o;
	l->o->out = l->o->err = l->o->preview = NULL;
	l->o->outlen = l->o->errlen = 0;
	l->o->reason = xasprintf("%s%srecorded late, without its output (the first write"
	                         " failed: %s)", o->reason ? o->reason : "",
	                         o->reason ? "; " : "", err);
	/* a newer outcome of the same call (the hook's answer turned into a
	 * denial) replaces the one kept */
	while (*tail && (*tail)->o->audit_id != o->audit_id)
		tail = &(*tail)->next;
	if (*tail) {
		l->next = (*tail)->next;
		outcome_free((*tail)->o);
		free(*tail);
	}
	*tail = l;
}

/* Writes the outcomes kept by gate_keep_late(), oldest first, while the
 * log takes them. */
static void late_flush(struct gate *g)
{
	char *err = NULL;

	while (g->late && db_call_finished(g->db, g->late->o->audit_id, g->late->o, &err) == 0) {
		struct late *l = g->late;
		g->late = l->next;
		outcome_free(l->o);
		free(l);
	}
	free(err);
}

int gate_close(struct gate *g)
{
	char *err = NULL;
	int rc = 0;

	if (g == NULL)
		return 0;
	exec_pool_stop();
	if (g->db)
		late_flush(g);
	for (struct late *l = g->late, *n; l; l = n) {
		n = l->next;
		fprintf(stderr, "airlock: the outcome of call %lld%s is not in the audit log: %s\n",
		        (long long)l->o->audit_id, l->o->ran ? " (it ran)" : "", l->o->reason);
		outcome_free(l->o);
		free(l);
		rc = -1;
	}
	if (g->db && db_session_end(g->db, &err) < 0) {
		fprintf(stderr, "airlock: %s\n", err);
		free(err);
		rc = -1;
	}
	db_close(g->db);
	policy_free(g->policy);
	for (struct qline *q = g->head, *n; q; q = n) {
		n = q->next;
		free(q->text);
		free(q);
	}
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	if (g->requester >= 0)
		close(g->requester);
	free(g->workdir);
	free(g->home);
	free(g->state);
	free(g);
	return rc;
}

/* Fails the call before it runs: nothing executes without a record. */
static void refuse(struct outcome *o, const char *step, char *err)
{
	o->decision = DECISION_ERROR;
	outcome_set_reason(o, "%s: %s; the call was not run", step, err);
	free(err);
}

/* Asks when policy says ask; fills the decision and who made it. An edited
 * call comes back in *edited for the caller to run through the pipeline. */
static enum decision decide(struct gate *g, const struct call *c, const struct verdict *v,
                            const struct plan *pl, struct outcome *o, const char **who,
                            long long *wait_ms, struct call **edited)
{
	struct approval a = {0};

	*wait_ms = 0;
	switch (pl->action) {
	case ACTION_AUTO:
		*who = "policy";
		return DECISION_AUTO;
	case ACTION_DENY:
		*who = "policy";
		outcome_set_reason(o, "%s", pl->reason ? pl->reason : "denied by policy");
		return DECISION_DENIED;
	case ACTION_ASK:
		break;
	}
	gate_approve(g, c, v, pl, o->preview, &a);
	*who = a.who;
	*wait_ms = a.wait_ms;
	*edited = a.edited;
	if (a.edited) {
		outcome_set_reason(o, "edited by the person approving it; the edited call was "
		                      "decided again");
		free(a.reason);
		return DECISION_DENIED;
	}
	if (a.decision != DECISION_APPROVED) {
		outcome_set_reason(o, "%s", a.reason ? a.reason : "denied");
		free(a.reason);
		return DECISION_DENIED;
	}
	free(a.reason);
	return DECISION_APPROVED;
}

/* Runs an allowed call: the previewed changes when complete, else the call. */
static void execute(struct gate *g, const struct call *c, const struct plan *pl,
                    struct preview *pv, struct outcome *o)
{
	int applied = 0;

	if (o->decision == DECISION_APPROVED && pv)
		applied = gate_apply_preview(g, pv, c, o);
	if (applied < 0)
		o->decision = DECISION_ERROR;
	else if (applied == 0 && tools_run(g, c, pl, o) < 0)
		o->decision = DECISION_ERROR;
}

/* The rules whose calls need the network (net.listen does not: the
 * sandbox has its own loopback). */
static const char *const net_rules[] = {"net.fetch", "net.upload", "pkg.install", "git.push",
                                        "git.push.force"};

static bool network_wanted(const struct verdict *v)
{
	if (v->hosts && v->hosts[0])
		return true;
	for (size_t i = 0; i < v->nfindings; i++)
		for (size_t k = 0; k < nitems(net_rules); k++)
			if (strcmp(v->findings[i].rule, net_rules[k]) == 0)
				return true;
	return false;
}

/* The policy's plan, what the sandbox gets from the host's git config for
 * a call that runs git (a dry run of an ask too), and whether the call
 * needs the network (a profile without it is then named). */
static void plan_decide(struct gate *g, const struct call *c, const struct verdict *v,
                        struct plan *pl)
{
	policy_decide(g->policy, c, v, time(NULL), pl);
	pl->git_identity = git_identity_wanted(v);
	pl->git_trust = git_trust_wanted(v);
	pl->net_wanted = network_wanted(v);
}

/* Granted credential values are redacted wherever they would be recorded. */
static void redact_granted(struct gate *g, const struct plan *pl)
{
	for (char **e = pl->env; e && *e; e++)
		if (strchr(*e, '='))
			db_add_secret_value(g->db, strchr(*e, '=') + 1);
}

/* Replaces every copy of val in *s (len bytes, may hold NULs). */
static void cut_value(char **s, size_t *len, const char *val)
{
	size_t vl = strlen(val), i = 0;
	const char *m;
	struct buf b;

	if (*s == NULL || vl == 0)
		return;
	buf_init(&b, 0);
	while ((m = memmem(*s + i, *len - i, val, vl)) != NULL) {
		buf_append(&b, *s + i, (size_t)(m - (*s + i)));
		buf_puts(&b, "[REDACTED:credential]");
		i = (size_t)(m - *s) + vl;
	}
	if (i == 0) {
		buf_free(&b);
		return;
	}
	buf_append(&b, *s + i, *len - i);
	free(*s);
	*s = buf_take(&b, len);
}

/* A granted credential is for the command, not for the agent: its value is
 * cut from the output the agent gets back (git echoes a refspec it could
 * not push, a tool prints its token in an error message). */
static void redact_granted_output(const struct plan *pl, struct outcome *o)
{
	for (char **e = pl->env; e && *e; e++) {
		const char *val = strchr(*e, '=');
		if (val && strlen(val + 1) >= DB_SECRET_MIN) {
			cut_value(&o->out, &o->outlen, val + 1);
			cut_value(&o->err, &o->errlen, val + 1);
		}
	}
}

/* Records a call decided without asking in one commit: received,
 * classified, decided, and for a denial its outcome too. */
static int record_decided(struct gate *g, const struct call *c, const struct verdict *v,
                          const struct plan *pl, struct outcome *o, const char *who)
{
	struct db_decision d = {pl->action, o->decision, who, o->reason, 0, pl->reason};
	char *err = NULL;

	if (db_call_begin(g->db, c, v, &d, o->decision == DECISION_DENIED ? o : NULL,
	                  &o->audit_id, &err) < 0) {
		refuse(o, "cannot write the audit log", err);
		return -1;
	}
	return 0;
}

/* Holds an ask call: record it, preview it, ask, record the answer. Returns
 * 0 when the answer is recorded (o->decision says what it was), -1 when
 * the log failed (o says why; nothing may run). */
static int ask(struct gate *g, const struct call *c, const struct verdict *v,
               const struct plan *pl, struct preview **pv, struct call **edited,
               struct outcome *o)
{
	const char *who = "policy";
	long long wait_ms = 0;
	char *err = NULL;

	if (db_call_received(g->db, c, v, &o->audit_id, &err) < 0) {
		refuse(o, "cannot write the audit log", err);
		return -1;
	}
	/* a dry run is for the person who decides: with no one to ask it would
	 * only run the call (sandboxed) before denying it */
	if (g->opts.no_tty && !g->opts.approve_with)
		*pv = NULL;
	else if ((*pv = gate_preview(g, c, v, pl, o)) && o->preview &&
	    db_call_previewed(g->db, o->audit_id, o->preview, &err) < 0) {
		refuse(o, "cannot write the audit log", err);
		return -1;
	}
	o->decision = decide(g, c, v, pl, o, &who, &wait_ms, edited);
	if (db_call_decided(g->db, o->audit_id,
	                    &(struct db_decision){pl->action, o->decision, who, o->reason, wait_ms,
	                                          pl->reason},
	                    &err) < 0) {
		refuse(o, "cannot write the audit log", err);
		return -1;
	}
	return 0;
}

/* A cwd the call names that is not the workdir: the classifier reads the
 * call's paths from its cwd, but tools run in the workdir, so such a call
 * would be judged on one set of paths and run on another. It is denied. */
void gate_deny_elsewhere(const char *workdir, const struct call *c, struct plan *pl)
{
	char real[PATH_MAX];

	if (c->cwd == NULL || (realpath(c->cwd, real) && workdir && strcmp(real, workdir) == 0))
		return;
	free(pl->reason);
	pl->reason = xasprintf("the call's cwd %s is not the workdir %s, where calls run: "
	                       "leave cwd out, or start airlock in that directory",
	                       c->cwd, workdir ? workdir : "(none)");
	pl->action = ACTION_DENY;
}

/* Classifies c. A file tool's write is judged against what the git
 * configs make hooks or config now (exec_config_guarded(): an earlier call
 * may have set core.hooksPath); write_file and edit_file run outside the
 * sandbox, which keeps those paths read-only for shell calls. */
static struct verdict *classify(struct gate *g, const struct call *c)
{
	struct classify_opts o = g->copts;
	char **rels = NULL;
	struct verdict *v;

	if ((c->tool == TOOL_WRITE_FILE || c->tool == TOOL_EDIT_FILE) && o.workdir)
		o.config_unread = exec_config_guarded(o.workdir, &rels) < 0;
	o.config_guarded = rels;
	v = classify_call(c, &o);
	strv_free(rels);
	return v;
}

/* An unknown or MCP tool, which the caller runs, judged by what its
 * arguments do (a path read, a command run, a host reached), as the hook,
 * mcp and watch judge it: classified alone it was tool.unknown and nothing
 * more, so `allow = Mcp(fs.read_file)` let a read of ~/.ssh/id_rsa through
 * (proto3 review). A command its own tool runs is never sandboxed: policy
 * asks then (c->unsandboxed). */
static struct verdict *judge(struct gate *g, struct call *c)
{
	struct call **calls = agent_unknown_calls(c, gate_workdir(g));
	struct verdict *v;

	if (calls == NULL)
		return classify(g, c);
	v = agent_classify_calls(g, calls);
	c->unsandboxed = c->unsandboxed || agent_calls_unsandboxed(calls) ||
	                 agent_tree_denied(g, c, v);
	agent_calls_free(calls);
	return v;
}

struct outcome *gate_call(struct gate *g, struct call *c, struct verdict **vout)
{
	struct outcome *o = outcome_new();
	struct verdict *v = judge(g, c);
	struct call *edited = NULL;
	struct preview *pv = NULL;
	struct plan pl = {0};
	const char *who = "policy";
	long long wait_ms = 0;
	char *err = NULL;

	if (g->late)
		late_flush(g);
	plan_decide(g, c, v, &pl);
	redact_granted(g, &pl);
	gate_deny_elsewhere(g->workdir, c, &pl);
	if (pl.action == ACTION_ASK) {
		if (ask(g, c, v, &pl, &pv, &edited, o) < 0 && o->audit_id == 0)
			goto out; /* not even received: nothing more can be recorded */
	} else {
		o->decision = decide(g, c, v, &pl, o, &who, &wait_ms, &edited);
		if (record_decided(g, c, v, &pl, o, who) < 0 || o->decision == DECISION_DENIED)
			goto out; /* refused, or denied and already recorded whole */
	}
	if (o->decision == DECISION_AUTO || o->decision == DECISION_APPROVED) {
		execute(g, c, &pl, pv, o);
		redact_granted_output(&pl, o);
	}
	if (o->decision == DECISION_AUTO)
		policy_account_runtime(g->policy, o->duration_ms);
	if (db_call_finished(g->db, o->audit_id, o, &err) < 0) {
		if (o->ran)
			gate_keep_late(g, o, err);
		outcome_set_reason(o, "%s%scannot record the outcome in the audit log: %s%s",
		                   o->reason ? o->reason : "", o->reason ? "; " : "", err,
		                   o->ran ? " (the call ran; airlock records it again at the"
		                            " next call)" : "");
		o->decision = DECISION_ERROR;
		free(err);
	}
out:
	gate_preview_free(pv);
	plan_clear(&pl);
	if (edited) { /* the person's version replaces the call, whole pipeline again */
		json_decref(edited->id);
		edited->id = json_incref(c->id);
		outcome_free(o);
		verdict_free(v);
		o = gate_call(g, edited, &v);
		call_free(edited);
	}
	*vout = v;
	return o;
}

/* The line is recorded: what an agent sent that airlock could not read is
 * evidence (a duplicate key meant for a laxer reader). */
char *gate_reject_note(struct gate *g, size_t lineno, const char *why, const char *line,
                       size_t len)
{
	char *err = NULL, *msg;

	if (db_input_rejected(g->db, lineno, why, line, len, &err) == 0)
		return xstrdup(why);
	msg = xasprintf("%s (and it could not be recorded in the audit log: %s)", why, err);
	free(err);
	return msg;
}

json_t *gate_reject(struct gate *g, json_t *id, size_t lineno, const char *why,
                    const char *line, size_t len)
{
	char *msg = gate_reject_note(g, lineno, why, line, len);
	json_t *res = protocol_error(id, lineno, msg);

	json_decref(id);
	free(msg);
	return res;
}

/* One input line to one result line. */
static json_t *gate_line(struct gate *g, const char *line, size_t len, size_t lineno,
                         bool toolong)
{
	struct call *c = NULL;
	struct verdict *v = NULL;
	struct outcome *o;
	json_t *id = NULL, *res;
	char *err = NULL;

	if (toolong) {
		err = xasprintf("line %zu is longer than the line cap (%zu bytes); skipped", lineno,
		                g->opts.line_cap ? g->opts.line_cap : (size_t)PROTOCOL_LINE_CAP);
		res = gate_reject(g, NULL, lineno, err, NULL, len);
		free(err);
		return res;
	}
	if (protocol_decode(line, len, lineno, &c, &id, &err) < 0) {
		res = gate_reject(g, id, lineno, err, line, len);
		free(err);
		return res;
	}
	o = gate_call(g, c, &v);
	res = protocol_result(c, v, o);
	outcome_free(o);
	verdict_free(v);
	call_free(c);
	return res;
}

static void reader_cleanup(void *r)
{
	reader_free(r);
}

/* Appends a copy of line to the queue, waiting while it is full, unless the
 * gate stops: then the line is queued anyway, for answer_unstarted(). A
 * line read and dropped at a stop was never answered (SIGTERM with the
 * queue full lost every line the reader held, ~750 of 6000). Returns false
 * once the gate stops. */
static bool queue_line(struct gate *g, const char *line, size_t len, size_t lineno,
                       bool toolong)
{
	struct qline *q;
	bool go;

	pthread_mutex_lock(&g->lock);
	while ((g->queued >= QUEUE_MAX ||
	        (g->queued > 0 && g->queued_bytes + len > QUEUE_BYTES_MAX)) &&
	       !g->stop)
		pthread_cond_wait(&g->cond, &g->lock);
	/* copied only now: line stays in the reader's buffer until the next
	 * reader_next() */
	q = xcalloc(1, sizeof(*q));
	q->text = xstrndup(line, len);
	q->len = len;
	q->lineno = lineno;
	q->toolong = toolong;
	if (g->tail)
		g->tail->next = q;
	else
		g->head = q;
	g->tail = q;
	g->queued++;
	g->queued_bytes += len;
	go = !g->stop;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return go;
}

/* Reads lines into the queue. It can be cancelled only inside read() (so
 * gate_stream can end it while it waits for input) and leaves when the
 * gate stops. */
static void *reader_main(void *arg)
{
	struct gate *g = arg;
	struct reader *r = reader_new(STDIN_FILENO, g->opts.line_cap);
	size_t lineno = 0;
	const char *line;
	size_t len;
	bool toolong;
	int rc, err = 0;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cleanup_push(reader_cleanup, r);
	for (;;) {
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		rc = reader_next(r, &line, &len, &toolong);
		err = errno;
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (rc != 1)
			break;
		if (!queue_line(g, line, len, ++lineno, toolong)) {
			/* stopping: the whole lines already read are answered too */
			while (reader_ready(r) && reader_next(r, &line, &len, &toolong) == 1)
				queue_line(g, line, len, ++lineno, toolong);
			break;
		}
	}
	pthread_mutex_lock(&g->lock);
	g->eof = true;
	g->read_errno = rc < 0 ? err : 0;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_cleanup_pop(1);
	return NULL;
}

/* Takes the next queued line, waiting for the reader; NULL at the end. */
static struct qline *next_line(struct gate *g)
{
	struct qline *q;

	pthread_mutex_lock(&g->lock);
	while (g->head == NULL && !g->eof && !g->stop)
		pthread_cond_wait(&g->cond, &g->lock);
	q = g->stop ? NULL : g->head;
	if (q) {
		g->head = q->next;
		if (g->head == NULL)
			g->tail = NULL;
		g->queued--;
		g->queued_bytes -= q->len;
		pthread_cond_broadcast(&g->cond);
	}
	pthread_mutex_unlock(&g->lock);
	return q;
}

size_t gate_pending(struct gate *g)
{
	size_t n;
	pthread_mutex_lock(&g->lock);
	n = g->queued;
	pthread_mutex_unlock(&g->lock);
	return n;
}

void gate_set_requester(struct gate *g, pid_t pid)
{
	if (pid > 0 && g->requester < 0)
		g->requester = (int)syscall(SYS_pidfd_open, pid, 0);
}

void gate_watch_results(struct gate *g, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		g->results = fd;
}

const char *gate_requester_gone(struct gate *g)
{
	/* a pidfd is readable once its process has exited, reaped or not; a
	 * pipe's write end reports POLLERR once its last reader closed */
	struct pollfd p[2] = {{.fd = g->requester, .events = POLLIN},
	                      {.fd = g->results, .events = 0}};

	if (poll(p, 2, 0) <= 0)
		return NULL;
	if (p[0].revents & POLLIN)
		return "the agent exited";
	if (p[1].revents & (POLLERR | POLLHUP))
		return "nobody reads the results any more (their pipe or socket closed)";
	return NULL;
}

void gate_stop(struct gate *g, int sig)
{
	pthread_mutex_lock(&g->lock);
	if (g->stop == 0)
		g->stop = sig;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* Writes one result line, marked as writing for gate_unstick_output(). */
static int stream_write(struct gate *g, FILE *out, json_t *res)
{
	int rc;

	atomic_store(&g->writing, true);
	rc = protocol_write(out, res);
	atomic_store(&g->writing, false);
	return rc;
}

void gate_unstick_output(struct gate *g, int sig)
{
	int fl;

	if (!atomic_load(&g->writing) || g->results < 0)
		return;
	fl = fcntl(g->results, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(g->results, F_SETFL, fl | O_NONBLOCK);
	/* the write is restarted (SA_RESTART) and, non-blocking now, fails */
	pthread_kill(g->streamer, sig);
}

/* After a stop: lines read but not started are answered, not run, and
 * recorded as rejected: they were answered and left no trace, so the log
 * did not show that the agent had sent them. */
static void answer_unstarted(struct gate *g, FILE *out)
{
	struct qline *q;
	char *msg;

	if (g->stop <= 0)
		return;
	msg = xasprintf("airlock is stopping (signal %d): the call was not run", g->stop);
	pthread_mutex_lock(&g->lock);
	while ((q = g->head) != NULL) {
		struct call *c = NULL;
		json_t *id = NULL, *res;
		char *err = NULL, *why;
		g->head = q->next;
		if (!q->toolong && protocol_decode(q->text, q->len, q->lineno, &c, &id, &err) == 0)
			id = json_incref(c->id);
		why = gate_reject_note(g, q->lineno, msg, q->toolong ? NULL : q->text, q->len);
		res = protocol_error(id, q->lineno, why);
		stream_write(g, out, res);
		json_decref(res);
		json_decref(id);
		call_free(c);
		free(why);
		free(err);
		free(q->text);
		free(q);
	}
	g->tail = NULL;
	g->queued = g->queued_bytes = 0;
	pthread_mutex_unlock(&g->lock);
	free(msg);
}

/* Ends the reader thread: it leaves its queue wait on stop, or is
 * cancelled inside read(). */
static void reader_end(struct gate *g)
{
	gate_stop(g, -1);
	pthread_cancel(g->reader);
	pthread_join(g->reader, NULL);
}

int gate_stream(struct gate *g, int in_fd, FILE *out)
{
	struct qline *q;
	int rc = EXIT_OK, err;

	if (in_fd != STDIN_FILENO && dup2(in_fd, STDIN_FILENO) < 0) {
		fprintf(stderr, "airlock: cannot read the calls: dup2: %s; no call was read\n",
		        strerror(errno));
		return EXIT_INTERNAL;
	}
	signal(SIGPIPE, SIG_IGN);
	g->streamer = pthread_self();
	/* it failed silently (exit 125, no result, no word) under ulimit -v */
	if ((err = pthread_create(&g->reader, NULL, reader_main, g)) != 0) {
		fprintf(stderr, "airlock: cannot start the thread that reads the calls: %s (too"
		                " little memory or too many threads? see ulimit -v and -u); no call"
		                " was read\n", strerror(err));
		return EXIT_INTERNAL;
	}
	while ((q = next_line(g)) != NULL) {
		json_t *res = gate_line(g, q->text, q->len, q->lineno, q->toolong);
		int wr = stream_write(g, out, res);
		json_decref(res);
		free(q->text);
		free(q);
		if (wr < 0) { /* the reader went away: nothing more can be answered */
			if (errno == EAGAIN && g->stop > 0)
				fprintf(stderr, "airlock: cannot write results: nobody read them"
				                " after signal %d (the reader stopped reading);"
				                " the result was dropped\n", g->stop);
			else
				fprintf(stderr, "airlock: cannot write results: %s\n",
				        strerror(errno));
			rc = EXIT_INTERNAL;
			break;
		}
	}
	if (g->read_errno) {
		fprintf(stderr, "airlock: cannot read input: %s\n", strerror(g->read_errno));
		rc = EXIT_INTERNAL;
	}
	reader_end(g); /* first: it queues the lines it holds at a stop */
	answer_unstarted(g, out);
	return rc;
}

/* ---- Deciding without running: the hook, mcp and watch paths. ---------- */

struct verdict *gate_classify(struct gate *g, const struct call *c)
{
	return classify(g, c);
}

/* The decision of a call that already ran (watch): what policy would do. */
static enum decision observe(const struct plan *pl, const struct verdict *v, struct outcome *o)
{
	outcome_set_reason(o, "%swatched: the agent ran it itself; airlock's policy would %s it",
	                   v->tier >= TIER_HIGH ? "FLAGGED: " : "",
	                   pl->action == ACTION_AUTO  ? "auto-run"
	                   : pl->action == ACTION_ASK ? "ask about"
	                                              : "deny");
	return DECISION_AUTO;
}

struct outcome *gate_decide(struct gate *g, const struct call *c, const struct verdict *v,
                            enum gate_ask ask, struct plan *pl)
{
	struct outcome *o = outcome_new();
	struct call *edited = NULL;
	const char *who = ask == GATE_ASK_OBSERVE ? "watch" : "policy";
	long long wait_ms = 0;
	char *err = NULL;

	if (g->late)
		late_flush(g);
	plan_decide(g, c, v, pl);
	redact_granted(g, pl);
	if (db_call_received(g->db, c, v, &o->audit_id, &err) < 0) {
		refuse(o, "cannot write the audit log", err);
		o->audit_id = 0;
		return o;
	}
	if (ask == GATE_ASK_OBSERVE)
		o->decision = observe(pl, v, o);
	else if (pl->action == ACTION_ASK && ask == GATE_ASK_RETURN) {
		o->decision = DECISION_DENIED; /* fail safe if the caller ignores the ask */
		outcome_set_reason(o, "%s", pl->reason ? pl->reason : "needs approval");
		return o;
	} else
		o->decision = decide(g, c, v, pl, o, &who, &wait_ms, &edited);
	if (edited) {
		call_free(edited);
		o->decision = DECISION_DENIED;
		outcome_set_reason(o, "the approval edited the call; on this path an edited call "
		                      "cannot be substituted, so it was denied: issue it again");
	}
	if (db_call_decided(g->db, o->audit_id,
	                    &(struct db_decision){pl->action, o->decision, who, o->reason, wait_ms,
	                                          pl->reason},
	                    &err) < 0)
		refuse(o, "cannot write the audit log", err);
	return o;
}

int gate_finish(struct gate *g, const struct outcome *o, char **errstr)
{
	char *msg;

	if (o->audit_id == 0) {
		*errstr = xstrdup("the call was never recorded");
		return -1;
	}
	if (db_call_finished(g->db, o->audit_id, o, errstr) == 0)
		return 0;
	/* the server (mcp) or the agent (hook, watch) has the call by now:
	 * its outcome is written at the next call or at the end, saying it
	 * came late; printed only, it left the log saying the call was
	 * decided and never how it ended */
	gate_keep_late(g, o, *errstr);
	msg = xasprintf("%s (kept: written at the next call or at the end, marked \"recorded"
	                " late\")", *errstr);
	free(*errstr);
	*errstr = msg;
	return -1;
}
