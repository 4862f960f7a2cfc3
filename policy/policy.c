/*
 * policy.c: one call's verdict -> a plan (action, profile, credentials).
 * Precedence: deny beats ask beats allow; allow lowers a tier's action to
 * auto but never critical's (only allow-critical does; ask-critical turns
 * critical's deny into an ask); a tripped breaker raises whatever was
 * decided. What cannot be resolved is denied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lazy.h"
#include "core/util.h"
#include "policy/policy_internal.h"

void policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	for (int t = 0; t < TIER_COUNT; t++) {
		free(p->tiers[t].profile);
		for (size_t k = 0; k < p->tiers[t].nsteps; k++)
			free(p->tiers[t].steps[k]);
	}
	for (size_t i = 0; i < p->nprofiles; i++)
		profile_free(p->profiles[i].prof);
	free(p->profiles);
	ruleset_clear(&p->rules);
	for (size_t i = 0; i < p->ncreds; i++) {
		free(p->creds[i].name);
		free(p->creds[i].file);
		ruleset_clear(&p->creds[i].rs);
	}
	free(p->creds);
	breaker_state_clear(&p->bs);
	strv_free(p->warnings);
	strv_free(p->files);
	strv_free(p->origins);
	free(p->workdir);
	free(p->home);
	free(p);
}

void policy_classify_opts(const struct policy *p, struct classify_opts *opts)
{
	opts->unknown_program = p->unknown_program;
	opts->unknown_tool = p->unknown_tool;
}

void plan_clear(struct plan *pl)
{
	free(pl->reason);
	strv_free(pl->env);
	strv_free(pl->binds);
	memset(pl, 0, sizeof(*pl));
}

void policy_set_reasons(struct policy *p, bool on)
{
	p->no_reasons = !on;
}

const struct profile *policy_profile(const struct policy *p, const char *name)
{
	for (size_t i = 0; name && i < p->nprofiles; i++)
		if (strcmp(p->profiles[i].prof->name, name) == 0)
			return p->profiles[i].prof;
	return NULL;
}

const char *rule_act_name(enum rule_act a)
{
	static const char *const names[RA_COUNT] = {"allow", "ask", "deny", "allow-critical",
	                                            "ask-critical"};
	return names[a];
}

/* The reason quotes a file's text, and `classify --explain` prints it on a
 * terminal: a project's deny rule holding an ESC reached it raw. Shown as
 * buf_append_shown() shows an agent's text (the origin is kept so). */
static char *rule_reason(const struct policy *p, const struct rule *r)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "rule %s = ", rule_act_name(r->act));
	buf_append_shown(&b, r->pat.text, strlen(r->pat.text), 0);
	buf_printf(&b, " (%s)", p->origins[r->origin]);
	return buf_take(&b, NULL);
}

/* Applies the rules to the tier's action; sets *reason (unless reason is
 * NULL) when a rule decided. */
static enum action rules_apply(const struct policy *p, const struct rule_result *r,
                               enum tier t, enum action a, char **reason)
{
	const struct rule_result rr = *r;
	const struct rule *by = NULL;
	enum action to = a;

	if (rr.deny)
		by = rr.deny, to = ACTION_DENY;
	else if (rr.ask && a != ACTION_DENY) /* an ask rule never lowers a denying tier */
		by = rr.ask, to = ACTION_ASK;
	else if (rr.ask)
		return a;
	else if ((t == TIER_CRITICAL || rr.guarded) && rr.allow_critical)
		by = rr.allow_critical, to = ACTION_AUTO;
	else if (t == TIER_CRITICAL && a == ACTION_DENY && rr.ask_critical)
		by = rr.ask_critical, to = ACTION_ASK;
	else if (t != TIER_CRITICAL && rr.allow)
		by = rr.allow, to = ACTION_AUTO;
	if (by && reason)
		*reason = rule_reason(p, by);
	return to;
}

/* Why the tier's action stood, with a note on an allow that did not apply. */
static char *tier_reason(const struct policy *p, const struct rule_result *rr, enum tier t,
                         const struct tier_conf *tc)
{
	const char *note = "";

	if (t == TIER_CRITICAL && rr->allow)
		note = "; an allow rule matched, but only allow-critical lowers critical "
		       "(ask-critical makes it ask)";
	else if (rr->guarded && tc->action != ACTION_AUTO)
		return xasprintf("tier %s: %s (%s); only allow-critical lowers %s (%s)",
		                 tier_name(t), action_name(tc->action), p->origins[tc->o_action],
		                 rr->guarded, rr->guarded_why);
	else if (rr->allow_partial && rr->unexplained && tc->action != ACTION_AUTO)
		return xasprintf("tier %s: %s (%s); allow rules matched the commands, but not %s "
		                 "outside them", tier_name(t), action_name(tc->action),
		                 p->origins[tc->o_action], rr->unexplained);
	else if (rr->allow_partial && tc->action != ACTION_AUTO)
		note = "; an allow rule matched, but not every command, path or target";
	return xasprintf("tier %s: %s (%s)%s", tier_name(t), action_name(tc->action),
	                 p->origins[tc->o_action], note);
}

static void grant_credentials(const struct policy *p, const struct call *c,
                              const struct verdict *v, struct plan *out)
{
	for (size_t i = 0; i < p->ncreds; i++) {
		const struct credential *cr = &p->creds[i];
		const char *val;
		if (ruleset_cover(&cr->rs, RA_BIT(RA_ALLOW), c, v) == NULL)
			continue;
		if ((val = getenv(cr->name)) != NULL)
			strv_push_owned(&out->env, xasprintf("%s=%s", cr->name, val));
		if (cr->file)
			strv_push(&out->binds, cr->file);
	}
}

