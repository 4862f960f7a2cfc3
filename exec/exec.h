/*
 * exec.h: run one command under a sandbox profile, with limits, capturing
 * or streaming its output. A failure to build the sandbox is an error and
 * the command does not run; only the explicit "none" profile runs bare.
 */
#ifndef AIRLOCK_EXEC_H
#define AIRLOCK_EXEC_H

#include <signal.h>
#include <stdbool.h>

#include "core/airlock.h"

struct exec_spec {
	char *const *argv;             /* argv[0] looked up in the sandbox's PATH */
	const char *workdir;           /* absolute; the sandbox's project directory */
	const char *cwd;               /* the command's cwd: the workdir or below it
	                                * (checked; NULL: the workdir) */
	const struct profile *profile; /* limits and mounts; required */
	char *const *env;              /* extra "NAME=value" (granted credentials) */
	char *const *binds;            /* extra files bound read-only */
	long long timeout_ms;          /* overrides profile->timeout when > 0 */
	bool capture;                  /* capture into the result, else stream to fds 1/2 */
	const char *stdin_data;        /* capture mode: fed on stdin; NULL = /dev/null */
	size_t stdin_len;
	/*
	 * Preview dry runs (diff/): when set, the workdir is mounted as an
	 * overlay whose upper and work dirs are created under this existing
	 * host directory ("upper", "work"), so the run's changes land there and
	 * the real workdir is untouched. Network is forced off. Refused with
	 * the none profile, which could not mount it.
	 */
	const char *overlay_dir;
	/*
	 * When set and it becomes nonzero (a signal handler's flag), the call
	 * is killed as at its deadline (not reported as a timeout) and
	 * exec_run() returns as usual, so the sweep and cleanup still happen.
	 * Noticed within a second; NULL: never.
	 */
	const volatile sig_atomic_t *cancel;
};

/* Why a call with exec_result.disk_low died, for the agent and the person
 * (capture.c ends a captured stderr with it; airlock exec prints it). */
#define EXEC_DISK_LOW_WHY                                                              \
	"the file system it writes (its workdir's) fell below the free space airlock "      \
	"keeps for the host (a twentieth of it, or half of what was free at the start); " \
	"what it wrote is still there"

struct exec_result {
	int exit_code; /* -1 when killed by a signal */
	int signal;
	bool timed_out;
	bool disk_low;   /* killed: the call took the file system it writes (its
	                  * workdir's) below its floor (capture.c); a captured
	                  * stderr ends with EXEC_DISK_LOW_WHY */
	bool truncated;  /* a captured stream hit profile->output */
	char *out, *err; /* captured (capture mode); owned */
	size_t outlen, errlen;
	long long wall_ms, cpu_ms, peak_kb;
	int exec_errno; /* on -1: errno of a failed execve (ENOENT: 127, else 126);
	                 * 0 when the sandbox itself could not be built (125) */
	char *removed;  /* guarded paths the run created in a writable workdir and
	                 * airlock removed ("a, b"); owned, NULL when none */
	char *recovered; /* the same, left by an earlier run whose airlock was
	                  * killed before its check, removed before this one
	                  * started; owned, NULL when none */
	char *masked;   /* what the sandbox hid in the workdir (secret files,
	                 * sockets, FIFOs: "a/.env, b.key and 4 more"), for a
	                 * failed run to mention; owned, NULL when none */
	char *hidden_path; /* on exit 127 (not found): the PATH directories
	                    * under $HOME the sandbox shows empty ("~/.cargo/bin"),
	                    * for the caller to name with the profile key that
	                    * shows one; owned, NULL when none */
};

/* Returns the built-in profile with this name (readonly, workspace,
 * approved, none), or NULL. Static storage. */
const struct profile *exec_builtin_profile(const char *name);

/* True when rel (relative to a writable workdir) is a path a sandboxed run
 * may not leave changed: a guarded path (guard.c's table) or one under it;
 * a directory made where a guarded directory belongs (.git, .claude) is
 * allowed. Stricter than the sweep, which keeps inert configs and *.sample
 * hooks: for callers that cannot sweep, such as a preview's apply. */
bool exec_path_guarded(const char *rel, bool is_dir);
/* What the repository config of wd (resolved) has the host's git run or
 * read from the workdir, relative to wd: each core.hooksPath directory and
 * each file it includes, which a run's guard keeps as .git/hooks and
 * .git/config. 0 with a new vector or NULL (strv_free), -1 when the config
 * names them but cannot be read: then what is guarded is unknown. */
int exec_config_guarded(const char *wd, char ***rels) AIRLOCK_MUST_CHECK;

/* Adds path (copied) to what no sandbox may write through a profile's
 * read-write grant, beside airlock's own state directory: the gate's
 * audit log, whose tail one write could cut unseen. A grant that holds
 * one, or lies in one, refuses the plan. */
void exec_protect_path(const char *path);

/* 0 when wd may be a sandbox's workdir; -1 with *errstr (caller frees) when
 * it is a system directory or holds a home (its secrets would show). */
int exec_workdir_check(const char *wd, char **errstr);

/*
 * Runs the command and waits for it. Returns 0 when it ran (whatever its
 * exit status), or -1 with *errstr (caller frees) when the sandbox could not
 * be built or the program not started: then nothing ran. *res is filled on
 * 0; free its buffers with exec_result_clear().
 */
int exec_run(const struct exec_spec *spec, struct exec_result *res,
             char **errstr) AIRLOCK_MUST_CHECK;
void exec_result_clear(struct exec_result *res);
/* The sentence that names res->hidden_path and the profile key that
 * shows such a directory (new string; caller frees). */
char *exec_hidden_path_hint(const char *hidden);

/*
 * The backend interface behind exec_run(): prepare builds what a call needs
 * (mount plan, filter, cgroup), run starts it and waits, free destroys it.
 * The backend is picked from the profile: "none" for the explicit none
 * profile, else "namespace". Other backends (containers, remote sandboxes)
 * plug in as rows of exec/backend.c's table; see docs/sandbox.md.
 */
struct exec_job;
/* Returns 0 and a new job (caller frees with exec_job_free), or -1 with
 * *errstr (caller frees). The spec must outlive the job. */
int exec_prepare(const struct exec_spec *spec, struct exec_job **out,
                 char **errstr) AIRLOCK_MUST_CHECK;
/* Runs a prepared job once; same contract as exec_run(). */
int exec_job_run(struct exec_job *job, struct exec_result *res, char **errstr) AIRLOCK_MUST_CHECK;
/* Returns the backend's name ("namespace", "none"); static storage. */
const char *exec_job_backend(const struct exec_job *job);
void exec_job_free(struct exec_job *job);

/*
 * For a long-running caller (the gate): from exec_pool_start() on, each
 * captured namespace call also has the next sandbox like it built in the
 * background (namespaces, root, capabilities and seccomp done, waiting for
 * a command), so a following call with the same profile, workdir and
 * grants waits only for its command. Every sandbox still runs one call.
 * exec_pool_stop() discards the waiting ones (call it before exiting, so
 * their cgroups are removed); both are idempotent and thread-safe.
 * exec_pool_stats() counts the calls that took a built sandbox (hits) and
 * those that built their own (misses), for tests and the bench.
 */
int exec_pool_start(char **errstr) AIRLOCK_MUST_CHECK;
void exec_pool_stop(void);
void exec_pool_stats(unsigned long *hits, unsigned long *misses);

#endif
