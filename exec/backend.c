/*
 * backend.c: the backend table behind exec_run() and the explicit "none"
 * backend. Rules: the backend follows from the profile alone, and only a
 * profile marked none runs bare; "none" still clears the environment,
 * applies the rlimits, captures with caps and enforces the timeout, but
 * isolates nothing (docs/sandbox.md says so).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

extern char **environ;

struct exec_job {
	const struct exec_backend *be;
	void *state;
};

struct none_state {
	const struct exec_spec *spec;
	char **env;
	char *cwd; /* owned */
	struct sbx_limits limits;
};

int exec_cwd_resolve(const struct exec_spec *s, char **out, char **errstr)
{
	char wd[PATH_MAX], cwd[PATH_MAX];

	*out = NULL;
	if (s->cwd == NULL)
		return 0;
	if (!realpath(s->workdir, wd) || !realpath(s->cwd, cwd)) {
		*errstr = xasprintf("cwd %s: %s", s->cwd, strerror(errno));
		return -1;
	}
	if (!path_contains(wd, cwd)) {
		*errstr = xasprintf("cwd %s is outside the workdir %s, and the sandbox shows "
		                    "only the workdir",
		                    s->cwd, wd);
		return -1;
	}
	*out = xstrdup(cwd);
	return 0;
}

static int none_prepare(const struct exec_spec *s, void **state, char **errstr)
{
	struct none_state *st = xcalloc(1, sizeof(*st));
	const char *home = getenv("HOME");

	*state = st;
	st->spec = s;
	if (exec_cwd_resolve(s, &st->cwd, errstr) < 0)
		return -1;
	st->env = env_build(s->profile, environ, s->env, home && *home ? home : "/");
	limits_from_profile(s->profile, &st->limits);
	return 0;
}

static void none_destroy(void *state)
{
	struct none_state *st = state;
	if (!st)
		return;
	strv_free(st->env);
	free(st->cwd);
	free(st);
}

SBX_CHILD static void none_child(void *arg, struct sbx_report *r, const int fds[4])
{
	struct none_state *st = arg;

	for (int i = 0; i < 3; i++)
		if (fds[i] != i && dup2(fds[i], i) < 0)
			_exit(EXIT_INTERNAL);
	syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
	setsid();
	if (limits_apply(&st->limits, false) < 0) {
		sbx_report_fail(r, STEP_LIMITS, errno, NULL);
		_exit(EXIT_INTERNAL);
	}
	const char *dir = st->cwd ? st->cwd : st->spec->workdir;
	if (chdir(dir) < 0) {
		sbx_report_fail(r, STEP_CHDIR, errno, dir);
		_exit(EXIT_INTERNAL);
	}
	exec_child_signals();
	int e = exec_lookup_execve(st->spec->argv, st->env);
	sbx_report_fail(r, STEP_EXEC, e, st->spec->argv[0]);
	_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

static int none_run(void *state, struct exec_result *res, char **errstr)
{
	struct none_state *st = state;
	return exec_spawn_wait(st->spec, 0, false, none_child, st, res, NULL, errstr);
}

const struct exec_backend exec_backend_none = {
        .name = "none",
        .prepare = none_prepare,
        .run = none_run,
        .destroy = none_destroy,
};

int exec_prepare(const struct exec_spec *spec, struct exec_job **out, char **errstr)
{
	struct exec_job *job;

	*out = NULL;
	if (!spec->profile || !spec->argv || !spec->argv[0] || !spec->argv[0][0]) {
		*errstr = xstrdup("exec: no profile or no command given");
		return -1;
	}
	if (!spec->workdir || spec->workdir[0] != '/') {
		*errstr = xasprintf("exec: workdir %s is not an absolute path",
		                    spec->workdir ? spec->workdir : "(none)");
		return -1;
	}
	if (spec->overlay_dir && spec->profile->none) { /* fail safe: it would run on the host */
		*errstr = xstrdup("exec: a dry run on an overlay needs the sandbox; the none "
		                  "profile has none");
		return -1;
	}
	job = xcalloc(1, sizeof(*job));
	job->be = spec->profile->none ? &exec_backend_none : &exec_backend_namespace;
	if (job->be->prepare(spec, &job->state, errstr) < 0) {
		exec_job_free(job);
		return -1;
	}
	*out = job;
	return 0;
}

int exec_job_run(struct exec_job *job, struct exec_result *res, char **errstr)
{
	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	return job->be->run(job->state, res, errstr);
}

const char *exec_job_backend(const struct exec_job *job)
{
	return job->be->name;
}

void exec_job_free(struct exec_job *job)
{
	if (!job)
		return;
	job->be->destroy(job->state);
	free(job);
}
