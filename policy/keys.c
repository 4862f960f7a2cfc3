/*
 * keys.c: every section and key of a policy file, one row each, with the
 * function that checks, types and merges its value. Values are typed with
 * libgit2's parsers (sizes like 1g, booleans). An untrusted project file may
 * only make a value stricter: a looser one is ignored and reported.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "policy/policy_internal.h"

#define MAX_SECONDS (365LL * 86400)
#define IGNORED 1 /* a setter's answer: the value would loosen the policy */

typedef int (*setter_fn)(struct load_ctx *cx, const char *sub, const char *val, int arg,
                         char **why);

struct key_def {
	const char *section, *key;
	bool sub;       /* the section takes a "subsection" */
	setter_fn set;
	int arg;
};

void load_error_add(struct load_errors *le, const char *fmt, ...)
{
	va_list ap;
	struct buf b;
	char *msg;

	if (le->n >= POLICY_MAX_ERRORS) {
		le->dropped++;
		return;
	}
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	/* one line each: the errors are joined with \n, and a value quoting
	 * "a\nb" split its message into lines a reader took for others */
	buf_init(&b, 0);
	buf_append_shown(&b, msg, strlen(msg), SHOWN_TAB);
	buf_puts(&b, "");
	strv_push_owned(&le->msgs, buf_take(&b, NULL));
	free(msg);
	le->n++;
}

char *load_errors_take(struct load_errors *le)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < le->n; i++)
		buf_printf(&b, "%s%s", i ? "\n" : "", le->msgs[i]);
	if (le->dropped)
		buf_printf(&b, "\n(%zu more errors not shown)", le->dropped);
	strv_free(le->msgs);
	memset(le, 0, sizeof(*le));
	return buf_take(&b, NULL);
}

/* Typed values ------------------------------------------------------------ */

