/*
 * policy.h: a verdict + the policy files -> what to do with the call
 * (auto, ask, deny), the sandbox profile it runs under, the credentials it
 * may see, and the circuit breakers kept across a session.
 */
#ifndef AIRLOCK_POLICY_H
#define AIRLOCK_POLICY_H

#include <stdio.h>
#include <time.h>

#include "classifier/classifier.h"
#include "core/airlock.h"

struct policy;

/* Where to look for policy files. Any field may be NULL. */
struct policy_source {
	const char *workdir;   /* the project files are policy_project_roots()'s;
	                        * anchors relative patterns (at the outermost
	                        * project's root when one is found) */
	const char *home;      /* the home directory: <home>/.config/airlock/policy */
	const char *file;      /* --policy FILE, the top layer */
	bool defaults_only;    /* ignore every file: the compiled-in defaults */
	bool guessed;          /* workdir was inferred from where the agent stands
	                        * (the hook without $CLAUDE_PROJECT_DIR): no project
	                        * file is trusted, since planting .airlock in a
	                        * subdirectory chose the project */
};

/*
 * Loads and merges the layers. Returns 0 and a new policy (caller frees with
 * policy_free), or -1 with *errstr set (caller frees): the message names the
 * file, section, key and line. Unsafe permissions are an error too.
 */
int policy_load(const struct policy_source *src, struct policy **out, char **errstr)
	AIRLOCK_MUST_CHECK;
void policy_free(struct policy *p);

/* Project policy files one load reads at most (a deeper nest is refused). */
#define POLICY_MAX_PROJECT_FILES 8

/*
 * The directories whose .airlock/policy are project layers for workdir:
 * every one from workdir up to / (the hook's workdir is the agent's cwd,
 * which cd moves into subdirectories, where the project's rules must still
 * hold, and a nested file must not hide an outer one's rules). Above the
 * workdir only a file of the caller's or root's counts; only the workdir
 * itself is looked at when it is not an absolute path without "." or ".."
 * segments (its parents cannot be told apart lexically). Stores the
 * innermost max of them in dirs[], OUTERMOST first (new strings; caller
 * frees each), and returns how many there are, which may exceed max.
 */
size_t policy_project_roots(const char *workdir, char **dirs, size_t max);

/* Copies the classifier settings (unknown-program, unknown-tool) into opts. */
void policy_classify_opts(const struct policy *p, struct classify_opts *opts);

/* What policy decided for one call. */
struct plan {
	enum action action;
	const struct profile *profile; /* borrowed from the policy; NULL when denied */
	int approval_timeout;          /* seconds, for ask */
	char *reason;                  /* why: the rule or breaker that decided; owned */
	char **env;                    /* "NAME=value" credentials granted; owned */
	char **binds;                  /* credential files to bind read-only; owned */
	bool git_identity;             /* set by the gate: the call writes to git, so
	                                * its sandbox gets the host's git identity */
	bool git_trust;                /* set by the gate: the call runs git, so its
	                                * sandbox gets the host's safe.directory */
	bool net_wanted;               /* set by the gate: the call reaches past the
	                                * machine (a host, a fetch, an install, a
	                                * push); under a profile without the
	                                * network it fails, and is told why */
};
/* Frees what a plan owns and zeroes it. */
void plan_clear(struct plan *pl);

/*
 * Decides one call. `now` feeds the circuit breakers (injectable for tests);
 * deciding records the call in the breakers' session state.
 */
void policy_decide(struct policy *p, const struct call *c, const struct verdict *v,
                   time_t now, struct plan *out);

/* Whether policy_decide() fills plan.reason (it does unless told not to):
 * formatting it cost a caller that never shows it 4% of a classification. */
void policy_set_reasons(struct policy *p, bool on);

/* Returns the named profile (borrowed), or NULL when there is none. */
const struct profile *policy_profile(const struct policy *p, const char *name);

/* Returns the SHA-256 hex of the effective policy text (static storage in p). */
const char *policy_digest(const struct policy *p);

/* Adds an auto-run call's wall time to the session-seconds breaker. */
void policy_account_runtime(struct policy *p, long long ms);

