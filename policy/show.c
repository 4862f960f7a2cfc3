/*
 * show.c: renders the effective policy as a policy file, optionally with
 * each value's origin as a trailing comment. The same text (without
 * origins) is what policy_digest() hashes, and what `policy show
 * --defaults` prints; it must read back as the same policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "policy/policy_internal.h"

struct out {
	struct buf b;
	const struct policy *p;
	bool origins;
};

/* A value as git-config syntax: quoted when it holds # ; " \ a line break,
 * a tab or edge spaces; the three control characters git can escape are
 * escaped (a raw line break would end the value, and the file would not
 * load back). */
static void put_value(struct buf *b, const char *v)
{
	static const char esc[] = "\n\t\b", as[] = "ntb";
	size_t n = strlen(v);

	if (strpbrk(v, "#;\"\\\n\t\b") == NULL && n > 0 && v[0] != ' ' && v[n - 1] != ' ') {
		buf_puts(b, v);
		return;
	}
	buf_append(b, "\"", 1);
	for (; *v; v++) {
		const char *e = strchr(esc, *v);
		if (*v == '"' || *v == '\\' || e)
			buf_append(b, "\\", 1);
		buf_append(b, e ? &as[e - esc] : v, 1);
	}
	buf_append(b, "\"", 1);
}

/* A section header; the name escaped as git-config reads it back (a quote
 * in a profile's name ended the header early, and show printed another
 * policy than the one loaded). */
static void put_header(struct buf *b, const char *section, const char *name)
{
	buf_printf(b, "[%s \"", section);
	for (; *name; name++) {
		if (*name == '"' || *name == '\\')
			buf_append(b, "\\", 1);
		buf_append(b, name, 1);
	}
	buf_puts(b, "\"]\n");
}

static void put(struct out *o, const char *key, const char *val, int origin)
{
	buf_printf(&o->b, "\t%s = ", key);
	put_value(&o->b, val);
	if (o->origins)
		buf_printf(&o->b, "\t# %s", o->p->origins[origin]);
	buf_append(&o->b, "\n", 1);
}

static void put_num(struct out *o, const char *key, long long v, bool size, int origin)
{
	char tmp[32];

	if (!size)
		snprintf(tmp, sizeof(tmp), "%lld", v);
	put(o, key, size ? policy_size_text(v, tmp) : tmp, origin);
}

static void put_list(struct out *o, const char *key, char *const *v, int origin)
{
	for (; v && *v; v++)
		put(o, key, *v, origin);
}

static void render_policy(struct out *o)
{
	const struct policy *p = o->p;

	buf_puts(&o->b, "[policy]\n");
	put(o, "trust-project", p->trust_project ? "true" : "false", p->o_trust);
	put(o, "unknown-program", tier_name(p->unknown_program), p->o_unknown_program);
	put(o, "unknown-tool", tier_name(p->unknown_tool), p->o_unknown_tool);
	for (int t = 0; t < TIER_COUNT; t++) {
		const struct tier_conf *tc = &p->tiers[t];
		buf_printf(&o->b, "[tier \"%s\"]\n", tier_name((enum tier)t));
		put(o, "action", action_name(tc->action), tc->o_action);
		put(o, "profile", tc->profile, tc->o_profile);
		put_num(o, "approval-timeout", tc->timeout, false, tc->o_timeout);
	}
}