/* Why a call that would run without a sandbox asks instead. */
static void unsandboxed_reason(const struct call *c, enum tier t, struct plan *out)
{
	char *why = out->reason;

	if (c->unsandboxed)
		out->reason = xasprintf("%s; asks: %s runs the command itself, outside "
		                        "airlock's sandbox, which only a person may approve",
		                        why, c->name ? c->name : "the tool");
	else
		out->reason = xasprintf("%s; asks: tier %s runs under profile %s, without "
		                        "a sandbox, which only a person may approve",
		                        why, tier_name(t), out->profile->name);
	free(why);
}

/* True when a write to w can change the policy file f: w is f, the
 * directory holding it, or a directory between it and the workdir (`mv
 * rules rules.old` and a new rules/ replace an include). */
static bool write_reaches(const char *w, const char *f, const char *workdir)
{
	size_t n = strlen(w);

	if (strcmp(w, f) == 0)
		return true;
	if (strncmp(w, f, n) != 0 || f[n] != '/' || n <= 1)
		return false;
	return strchr(f + n + 1, '/') == NULL ||
	       (path_contains(workdir, w) && strcmp(w, workdir) != 0);
}

/* A file the policy was read from that the call writes (NULL: none). The
 * classifier knows .airlock/policy and the user file by name; an include
 * (rules/shared.policy, which any auto-run write could turn into allow-
 * critical = Shell under trust-project), or the target of a linked layer,
 * only the policy knows. */
static const char *policy_file_written(const struct policy *p, const struct verdict *v)
{
	for (char *const *w = v->writes; p->files && w && *w; w++)
		for (char *const *f = p->files; *f; f++)
			if (write_reaches(*w, *f, p->workdir))
				return *f;
	return NULL;
}

void policy_rules_decide(const struct policy *p, const struct call *c,
                         const struct verdict *v, struct rule_result *out)
{
	ruleset_decide(&p->rules, c, v, out);
	if (out->policy_dir || policy_file_written(p, v) == NULL)
		return;
	out->policy_dir = true; /* as a write into .airlock: at least high */
	out->allow = NULL;      /* only allow-critical lowers it */
	if (out->guarded == NULL) {
		out->guarded = "a write to a policy file";
		out->guarded_why = "airlock reads its rules from it";
	}
}

void policy_decide(struct policy *p, const struct call *c, const struct verdict *v,
                   time_t now, struct plan *out)
{
	enum tier t = (unsigned)v->tier < TIER_COUNT ? v->tier : TIER_CRITICAL;
	const struct tier_conf *tc;
	struct rule_result rr;
	enum breaker_trip trip;

	memset(out, 0, sizeof(*out));
	policy_rules_decide(p, c, v, &rr);
	if (rr.policy_dir && t < TIER_HIGH)
		t = TIER_HIGH; /* a policy file, whatever the classifier saw (rules.c) */
	tc = &p->tiers[t];
	out->action = rules_apply(p, &rr, t, tc->action, p->no_reasons ? NULL : &out->reason);
	if (out->reason == NULL && !p->no_reasons)
		out->reason = tier_reason(p, &rr, t, tc);
	trip = breaker_record(p, c, now);
	if (trip != TRIP_NONE && p->breaker.action > out->action) {
		out->action = p->breaker.action;
		free(out->reason);
		out->reason = p->no_reasons ? NULL : breaker_reason(p, trip, c);
	}
	out->approval_timeout = (int)tc->timeout;
	if (out->action == ACTION_DENY)
		return;
	out->profile = policy_profile(p, tc->profile);
	if (out->profile == NULL) { /* load_finish checked it: fail safe anyway */
		out->action = ACTION_DENY;
		free(out->reason);
		out->reason = xasprintf("tier %s: no profile \"%s\"", tier_name(t), tc->profile);
		return;
	}
	if (out->action == ACTION_AUTO && (out->profile->none || c->unsandboxed)) {
		/* no sandbox at all: only a person may let a call run that way */
		out->action = ACTION_ASK;
		if (!p->no_reasons)
			unsandboxed_reason(c, t, out);
	}
	grant_credentials(p, c, v, out);
}

void policy_account_runtime(struct policy *p, long long ms)
{
	if (ms > 0)
		p->bs.runtime_ms += ms;
}

char *const *policy_warnings(const struct policy *p)
{
	return p->warnings;
}

const char *policy_digest(const struct policy *p)
{
	struct policy *mp = (struct policy *)p; /* the digest is a cache */
	const struct lazy_crypto *cr;
	unsigned char md[32];
	unsigned int mdlen = 0;
	char *text, *err = NULL;
	EVP_MD_CTX *ctx;

	if (mp->digest[0])
		return mp->digest;
	if ((cr = lazy_crypto(&err)) == NULL || (ctx = cr->EVP_MD_CTX_new()) == NULL) {
		free(err);
		return "unavailable"; /* the audit log records that it could not hash */
	}
	text = policy_render(p, false);
	if (cr->EVP_DigestInit_ex(ctx, cr->EVP_sha256(), NULL) == 1 &&
	    cr->EVP_DigestUpdate(ctx, text, strlen(text)) == 1 &&
	    cr->EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == sizeof(md)) {
		for (size_t i = 0; i < sizeof(md); i++)
			snprintf(mp->digest + 2 * i, 3, "%02x", md[i]);
	}
	cr->EVP_MD_CTX_free(ctx);
	free(text);
	return mp->digest[0] ? mp->digest : "unavailable";
}
