/*
 * defaults.c: the compiled-in policy, layer 0. It is plain C data, so a
 * process with no policy file never loads libgit2; `airlock policy show
 * --defaults` renders the same data as a policy file. The built-in profiles'
 * numbers come from exec_builtin_profile(), the one place they are kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "exec/exec.h"
#include "policy/policy_internal.h"

static const struct {
	enum action action;
	const char *profile;
} default_tiers[TIER_COUNT] = {
	[TIER_LOW] = {ACTION_AUTO, "readonly"},
	[TIER_MEDIUM] = {ACTION_AUTO, "workspace"},
	[TIER_HIGH] = {ACTION_ASK, "approved"},
	[TIER_CRITICAL] = {ACTION_DENY, "approved"},
};

#define DEFAULT_APPROVAL_TIMEOUT 120

/* A retry loop of 10,000 paid API calls in 3 minutes trips the per-minute
 * breaker at its 121st call (about two seconds in) and the repeat breaker at
 * its 11th identical call. */
static const struct breaker_conf default_breaker = {
	.per_minute = 120, .repeat = 10, .session_seconds = 1800, .action = ACTION_ASK,
};

static const char *const builtin_profiles[] = {"readonly", "workspace", "approved", "none"};

/* New profiles start from this built-in, the strictest sandboxed one. */
#define PROFILE_BASE "readonly"

/* Origins are for people only (show's comments, reasons, warnings): kept
 * as a terminal shows them, since a file's path may hold an ESC (a
 * directory a checkout made), which `classify --explain` printed raw in
 * `tier low: ask (PATH)` on c93eb52. */
int policy_origin_add(struct policy *p, const char *name)
{
	struct buf b;

	buf_init(&b, 0);
	buf_append_shown(&b, name, strlen(name), 0);
	buf_puts(&b, "");
	strv_push_owned(&p->origins, buf_take(&b, NULL));
	return (int)strv_len(p->origins) - 1;
}

struct profile_entry *policy_profile_entry(struct policy *p, const char *name, bool create)
{
	struct profile_entry *e;

	for (size_t i = 0; i < p->nprofiles; i++)
		if (strcmp(p->profiles[i].prof->name, name) == 0)
			return &p->profiles[i];
	if (!create)
		return NULL;
	p->profiles = xreallocarray(p->profiles, p->nprofiles + 1, sizeof(*p->profiles));
	e = &p->profiles[p->nprofiles++];
	memset(e, 0, sizeof(*e));
	e->prof = profile_dup(exec_builtin_profile(PROFILE_BASE));
	free(e->prof->name);
	e->prof->name = xstrdup(name);
	return e;
}

void policy_defaults_apply(struct policy *p)
{
	policy_origin_add(p, "default");
	for (int t = 0; t < TIER_COUNT; t++) {
		p->tiers[t].action = default_tiers[t].action;
		p->tiers[t].profile = xstrdup(default_tiers[t].profile);
		p->tiers[t].timeout = DEFAULT_APPROVAL_TIMEOUT;
	}
	for (size_t i = 0; i < nitems(builtin_profiles); i++) {
		const struct profile *b = exec_builtin_profile(builtin_profiles[i]);
		p->profiles = xreallocarray(p->profiles, p->nprofiles + 1, sizeof(*p->profiles));
		memset(&p->profiles[p->nprofiles], 0, sizeof(*p->profiles));
		p->profiles[p->nprofiles++].prof = profile_dup(b);
	}
	p->breaker = default_breaker;
	p->trust_project = false;
	p->unknown_program = TIER_MEDIUM;
	p->unknown_tool = TIER_HIGH;
	p->user_layer = p->project_layer = -1;
}

/* Every entry of a is in b or in c (c may be NULL). */
static bool strv_subset(char *const *a, char *const *b, char *const *c)
{
	for (; a && *a; a++)
		if (!strv_contains(b, *a) && !strv_contains(c, *a))
			return false;
	return true;
}

/* A limit of 0 means unlimited. */
static bool limit_le(long long a, long long b)
{
	return b == 0 || (a != 0 && a <= b);
}

bool profile_no_looser(const struct profile *a, const struct profile *b)
{
	if ((a->none && !b->none) || (a->network && !b->network) ||
	    (a->workdir_rw && !b->workdir_rw) || (a->show_secrets && !b->show_secrets))
		return false;
	/* b's read-only grants may keep a path inside its writable workdir or a
	 * read-write grant read-only: where a writes anything, a keeps them too */
	if (!strv_subset(a->read_write, b->read_write, NULL) ||
	    !strv_subset(a->read_only, b->read_only, b->read_write) ||
	    ((a->workdir_rw || a->read_write) && !strv_subset(b->read_only, a->read_only, NULL)) ||
	    !strv_subset(a->home, b->home, NULL) || !strv_subset(a->env, b->env, NULL) ||
	    !strv_subset(a->secrets_skip, b->secrets_skip, NULL))
		return false;
	return limit_le(a->memory, b->memory) && limit_le(a->cpu, b->cpu) &&
	       limit_le(a->timeout, b->timeout) && limit_le(a->processes, b->processes) &&
	       limit_le(a->file_size, b->file_size) && limit_le(a->output, b->output) &&
	       limit_le(a->tmp_size, b->tmp_size);
}

const char *policy_size_text(long long v, char buf[32])
{
	static const struct {
		long long unit;
		char suffix;
	} units[] = {{1LL << 30, 'g'}, {1LL << 20, 'm'}, {1LL << 10, 'k'}};

	for (size_t i = 0; i < nitems(units); i++) {
		if (v != 0 && v % units[i].unit == 0) {
			snprintf(buf, 32, "%lld%c", v / units[i].unit, units[i].suffix);
			return buf;
		}
	}
	snprintf(buf, 32, "%lld", v);
	return buf;
}