static int parse_num(struct load_ctx *cx, const char *val, long long max, long long *out,
                     char **why)
{
	int64_t v = cx->typed->int_v;

	if (val == NULL || cx->typed->int_rc < 0 || v < 0 || v > max) {
		*why = xasprintf("\"%s\" is not a number from 0 to %lld (k, m, g suffixes allowed)",
		                 val ? val : "", max);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_bool(struct load_ctx *cx, const char *val, bool *out, char **why)
{
	int b = val ? cx->typed->bool_v : 1;

	if (val && cx->typed->bool_rc < 0) {
		*why = xasprintf("\"%s\" is not a boolean (true or false)", val);
		return -1;
	}
	*out = b != 0;
	return 0;
}

static int need_value(const char *val, char **why)
{
	if (val == NULL || *val == '\0') {
		*why = xstrdup("needs a value");
		return -1;
	}
	return 0;
}

/* [tier "NAME"] ------------------------------------------------------------ */

static int set_tier_action(struct load_ctx *cx, const char *sub, const char *val, int arg,
                           char **why)
{
	struct tier_conf *t;
	enum tier tr;
	enum action a;

	(void)arg;
	if (tier_from_name(sub, &tr) < 0)
		return -1; /* checked by the dispatcher */
	t = &cx->p->tiers[tr];
	if (val == NULL || action_from_name(val, &a) < 0) {
		*why = xasprintf("\"%s\" is not an action (auto, ask or deny)", val ? val : "");
		return -1;
	}
	if (cx->untrusted && a < t->action)
		return IGNORED;
	if (cx->untrusted && a == t->action)
		return 0; /* restated: the origin stays the layer that set it */
	t->action = a;
	t->o_action = cx->origin;
	return 0;
}

static int set_tier_profile(struct load_ctx *cx, const char *sub, const char *val, int arg,
                            char **why)
{
	struct tier_conf *t;
	enum tier tr;

	(void)arg;
	if (tier_from_name(sub, &tr) < 0 || need_value(val, why) < 0)
		return -1;
	t = &cx->p->tiers[tr];
	/* a trusted layer above the project files (--policy FILE) decides: the
	 * choices before it are no longer checked against each other (they
	 * were, and its own was then dropped for "looser" than the default) */
	if (!cx->untrusted) {
		for (size_t k = 0; k < t->nsteps; k++)
			free(t->steps[k]);
		t->nsteps = 0;
	}
	/* the first time this file replaces another layer's choice (at most
	 * once per untrusted file, so steps[] has room for the final one too) */
	if (cx->untrusted && (t->nsteps == 0 || t->o_profile != cx->origin) &&
	    t->nsteps < nitems(t->steps) - 1) {
		t->steps[t->nsteps] = xstrdup(t->profile); /* load_finish checks them */
		t->o_steps[t->nsteps++] = t->o_profile;
	}
	free(t->profile);
	t->profile = xstrdup(val);
	t->o_profile = cx->origin;
	return 0;
}

static int set_tier_timeout(struct load_ctx *cx, const char *sub, const char *val, int arg,
                            char **why)
{
	long long v;
	enum tier tr;

	(void)arg;
	if (tier_from_name(sub, &tr) < 0 || parse_num(cx, val, 86400, &v, why) < 0)
		return -1;
	if (v == 0) {
		*why = xstrdup("must be at least 1 second");
		return -1;
	}
	cx->p->tiers[tr].timeout = v;
	cx->p->tiers[tr].o_timeout = cx->origin;
	return 0;
}

/* [profile "NAME"] ---------------------------------------------------------- */

static long long *profile_limit(struct profile *pr, int key)
{
	switch ((enum profile_key)key) {
	case PKEY_MEMORY: return &pr->memory;
	case PKEY_CPU: return &pr->cpu;
	case PKEY_TIMEOUT: return &pr->timeout;
	case PKEY_PROCESSES: return &pr->processes;
	case PKEY_FILE_SIZE: return &pr->file_size;
	case PKEY_OUTPUT: return &pr->output;
	case PKEY_TMP_SIZE: return &pr->tmp_size;
	case PKEY_NETWORK:
	case PKEY_WORKDIR:
	case PKEY_READ_ONLY:
	case PKEY_READ_WRITE:
	case PKEY_HOME:
	case PKEY_ENV:
	case PKEY_SECRETS:
	case PKEY_SECRETS_SKIP: break;
	}
	return NULL;
}

static char ***profile_list(struct profile *pr, int key)
{
	return key == PKEY_READ_ONLY    ? &pr->read_only
	       : key == PKEY_READ_WRITE ? &pr->read_write
	       : key == PKEY_HOME       ? &pr->home
	                                : &pr->secrets_skip;
}

static int set_prof_network(struct load_ctx *cx, const char *sub, const char *val, int arg,
                            char **why)
{
	struct profile_entry *e = policy_profile_entry(cx->p, sub, true);
	bool v;

	if (parse_bool(cx, val, &v, why) < 0)
		return -1;
	if (cx->untrusted && v && !e->prof->network)
		return IGNORED;
	if (cx->untrusted && v == e->prof->network)
		return 0;
	e->prof->network = v;
	e->o[arg] = cx->origin;
	return 0;
}

/* Keys of two words, the second the looser: workdir = ro | rw, secrets =
 * hide | show (the workdir's secret files). A project may only choose the
 * first. */
static const struct {
	int key;
	const char *tight, *loose;
	size_t off; /* of the bool in struct profile that is true when loose */
} choices[] = {
	{PKEY_WORKDIR, "ro", "rw", offsetof(struct profile, workdir_rw)},
	{PKEY_SECRETS, "hide", "show", offsetof(struct profile, show_secrets)},
};

static int set_prof_choice(struct load_ctx *cx, const char *sub, const char *val, int arg,
                           char **why)
{
	struct profile_entry *e = policy_profile_entry(cx->p, sub, true);
	size_t i = 0;
	bool loose, *flag;

	while (i + 1 < nitems(choices) && choices[i].key != arg)
		i++;
	loose = val && strcmp(val, choices[i].loose) == 0;
	flag = (bool *)((char *)e->prof + choices[i].off);
	if (!loose && (val == NULL || strcmp(val, choices[i].tight) != 0)) {
		*why = xasprintf("\"%s\" is not %s or %s", val ? val : "", choices[i].tight,
		                 choices[i].loose);
		return -1;
	}
	if (cx->untrusted && loose && !*flag)
		return IGNORED;
	if (cx->untrusted && loose == *flag)
		return 0;
	*flag = loose;
	e->o[arg] = cx->origin;
	return 0;
}

/* Adds one path (read-only and read-write: ~/ expanded, as exec wants them
 * absolute); an untrusted project may not add. */
static int path_add(struct load_ctx *cx, struct profile_entry *e, int arg, const char *val)
{
	char ***list = profile_list(e->prof, arg);
	bool rel = arg == PKEY_HOME || arg == PKEY_SECRETS_SKIP;
	char *path = !rel && strncmp(val, "~/", 2) == 0
	                     ? xasprintf("%s/%s", cx->p->home, val + 2)
	                     : xstrdup(val);
	int rc = 0;

	if (arg == PKEY_SECRETS_SKIP) { /* as the search walks it: d/e, no ./ or / */
		size_t n = strlen(path);
		while (n > 1 && path[n - 1] == '/')
			path[--n] = '\0';
		while (strncmp(path, "./", 2) == 0)
			memmove(path, path + 2, strlen(path + 2) + 1);
	}
	if (strv_contains(*list, path)) {
		free(path);
		if (cx->untrusted)
			return 0; /* restated: `show` named the project as the grant's origin */
	} else if (cx->untrusted) {
		free(path);
		rc = IGNORED;
	} else {
		strv_push_owned(list, path);
	}
	if (rc == 0)
		e->o[arg] = cx->origin;
	return rc;
}

/* A multivar of paths; an empty value clears what the layers below set. */
static int set_prof_paths(struct load_ctx *cx, const char *sub, const char *val, int arg,
                          char **why)
{
	struct profile_entry *e = policy_profile_entry(cx->p, sub, true);
	char ***list = profile_list(e->prof, arg);

	if (val == NULL) {
		*why = xstrdup("needs a path (an empty value clears the list)");
		return -1;
	}
	if (*val == '\0') {
		/* a read-only grant also keeps a path inside the writable workdir
		 * or a read-write grant read-only: dropping it would loosen */
		if (cx->untrusted && arg == PKEY_READ_ONLY && *list)
			return IGNORED;
		strv_free(*list);
		*list = NULL;
		e->o[arg] = cx->origin;
		return 0;
	}
	if (arg == PKEY_HOME ? val[0] == '/' || strstr(val, "..") != NULL
	    : arg == PKEY_SECRETS_SKIP
	        ? val[0] == '/' || val[0] == '~' || strstr(val, "..") != NULL ||
	              strstr(val, "//") != NULL || strstr(val, "/./") != NULL ||
	              strspn(val, "./") == strlen(val)
	        : val[0] != '/' && strncmp(val, "~/", 2) != 0) {
		*why = xasprintf("\"%s\": %s", val,
		                 arg == PKEY_HOME ? "home paths are relative to $HOME (~/x or x), "
		                                    "without .."
		                 : arg == PKEY_SECRETS_SKIP
		                     ? "directories relative to the workdir (target, data/raw), "
		                       "without .."
		                     : "needs an absolute path or ~/path");
		return -1;
	}
	return path_add(cx, e, arg, val);
}

static bool env_name_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && !(*s == '*' && s[1] == '\0'))
			return false;
	return true;
}

