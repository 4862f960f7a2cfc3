/*
 * exec.c: the public face of exec/: the built-in profiles and exec_run(),
 * which is prepare + run + destroy on the backend the profile names.
 * Rules: only the profile named "none" is unsandboxed; the built-ins are
 * static and never modified.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/state.h"
#include "core/util.h"
#include "exec/exec_internal.h"

#define MIB (1024LL * 1024)

/* The locale categories by name, not LC_*: any LC_ name passes ssh's
 * usual SendEnv, which makes it a common way to carry other values. */
static const char *const default_env[] = {
	"PATH",           "LANG",     "LANGUAGE",    "LC_ALL",         "LC_CTYPE",
	"LC_COLLATE",     "LC_MESSAGES", "LC_NUMERIC", "LC_TIME",      "LC_MONETARY",
	"LC_PAPER",       "LC_NAME",  "LC_ADDRESS",  "LC_TELEPHONE",   "LC_MEASUREMENT",
	"LC_IDENTIFICATION", "TERM",  "TZ",          NULL};

static const struct profile builtin[] = {
        {.name = (char *)"readonly",
         .env = (char **)default_env,
         .memory = 2048 * MIB,
         .cpu = 60,
         .timeout = 120,
         .processes = 256,
         .file_size = 1024 * MIB,
         .output = MIB,
         .tmp_size = 256 * MIB},
        {.name = (char *)"workspace",
         .workdir_rw = true,
         .env = (char **)default_env,
         .memory = 2048 * MIB,
         .cpu = 60,
         .timeout = 120,
         .processes = 256,
         .file_size = 1024 * MIB,
         .output = MIB,
         .tmp_size = 256 * MIB},
        {.name = (char *)"approved",
         .workdir_rw = true,
         .show_secrets = true,
         .env = (char **)default_env,
         .memory = 4096 * MIB,
         .cpu = 600,
         .timeout = 600,
         .processes = 1024,
         .file_size = 4096 * MIB,
         .output = MIB,
         .tmp_size = 1024 * MIB},
        {.name = (char *)"none",
         .none = true,
         .workdir_rw = true,
         .show_secrets = true,
         .network = true,
         .env = (char **)default_env,
         .timeout = 600,
         .output = MIB},
};

const struct profile *exec_builtin_profile(const char *name)
{
	for (size_t i = 0; name && i < nitems(builtin); i++)
		if (strcmp(builtin[i].name, name) == 0)
			return &builtin[i];
	return NULL;
}

char *exec_hidden_path_hint(const char *hidden)
{
	return xasprintf("the sandbox shows the home empty, so what is installed there is "
	                 "not found: %s; `home = DIR` in the profile shows a directory of it "
	                 "read-only (airlock-policy(5))",
	                 hidden);
}

/* What of the hidden home a command that was not found may have needed:
 * PATH directories and virtual environments' interpreters; NULL: none. */
static char *hidden_find(const struct exec_spec *spec)
{
	const char *home = getenv("HOME");
	char *path = env_path_hidden(spec->profile, environ, home);
	char *venv = env_venv_hidden(spec->profile, spec->workdir, home), *out = NULL;

	if (path || venv)
		out = xasprintf("%s%s%s%s", path ? "PATH's " : "", path ? path : "",
		                path && venv ? "; " : "", venv ? venv : "");
	free(path);
	free(venv);
	return out;
}

void exec_result_clear(struct exec_result *res)
{
	free(res->out);
	free(res->err);
	free(res->removed);
	free(res->recovered);
	free(res->masked);
	free(res->hidden_path);
	memset(res, 0, sizeof(*res));
}

/* The change times a run noted at note may make: to its deadline, past
 * which its sandbox is dead (the profile's wall-clock limit, and a margin
 * for killing it); no end for a run with no limit. */
static struct guard_span run_span(const struct exec_spec *spec, const struct guard_span *note)
{
	long long timeout = spec->timeout_ms > 0 ? spec->timeout_ms / 1000 + 1
	                                         : spec->profile->timeout;

	return (struct guard_span){note->since,
	                           timeout > 0 ? note->since.tv_sec + (time_t)timeout + 5 : 0};
}

/*
 * Notes what a guarded run in wd starts from (guard.c), and records the
 * note until its sweep (pending.c): first, when a run there was killed
 * before its sweep, what changed from its start on is swept, and the
 * note taken again. Returns what that recovery removed (a new string or
 * NULL); the record's path in *pending and its span in *span; *unread
 * when the repository config cannot be read (the call must not run).
 */
