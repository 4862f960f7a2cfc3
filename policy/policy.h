/*
 * policy.h: a verdict + the policy files -> what to do with the call
 * (auto, ask, deny), the sandbox profile it runs under, the credentials it
 * may see, and the circuit breakers kept across a session.
 */
#ifndef AIRLOCK_POLICY_H
#define AIRLOCK_POLICY_H

#include <time.h>

#include "classifier/classifier.h"
#include "core/airlock.h"

struct policy;

/* Where to look for policy files. Any field may be NULL. */
struct policy_source {
	const char *workdir;   /* <workdir>/.airlock/policy */
	const char *home;      /* ~/.config/airlock/policy */
	const char *file;      /* --policy FILE, the top layer */
	bool defaults_only;    /* ignore every file: the compiled-in defaults */
};

/*
 * Loads and merges the layers. Returns 0 and a new policy (caller frees with
 * policy_free), or -1 with *errstr set (caller frees): the message names the
 * file, section, key and line. Unsafe permissions are an error too.
 */
int policy_load(const struct policy_source *src, struct policy **out, char **errstr)
	AIRLOCK_MUST_CHECK;
void policy_free(struct policy *p);

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
};
/* Frees what a plan owns and zeroes it. */
void plan_clear(struct plan *pl);

/*
 * Decides one call. `now` feeds the circuit breakers (injectable for tests);
 * deciding records the call in the breakers' session state.
 */
void policy_decide(struct policy *p, const struct call *c, const struct verdict *v,
                   time_t now, struct plan *out);

/* Returns the named profile (borrowed), or NULL when there is none. */
const struct profile *policy_profile(const struct policy *p, const char *name);

/* Returns the SHA-256 hex of the effective policy text (static storage in p). */
const char *policy_digest(const struct policy *p);

#endif