static int set_prof_env(struct load_ctx *cx, const char *sub, const char *val, int arg,
                        char **why)
{
	struct profile_entry *e = policy_profile_entry(cx->p, sub, true);
	char **names = NULL, *copy = xstrdup(val ? val : ""), *save = NULL;
	int rc = -1;

	for (char *t = strtok_r(copy, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		if (!env_name_ok(t)) {
			*why = xasprintf("\"%s\" is not a variable name (LC_* style prefixes allowed)", t);
			goto out;
		}
		if (cx->untrusted && !strv_contains(e->prof->env, t)) {
			rc = IGNORED;
			goto out;
		}
		if (!strv_contains(names, t))
			strv_push(&names, t);
	}
	if (cx->untrusted && strv_len(names) == strv_len(e->prof->env)) {
		rc = 0; /* the same names restated: the origin stays */
		goto out;
	}
	strv_free(e->prof->env);
	e->prof->env = names;
	names = NULL;
	e->o[arg] = cx->origin;
	rc = 0;
out:
	strv_free(names);
	free(copy);
	return rc;
}

/* The largest value of each limit the sandbox can apply. Past them a value
 * loaded and `policy check` said ok, while timeout = 18446744073709552
 * (seconds) wrapped to 384 ms in exec's milliseconds, so `sleep 1` was
 * killed as timed out, and processes = 4611686018427387903 made every call
 * fail (pids.max takes at most PID_MAX_LIMIT); reproduced on c93eb52. */
static const struct {
	int key;
	long long max;
} limit_max[] = {
	{PKEY_CPU, MAX_SECONDS},
	{PKEY_TIMEOUT, MAX_SECONDS},
	{PKEY_PROCESSES, 4194304}, /* the kernel's PID_MAX_LIMIT on 64-bit */
};

static long long limit_cap(int key)
{
	for (size_t i = 0; i < nitems(limit_max); i++)
		if (limit_max[i].key == key)
			return limit_max[i].max;
	return LLONG_MAX / 2; /* bytes: rlimits, cgroup and tmpfs take any */
}

static int set_prof_limit(struct load_ctx *cx, const char *sub, const char *val, int arg,
                          char **why)
{
	struct profile_entry *e = policy_profile_entry(cx->p, sub, true);
	long long *slot = profile_limit(e->prof, arg), v;

	if (slot == NULL || parse_num(cx, val, limit_cap(arg), &v, why) < 0)
		return -1;
	if (cx->untrusted && !(*slot == 0 || (v != 0 && v <= *slot)))
		return IGNORED;
	if (cx->untrusted && v == *slot)
		return 0;
	*slot = v;
	e->o[arg] = cx->origin;
	return 0;
}

/* [rules] --------------------------------------------------------------------- */

static char *where(const struct load_ctx *cx, const char *section, const char *sub,
                   const char *key, const char *val);

/* Read($HOME/x), Read(${HOME}/x) and Read(~root/x) are words, not
 * expansions (Claude Code's syntax has ~/ and //abs only): each names a
 * directory so called in the workdir, and on c93eb52 `deny =
 * Read($HOME/notes)` let an auto-run `cat ~/notes` read it while `policy check`
 * said ok. Returns what the first word stands for ("" when it names
 * itself): the warning says so. */
static const char *path_word_meant(const char *inner)
{
	if (inner[0] == '$')
		return "a variable, which patterns do not expand";
	if (inner[0] == '~' && inner[1] != '/' && inner[1] != ')')
		return "another user's home, which patterns do not expand (only ~/ is yours)";
	return "";
}

/* A `*` inside a word spans words only in a deny or ask rule: a pasted
 * Claude Code allow = Bash(git*push *) allowed nothing, silently. Said of
 * a glob in the program's name only (rm *.tmp means a word glob). */
static void rule_span_warn(struct load_ctx *cx, const struct pattern *pat, int arg,
                           const char *val)
{
	const char *w0 = pat->nwords ? pat->words[0].glob : "", *star = strchr(w0, '*');
	char *loc;

	if (pat->kind != PK_SHELL || pat->span == NULL || arg == RA_DENY || arg == RA_ASK ||
	    star == NULL)
		return;
	loc = where(cx, "rules", NULL, rule_act_name((enum rule_act)arg), val);
	strv_push_owned(&cx->p->warnings,
	                xasprintf("%s = %s: a * inside a word stays in that word in an %s rule "
	                          "(it spans words, as in Claude Code, only in deny and ask "
	                          "rules): write each command's words, or end a word with *",
	                          loc, pat->text, rule_act_name((enum rule_act)arg)));
	free(loc);
}

/* Read(/etc/x) names <anchor>/etc/x (one leading slash is anchored, as
 * Claude Code's /path is): a deny or ask written for the absolute path
 * loaded, denied nothing, and `policy check` said ok. So is a path that starts with a
 * $VARIABLE or ~user, which names a directory so called. */
static void rule_anchor_warn(struct load_ctx *cx, const struct pattern *pat, int arg,
                             const char *val)
{
	const char *open = strchr(pat->text, '('), *meant;
	int n, m;
	char *loc;

	if ((pat->kind != PK_READ && pat->kind != PK_EDIT) || (arg != RA_DENY && arg != RA_ASK) ||
	    open == NULL)
		return;
	if (*(meant = path_word_meant(open + 1)) != '\0') {
		loc = where(cx, "rules", NULL, arg == RA_DENY ? "deny" : "ask", val);
		m = (int)strcspn(open + 1, "/)");
		strv_push_owned(&cx->p->warnings,
		                xasprintf("%s = %s names a directory called %.*s, not %s: it "
		                          "matches nothing outside the workdir (write ~/... for "
		                          "your home, or //abs/path)",
		                          loc, pat->text, m, open + 1, meant));
		free(loc);
		return;
	}
	if (open[1] != '/' || open[2] == '/')
		return;
	n = (int)(open - pat->text);
	m = (int)strlen(open + 2) - 1; /* after the slash, before the ) */
	loc = where(cx, "rules", NULL, arg == RA_DENY ? "deny" : "ask", val);
	strv_push_owned(&cx->p->warnings,
	                xasprintf("%s = %s names %s/%.*s, not /%.*s: a path with one leading / "
	                          "is anchored at %s, as in Claude Code (write %.*s(/%s for the "
	                          "absolute path, or %.*s(.%s to say so)",
	                          loc, pat->text, strcmp(cx->anchor, "/") == 0 ? "" : cx->anchor,
	                          m, open + 2, m, open + 2, cx->anchor, n, pat->text, open + 1, n,
	                          pat->text, open + 1));
	free(loc);
}

static int set_rule(struct load_ctx *cx, const char *sub, const char *val, int arg,
                    char **why)
{
	struct pattern pat;

	(void)sub;
	if (need_value(val, why) < 0 ||
	    pattern_parse(val, cx->anchor, cx->p->home, &pat, why) < 0)
		return -1;
	if (cx->untrusted && (arg == RA_ALLOW || arg == RA_ALLOW_CRITICAL || arg == RA_ASK_CRITICAL)) {
		pattern_clear(&pat);
		return IGNORED;
	}
	rule_anchor_warn(cx, &pat, arg, val);
	rule_span_warn(cx, &pat, arg, val);
	if (ruleset_add(&cx->p->rules, (enum rule_act)arg, &pat, cx->origin) < 0) {
		pattern_clear(&pat);
		*why = xasprintf("more than %d rules", POLICY_MAX_RULES);
		return -1;
	}
	cx->p->nrules++;
	return 0;
}

/* [credential "NAME"] ------------------------------------------------------------ */

static struct credential *cred_entry(struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->ncreds; i++)
		if (strcmp(p->creds[i].name, name) == 0)
			return &p->creds[i];
	p->creds = xreallocarray(p->creds, p->ncreds + 1, sizeof(*p->creds));
	memset(&p->creds[p->ncreds], 0, sizeof(*p->creds));
	p->creds[p->ncreds].name = xstrdup(name);
	return &p->creds[p->ncreds++];
}