static void render_profile(struct out *o, const struct profile_entry *e)
{
	const struct profile *pr = e->prof;
	char *env = NULL;
	struct buf eb;

	put_header(&o->b, "profile", pr->name);
	put(o, "network", pr->network ? "true" : "false", e->o[PKEY_NETWORK]);
	put(o, "workdir", pr->workdir_rw ? "rw" : "ro", e->o[PKEY_WORKDIR]);
	put(o, "secrets", pr->show_secrets ? "show" : "hide", e->o[PKEY_SECRETS]);
	put_list(o, "read-only", pr->read_only, e->o[PKEY_READ_ONLY]);
	put_list(o, "read-write", pr->read_write, e->o[PKEY_READ_WRITE]);
	put_list(o, "home", pr->home, e->o[PKEY_HOME]);
	put_list(o, "secrets-skip", pr->secrets_skip, e->o[PKEY_SECRETS_SKIP]);
	buf_init(&eb, 0);
	for (char **n = pr->env; n && *n; n++)
		buf_printf(&eb, "%s%s", n == pr->env ? "" : " ", *n);
	env = eb.data ? buf_take(&eb, NULL) : NULL;
	put(o, "env", env ? env : "", e->o[PKEY_ENV]);
	free(env);
	put_num(o, "memory", pr->memory, true, e->o[PKEY_MEMORY]);
	put_num(o, "cpu", pr->cpu, false, e->o[PKEY_CPU]);
	put_num(o, "timeout", pr->timeout, false, e->o[PKEY_TIMEOUT]);
	put_num(o, "processes", pr->processes, false, e->o[PKEY_PROCESSES]);
	put_num(o, "file-size", pr->file_size, true, e->o[PKEY_FILE_SIZE]);
	put_num(o, "output", pr->output, true, e->o[PKEY_OUTPUT]);
	put_num(o, "tmp-size", pr->tmp_size, true, e->o[PKEY_TMP_SIZE]);
}

static void render_rules(struct out *o, const struct ruleset *rs, bool credential)
{
	static const enum rule_act order[RA_COUNT] = {RA_DENY, RA_ASK, RA_ALLOW,
	                                              RA_ASK_CRITICAL, RA_ALLOW_CRITICAL};

	for (int a = 0; a < RA_COUNT; a++)
		for (int k = 0; k < PK_COUNT; k++)
			for (size_t i = 0; i < rs->n[k]; i++)
				if (rs->v[k][i].act == order[a])
					put(o, credential ? "for" : rule_act_name(order[a]), rs->v[k][i].pat.text,
					    rs->v[k][i].origin);
}

static void render_rest(struct out *o)
{
	const struct policy *p = o->p;
	const struct breaker_conf *b = &p->breaker;

	buf_puts(&o->b, "[rules]\n");
	render_rules(o, &p->rules, false);
	for (size_t i = 0; i < p->ncreds; i++) {
		put_header(&o->b, "credential", p->creds[i].name);
		render_rules(o, &p->creds[i].rs, true);
		if (p->creds[i].file)
			put(o, "file", p->creds[i].file, p->creds[i].origin);
	}
	buf_puts(&o->b, "[breaker]\n");
	put_num(o, "per-minute", b->per_minute, false, b->o_per_minute);
	put_num(o, "repeat", b->repeat, false, b->o_repeat);
	put_num(o, "session-seconds", b->session_seconds, false, b->o_session);
	put(o, "action", action_name(b->action), b->o_action);
}

char *policy_render(const struct policy *p, bool origins)
{
	struct out o = {.p = p, .origins = origins};

	buf_init(&o.b, 0);
	render_policy(&o);
	for (size_t i = 0; i < p->nprofiles; i++)
		render_profile(&o, &p->profiles[i]);
	render_rest(&o);
	return buf_take(&o.b, NULL);
}

/* The text goes to a terminal: a project file's control bytes (an ESC in a
 * profile's name or a rule: git-config keeps them as they are) are shown
 * as \xHH, as buf_append_shown() shows an agent's text. Such a text does
 * not read back (git-config has no escape for them); the digest hashes
 * policy_render()'s. */
int policy_show(const struct policy *p, FILE *f, bool origins)
{
	char *text = policy_render(p, origins);
	struct buf b;
	int rc;

	buf_init(&b, 0);
	buf_append_shown(&b, text, strlen(text), SHOWN_TAB | SHOWN_NEWLINE);
	buf_puts(&b, "");
	rc = fputs(b.data, f) < 0 ? -1 : 0;
	buf_free(&b);
	free(text);
	return rc;
}