/* The per-minute breaker's window, in seconds. */
#define POLICY_BREAKER_WINDOW 60
/* How many past calls the per-minute and repeat breakers can use (0 when
 * both are off): a process that decides one call (airlock hook) replays
 * that many from the audit log with policy_breaker_replay(). */
size_t policy_breaker_memory(const struct policy *p);
/* Records a past call, made at `when`, in the breakers' state. */
void policy_breaker_replay(struct policy *p, const struct call *c, time_t when);
/* Maps a field of a call to what the repeat breaker compares: a new
 * string (the caller's arg, borrowed). */
typedef char *(*policy_key_fn)(const char *field, void *arg);
/* Makes the repeat breaker compare every call's fields through fn (NULL:
 * as they are). A process that replays past calls from the audit log
 * gives the log's redaction: stored redacted, a call holding a token
 * never equalled the live one, and an agent retrying it was never
 * stopped. */
void policy_breaker_key(struct policy *p, policy_key_fn fn, void *arg);

/*
 * Returns the narrowest pattern(s) covering an approved call, one per line
 * (a shell call gets one Shell(...) per command not yet allowed), without
 * remembering them; the approval screen shows this first. Returns a new
 * string (caller frees), or NULL with *errstr (caller frees) when the call
 * must not be remembered: a critical call, a bare interpreter, shell or
 * wrapper (python, bash -c, env, sudo, xargs, git on its own), a call a
 * deny or ask rule decides, or a tool with no rule form.
 */
char *policy_suggest_pattern(const struct policy *p, const struct call *c,
                             const struct verdict *v, char **errstr);

/*
 * "Always for this session": remembers policy_suggest_pattern()'s answer as
 * allow rules of this policy. Returns 0 and *pattern_out (new; caller frees)
 * or -1 with *errstr (caller frees) and nothing remembered.
 */
int policy_remember(struct policy *p, const struct call *c, const struct verdict *v,
                    char **pattern_out, char **errstr) AIRLOCK_MUST_CHECK;

/*
 * "Save": appends `pattern` (one or more lines, as policy_remember gives
 * them) as `allow` under [rules] of the user file (~/.config/airlock/policy)
 * or, when project is true, <workdir>/.airlock/policy, through libgit2's
 * config writer, creating the file 0644 if needed; the rules apply to p at
 * once. A project file is refused unless the user trusts projects (an allow
 * there would be ignored). Returns 0, or -1 with *errstr (caller frees).
 */
int policy_save_rule(struct policy *p, const char *pattern, bool project, char **errstr)
	AIRLOCK_MUST_CHECK;

/*
 * Writes the effective merged policy to f as a policy file; with origins,
 * each value ends with a comment naming where it came from ("default", a
 * file path, "session"). Returns 0 or -1 on a write error.
 */
int policy_show(const struct policy *p, FILE *f, bool origins);

/*
 * Returns what loading ignored (borrowed, NULL-terminated, may be NULL):
 * values an untrusted project file tried to loosen, one message each.
 */
char *const *policy_warnings(const struct policy *p);

/*
 * The path patterns deny = Read(...) and Edit(...) rules name only by a
 * glob, as the sandbox holds them (profile->hide_globs, keep_globs: each
 * a rule's absolute segments joined by '/'), matched by the rules' own
 * matcher, so a path the rule denies is the path the sandbox masks.
 */
struct policy_globs;
/* Returns a new set of the patterns, or NULL when one is not an absolute
 * path of at most 128 segments; caller frees with policy_globs_free(). */
struct policy_globs *policy_globs_new(char *const *patterns);
void policy_globs_free(struct policy_globs *g);
/* True when a pattern of g matches the path split into segs[0..n) (an
 * absolute path at its slashes), or a parent of it, as a rule does. */
bool policy_globs_match(const struct policy_globs *g, char *const *segs, size_t n);
/* policy_globs_match() for an entry segs[n - 1] of the directory
 * segs[0..n - 1), which the caller found g does not match: cheaper. */
bool policy_globs_match_entry(const struct policy_globs *g, char *const *segs, size_t n);

#endif