static int set_cred(struct load_ctx *cx, const char *sub, const char *val, int arg,
                    char **why)
{
	struct credential *cr;
	struct pattern pat;

	if (!env_name_ok(sub) || strchr(sub, '*')) {
		*why = xasprintf("\"%s\" is not an environment variable name", sub);
		return -1;
	}
	if (need_value(val, why) < 0)
		return -1;
	if (arg == 1 && val[0] != '/' && strncmp(val, "~/", 2) != 0) {
		*why = xasprintf("\"%s\": needs an absolute path or ~/path", val);
		return -1;
	}
	if (arg == 0 && pattern_parse(val, cx->anchor, cx->p->home, &pat, why) < 0)
		return -1;
	if (cx->untrusted) {
		if (arg == 0)
			pattern_clear(&pat);
		return IGNORED; /* a project never grants a secret */
	}
	cr = cred_entry(cx->p, sub);
	cr->origin = cx->origin;
	if (arg == 0)
		return ruleset_add(&cr->rs, RA_ALLOW, &pat, cx->origin) < 0 ? -1 : 0;
	free(cr->file);
	cr->file = strncmp(val, "~/", 2) == 0 ? xasprintf("%s/%s", cx->p->home, val + 2)
	                                      : xstrdup(val);
	return 0;
}

