/*
 * policy.c: STAND-IN (foundation issue) until the policy files land.
 * Hard-codes the default tier table: low and medium auto-run, high asks,
 * critical is denied.
 */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "exec/exec.h"
#include "policy/policy.h"

struct policy {
	int unused;
};

static const struct {
	enum action action;
	const char *profile;
} tiers[TIER_COUNT] = {
	[TIER_LOW] = {ACTION_AUTO, "readonly"},
	[TIER_MEDIUM] = {ACTION_AUTO, "workspace"},
	[TIER_HIGH] = {ACTION_ASK, "approved"},
	[TIER_CRITICAL] = {ACTION_DENY, NULL},
};

int policy_load(const struct policy_source *src, struct policy **out, char **errstr)
{
	(void)src;
	(void)errstr;
	*out = xcalloc(1, sizeof(**out));
	return 0;
}

void policy_free(struct policy *p)
{
	free(p);
}

void policy_classify_opts(const struct policy *p, struct classify_opts *opts)
{
	(void)p;
	opts->unknown_program = TIER_MEDIUM;
	opts->unknown_tool = TIER_HIGH;
}

void plan_clear(struct plan *pl)
{
	free(pl->reason);
	strv_free(pl->env);
	strv_free(pl->binds);
	memset(pl, 0, sizeof(*pl));
}

void policy_decide(struct policy *p, const struct call *c, const struct verdict *v,
                   time_t now, struct plan *out)
{
	(void)c;
	(void)now;
	memset(out, 0, sizeof(*out));
	out->action = tiers[v->tier].action;
	out->profile = tiers[v->tier].profile ? policy_profile(p, tiers[v->tier].profile) : NULL;
	out->approval_timeout = 120;
	out->reason = xasprintf("default policy: %s calls %s", tier_name(v->tier),
	                        out->action == ACTION_AUTO  ? "run automatically"
	                        : out->action == ACTION_ASK ? "need approval"
	                                                    : "are denied");
}

const struct profile *policy_profile(const struct policy *p, const char *name)
{
	(void)p;
	return exec_builtin_profile(name);
}

const char *policy_digest(const struct policy *p)
{
	(void)p;
	return "builtin-defaults";
}