static char *guard_begin(const struct exec_spec *spec, const char *wd, struct guard_note *g,
                         char **pending, struct guard_span *span, bool *unread)
{
	char **skip = mounts_search_skip(spec->profile, wd), *recovered = NULL, **taken;
	struct guard_span orphan, mine;
	bool recover;

	*unread = guard_note(wd, mounts_home(), skip, g) < 0;
	mine = run_span(spec, &g->since);
	recover = pending_orphans(wd, &orphan, &taken);
	if (recover) { /* a kill during the recovery: again, all of it */
		mine.since = orphan.since;
		if (orphan.until == 0 || orphan.until > mine.until)
			mine.until = mine.until ? orphan.until : 0;
	}
	*pending = pending_begin(wd, &mine);
	*span = mine;
	if (recover) {
		recovered = guard_recover(g, &orphan);
		pending_orphans_end(taken); /* done: only now, or a kill lost them */
		taken = NULL;
		guard_note_clear(g);
		state_forget(); /* what it removed may have been a link they went through */
		*unread = guard_note(wd, mounts_home(), skip, g) < 0;
	}
	strv_free(taken);
	strv_free(skip);
	return recovered;
}

/* The record's deadline counts from the note, the command's from its
 * start: a plan that took seconds (a large workdir to search) would leave
 * a killed run's last seconds outside the span. Rewritten then, which is
 * rare: only when a second boundary passed since the note. */
static void guard_ready(const struct exec_spec *spec, const char *wd, const char *pending,
                        struct guard_span *span)
{
	struct guard_span now = {{time(NULL), 0}, 0}, late = run_span(spec, &now);

	if (span->until != 0 && late.until > span->until) {
		span->until = late.until;
		pending_update(pending, wd, span);
	}
}

/* Adds to *errstr what the sweep removed and what a recovery removed
 * (either NULL), for a run that failed; takes both. */
static void removed_fold(char **errstr, char *removed, char *recovered)
{
	char *e;

	if (removed == NULL && recovered == NULL)
		return;
	e = xasprintf("%s%s%s%s%s%s", *errstr ? *errstr : "not run",
	              removed ? "; it created " : "", removed ? removed : "",
	              removed ? ", which airlock removed" : "",
	              recovered ? "; airlock removed what an earlier run whose airlock was "
	                          "killed left: "
	                        : "",
	              recovered ? recovered : "");
	free(*errstr);
	*errstr = e;
	free(removed);
	free(recovered);
}

int exec_run(const struct exec_spec *spec, struct exec_result *res, char **errstr)
{
	struct exec_job *job = NULL;
	char wd[PATH_MAX];
	bool guard = spec->profile && !spec->overlay_dir && spec->workdir &&
	             realpath(spec->workdir, wd) && mounts_writes_workdir(spec->profile, wd);
	struct guard_note before;
	struct guard_span span = {{0, 0}, 0};
	char *pending = NULL, *recovered = NULL;
	bool unread = false;
	int rc;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	/* the plan resolves the state directory and the git configs' paths
	 * once, not at each of the five or more asks (~100 readlink()s) */
	state_hold();
	if (guard)
		recovered = guard_begin(spec, wd, &before, &pending, &span, &unread);
	if (unread)
		*errstr = xstrdup(GUARD_CONFIG_UNREAD);
	if (unread || exec_prepare(spec, &job, errstr) < 0) {
		state_release();
		if (guard) {
			guard_note_clear(&before);
			pending_end(pending);
		}
		removed_fold(errstr, NULL, recovered);
		return -1;
	}
	if (guard)
		guard_ready(spec, wd, pending, &span);
	state_release(); /* the command may change what they resolve through */
	rc = exec_job_run(job, res, errstr);
	exec_job_free(job);
	if (!spec->profile->none && (rc < 0 ? res->exec_errno == ENOENT : res->exit_code == 127))
		res->hidden_path = hidden_find(spec);
	if (rc < 0 && res->hidden_path) {
		char *hint = exec_hidden_path_hint(res->hidden_path);
		char *e = xasprintf("%s; %s", *errstr ? *errstr : "not found", hint);
		free(hint);
		free(*errstr);
		*errstr = e;
		free(res->hidden_path); /* on -1 the caller clears nothing */
		res->hidden_path = NULL;
	}
	if (guard) { /* also after a failure: the command may have started */
		res->removed = guard_sweep(&before);
		res->recovered = recovered;
		guard_note_clear(&before);
		pending_end(pending);
	}
	if (rc < 0) { /* the caller clears nothing: said in the error */
		removed_fold(errstr, res->removed, res->recovered);
		res->removed = res->recovered = NULL;
	}
	return rc;
}