/* [breaker] ---------------------------------------------------------------------- */

static int set_breaker_num(struct load_ctx *cx, const char *sub, const char *val, int arg,
                           char **why)
{
	struct breaker_conf *b = &cx->p->breaker;
	long long *slot = arg == 0 ? &b->per_minute : arg == 1 ? &b->repeat : &b->session_seconds;
	int *o = arg == 0 ? &b->o_per_minute : arg == 1 ? &b->o_repeat : &b->o_session;
	long long v;

	(void)sub;
	if (parse_num(cx, val, arg == 2 ? MAX_SECONDS : POLICY_MAX_PER_MINUTE, &v, why) < 0)
		return -1;
	if (cx->untrusted && !(*slot == 0 || (v != 0 && v <= *slot)))
		return IGNORED;
	if (cx->untrusted && v == *slot)
		return 0;
	*slot = v;
	*o = cx->origin;
	return 0;
}

static int set_breaker_action(struct load_ctx *cx, const char *sub, const char *val, int arg,
                              char **why)
{
	enum action a;

	(void)sub;
	(void)arg;
	if (val == NULL || action_from_name(val, &a) < 0 || a == ACTION_AUTO) {
		*why = xasprintf("\"%s\": a tripped breaker must ask or deny", val ? val : "");
		return -1;
	}
	if (cx->untrusted && a < cx->p->breaker.action)
		return IGNORED;
	if (cx->untrusted && a == cx->p->breaker.action)
		return 0;
	cx->p->breaker.action = a;
	cx->p->breaker.o_action = cx->origin;
	return 0;
}

/* [policy] ----------------------------------------------------------------------- */

static int set_trust(struct load_ctx *cx, const char *sub, const char *val, int arg,
                     char **why)
{
	bool v;

	(void)sub;
	(void)arg;
	if (parse_bool(cx, val, &v, why) < 0)
		return -1;
	if (cx->project)
		return IGNORED; /* only the user decides to trust a project */
	cx->p->o_trust = cx->origin; /* the value itself was read by trust_scan */
	return 0;
}

static int set_unknown(struct load_ctx *cx, const char *sub, const char *val, int arg,
                       char **why)
{
	enum tier *slot = arg == 0 ? &cx->p->unknown_program : &cx->p->unknown_tool;
	enum tier t;

	(void)sub;
	if (val == NULL || tier_from_name(val, &t) < 0) {
		*why = xasprintf("\"%s\" is not a tier (low, medium, high, critical)",
		                 val ? val : "");
		return -1;
	}
	if (cx->untrusted && t < *slot)
		return IGNORED;
	if (cx->untrusted && t == *slot)
		return 0;
	*slot = t;
	*(arg == 0 ? &cx->p->o_unknown_program : &cx->p->o_unknown_tool) = cx->origin;
	return 0;
}

static int set_include(struct load_ctx *cx, const char *sub, const char *val, int arg,
                       char **why)
{
	(void)cx;
	(void)sub;
	(void)arg;
	return need_value(val, why); /* libgit2 did the including; load.c checks the file */
}

static const struct key_def keys[] = {
	{"tier", "action", true, set_tier_action, 0},
	{"tier", "profile", true, set_tier_profile, 0},
	{"tier", "approval-timeout", true, set_tier_timeout, 0},
	{"profile", "network", true, set_prof_network, PKEY_NETWORK},
	{"profile", "workdir", true, set_prof_choice, PKEY_WORKDIR},
	{"profile", "secrets", true, set_prof_choice, PKEY_SECRETS},
	{"profile", "read-only", true, set_prof_paths, PKEY_READ_ONLY},
	{"profile", "read-write", true, set_prof_paths, PKEY_READ_WRITE},
	{"profile", "home", true, set_prof_paths, PKEY_HOME},
	{"profile", "secrets-skip", true, set_prof_paths, PKEY_SECRETS_SKIP},
	{"profile", "env", true, set_prof_env, PKEY_ENV},
	{"profile", "memory", true, set_prof_limit, PKEY_MEMORY},
	{"profile", "cpu", true, set_prof_limit, PKEY_CPU},
	{"profile", "timeout", true, set_prof_limit, PKEY_TIMEOUT},
	{"profile", "processes", true, set_prof_limit, PKEY_PROCESSES},
	{"profile", "file-size", true, set_prof_limit, PKEY_FILE_SIZE},
	{"profile", "output", true, set_prof_limit, PKEY_OUTPUT},
	{"profile", "tmp-size", true, set_prof_limit, PKEY_TMP_SIZE},
	{"rules", "allow", false, set_rule, RA_ALLOW},
	{"rules", "ask", false, set_rule, RA_ASK},
	{"rules", "deny", false, set_rule, RA_DENY},
	{"rules", "allow-critical", false, set_rule, RA_ALLOW_CRITICAL},
	{"rules", "ask-critical", false, set_rule, RA_ASK_CRITICAL},
	{"credential", "for", true, set_cred, 0},
	{"credential", "file", true, set_cred, 1},
	{"breaker", "per-minute", false, set_breaker_num, 0},
	{"breaker", "repeat", false, set_breaker_num, 1},
	{"breaker", "session-seconds", false, set_breaker_num, 2},
	{"breaker", "action", false, set_breaker_action, 0},
	{"policy", "trust-project", false, set_trust, 0},
	{"policy", "unknown-program", false, set_unknown, 0},
	{"policy", "unknown-tool", false, set_unknown, 1},
	{"include", "path", false, set_include, 0},
};

/* Dispatch ------------------------------------------------------------------------ */

/* Section header "[name "sub"]" -> name and sub (sub "" when absent). */
static bool header_parse(const char *s, char *name, char *sub, size_t size)
{
	size_t n = 0;

	if (*s++ != '[')
		return false;
	while (*s && *s != ']' && *s != ' ' && *s != '\t' && n + 1 < size)
		name[n++] = *s++;
	name[n] = '\0';
	n = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '"')
		for (s++; *s && *s != '"' && n + 1 < size; s++)
			sub[n++] = *s == '\\' && s[1] ? *++s : *s;
	sub[n] = '\0';
	return true;
}

/*
 * libgit2 gives line numbers for syntax errors only; for a bad value this
 * finds the line in the layer's own file (0 when it came from an include).
 */
static size_t find_line(const char *path, const char *section, const char *sub,
                        const char *key, const char *val)
{
	char line[4096], name[256] = "", cur_sub[256] = "";
	size_t no = 0, found = 0, klen = strlen(key);
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f) && no < 1000000) {
		char *s = line;
		no++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '[') {
			header_parse(s, name, cur_sub, sizeof(name));
			continue;
		}
		if (strcasecmp(name, section) || strcmp(cur_sub, sub ? sub : "") ||
		    strncasecmp(s, key, klen) || (isalnum((unsigned char)s[klen]) || s[klen] == '-'))
			continue;
		if (found == 0 || (val && *val && strstr(s + klen, val)))
			found = no;
	}
	if (f)
		fclose(f);
	return found;
}

/* "path:LINE: [section "sub"] key" into a new string. */
static char *where(const struct load_ctx *cx, const char *section, const char *sub,
                   const char *key, const char *val)
{
	size_t line = key ? find_line(cx->path, section, sub, key, val) : 0;
	char lbuf[32] = "";

	if (line)
		snprintf(lbuf, sizeof(lbuf), ":%zu", line);
	if (sub)
		return xasprintf("%s%s: [%s \"%s\"]%s%s", cx->path, lbuf, section, sub,
		                 key ? " " : "", key ? key : "");
	return xasprintf("%s%s: [%s]%s%s", cx->path, lbuf, section, key ? " " : "",
	                 key ? key : "");
}

static const struct key_def *key_find(const char *section, const char *key, bool *known)
{
	*known = false;
	for (size_t i = 0; i < nitems(keys); i++) {
		if (strcmp(keys[i].section, section) != 0)
			continue;
		*known = true;
		if (strcmp(keys[i].key, key) == 0)
			return &keys[i];
	}
	return NULL;
}

/* Checks the subsection; returns an explanation (caller frees) or NULL. */
static char *sub_check(const struct key_def *k, const char *sub)
{
	enum tier t;

	if (!k->sub && sub)
		return xasprintf("takes no subsection: write [%s]", k->section);
	if (k->sub && sub == NULL)
		return xasprintf("needs a name: [%s \"NAME\"]", k->section);
	if (strcmp(k->section, "tier") == 0 && tier_from_name(sub, &t) < 0)
		return xasprintf("unknown tier \"%s\" (low, medium, high, critical)", sub);
	return NULL;
}

static void ignored_add(struct load_ctx *cx, const char *loc, const char *val)
{
	char *tail = cx->nested ? xasprintf("(it is inside the project at %s: only that "
	                                    "project's own file may be trusted)", cx->p->workdir)
	             : cx->p->workdir_guessed
	                 ? xstrdup("(the project was guessed from the agent's cwd, so it is never "
	                           "trusted: set $CLAUDE_PROJECT_DIR or pass --workdir)")
	                 : xstrdup("(set trust-project = true under [policy] in "
	                           "~/.config/airlock/policy to trust it)");

	strv_push_owned(&cx->p->warnings,
	                xasprintf("%s = %s ignored: a project file can only make the policy "
	                          "stricter %s", loc, val ? val : "", tail));
	free(tail);
}

void load_apply_entry(struct load_ctx *cx, const char *name, const char *value)
{
	const char *dot1 = strchr(name, '.'), *dot2 = strrchr(name, '.');
	char *section, *sub = NULL, *why = NULL, *loc = NULL;
	const struct key_def *k;
	bool known;
	int r = -1;

	if (dot1 == NULL)
		return; /* libgit2 never yields a name without a key */
	section = xstrndup(name, (size_t)(dot1 - name));
	if (dot2 > dot1)
		sub = xstrndup(dot1 + 1, (size_t)(dot2 - dot1 - 1));
	k = key_find(section, dot2 + 1, &known);
	if (k == NULL)
		why = xstrdup(known ? "unknown key" : "unknown section");
	else if ((why = sub_check(k, sub)) == NULL)
		r = k->set(cx, sub, value, k->arg, &why);
	if (r == 0)
		goto out;
	if (cx->foreign && r != IGNORED) {
		/* the entry may be another file's text: a token in a section
		 * name (~/.gitconfig's [url "https://u:TOKEN@host/"]) must not
		 * reach the deny reason the hook hands the agent; said once.
		 * (Warnings go to `policy check` and `show` only, never to it.) */
		if (cx->foreign_said != cx->origin)
			load_error_add(cx->le, "%s: entries that are not valid policy entries, not "
			               "shown, since this project file reads %s, outside the "
			               "project (include such a file from ~/.config/airlock/policy "
			               "instead)", cx->path, cx->foreign);
		cx->foreign_said = cx->origin;
		goto out;
	}
	/* only now: finding the line reads the file again */
	loc = where(cx, section, sub, k ? k->key : dot2 + 1, value);
	if (r == IGNORED)
		ignored_add(cx, loc, value);
	else
		load_error_add(cx->le, "%s: %s", loc, why ? why : "bad value");
out:
	free(why);
	free(loc);
	free(section);
	free(sub);
}

static void no_profile(struct policy *p, enum tier t, const char *name, int origin,
                       struct load_errors *le)
{
	load_error_add(le, "%s: [tier \"%s\"] profile: no profile \"%s\" (built-in: readonly, "
	               "workspace, approved, none; or define [profile \"%s\"])", p->origins[origin],
	               tier_name(t), name, name);
}

/* Walks the untrusted files' choices in order (the final one last): each
 * stands only when no looser than the last one that stood. */
static void finish_tier(struct policy *p, enum tier t, struct load_errors *le)
{
	struct tier_conf *tc = &p->tiers[t];
	size_t kept = 0, n = tc->nsteps;

	if (policy_profile_entry(p, tc->profile, false) == NULL) {
		no_profile(p, t, tc->profile, tc->o_profile, le);
		goto out;
	}
	if (n == 0)
		return;
	tc->steps[n] = tc->profile; /* set_tier_profile left room */
	tc->o_steps[n] = tc->o_profile;
	for (size_t k = 1; k <= n; k++) {
		struct profile_entry *now = policy_profile_entry(p, tc->steps[k], false),
		                     *prev = policy_profile_entry(p, tc->steps[kept], false);
		if (now == NULL) {
			no_profile(p, t, tc->steps[k], tc->o_steps[k], le);
		} else if (prev && !profile_no_looser(now->prof, prev->prof)) {
			strv_push_owned(&p->warnings,
			                xasprintf("%s: [tier \"%s\"] profile = %s ignored: looser than "
			                          "%s, and a project file can only make the policy "
			                          "stricter", p->origins[tc->o_steps[k]], tier_name(t),
			                          tc->steps[k], tc->steps[kept]));
		} else {
			kept = k;
		}
	}
	tc->profile = tc->steps[kept];
	tc->o_profile = tc->o_steps[kept];
	tc->steps[kept] = NULL;
	tc->nsteps = n + 1; /* out: frees the rest, the final one included */
out:
	for (size_t k = 0; k < tc->nsteps; k++)
		free(tc->steps[k]);
	tc->nsteps = 0;
}

static bool profile_used(const struct policy *p, const char *name)
{
	for (int t = 0; t < TIER_COUNT; t++)
		if (strcmp(p->tiers[t].profile, name) == 0)
			return true;
	return false;
}

/* A profile no tier uses whose name differs from another's only in case
 * was almost surely meant as that one: [profile "Approved"] secrets = hide
 * changed nothing, silently (names in quotes are case-sensitive). */
static void profile_case_warn(struct policy *p)
{
	for (size_t i = 0; i < p->nprofiles; i++) {
		const struct profile_entry *e = &p->profiles[i];
		int o = 0;
		if (profile_used(p, e->prof->name))
			continue;
		for (int k = 0; k < PKEY_COUNT && o == 0; k++)
			o = e->o[k];
		if (o == 0)
			continue; /* a built-in no file touched: the other one is meant */
		for (size_t k = 0; k < p->nprofiles; k++) {
			const char *other = p->profiles[k].prof->name;
			if (k == i || strcasecmp(e->prof->name, other) != 0)
				continue;
			strv_push_owned(&p->warnings,
			                xasprintf("%s: [profile \"%s\"] changes nothing: no tier uses "
			                          "it, and profile names are case-sensitive (did you "
			                          "mean [profile \"%s\"]?)", p->origins[o],
			                          e->prof->name, other));
			break;
		}
	}
}

void load_finish(struct policy *p, struct load_errors *le)
{
	for (int t = 0; t < TIER_COUNT; t++)
		finish_tier(p, (enum tier)t, le);
	profile_case_warn(p);
	for (size_t i = 0; i < p->ncreds; i++) {
		size_t n = 0;
		for (int k = 0; k < PK_COUNT; k++)
			n += p->creds[i].rs.n[k];
		if (n == 0)
			load_error_add(le, "%s: [credential \"%s\"]: no `for` pattern, so no call "
			               "would ever see it", p->origins[p->creds[i].origin],
			               p->creds[i].name);
	}
}
