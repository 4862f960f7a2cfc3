/*
 * airlock.c: constructors, destructors and names for the shared structs.
 * Names come from tables indexed by the enum, so a new value is a new row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/airlock.h"
#include "core/util.h"

static const char *const tier_names[] = {"low", "medium", "high", "critical"};
static const char *const tool_names[] = {"shell", "sql", "read_file", "write_file",
                                         "edit_file", "http", "other"};
static const char *const action_names[] = {"auto", "ask", "deny"};
static const char *const decision_names[] = {"auto", "approved", "denied", "error"};
static const char *const shape_names[] = {"canonical", "anthropic", "responses",
                                          "chat", "hook", "mcp"};

static int name_lookup(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *tier_name(enum tier t)
{
	return (unsigned)t < nitems(tier_names) ? tier_names[t] : "critical";
}

int tier_from_name(const char *s, enum tier *out)
{
	int i = name_lookup(tier_names, nitems(tier_names), s);
	if (i < 0)
		return -1;
	*out = (enum tier)i;
	return 0;
}

const char *tool_name(enum tool t)
{
	return (unsigned)t < nitems(tool_names) ? tool_names[t] : "other";
}

const char *action_name(enum action a)
{
	return (unsigned)a < nitems(action_names) ? action_names[a] : "deny";
}

int action_from_name(const char *s, enum action *out)
{
	int i = name_lookup(action_names, nitems(action_names), s);
	if (i < 0)
		return -1;
	*out = (enum action)i;
	return 0;
}

const char *decision_name(enum decision d)
{
	return (unsigned)d < nitems(decision_names) ? decision_names[d] : "error";
}

const char *shape_name(enum shape s)
{
	return (unsigned)s < nitems(shape_names) ? shape_names[s] : "canonical";
}

struct call *call_new(void)
{
	struct call *c = xcalloc(1, sizeof(*c));
	return c;
}

void call_free(struct call *c)
{
	if (c == NULL)
		return;
	json_decref(c->id);
	json_decref(c->input);
	free(c->name);
	free(c->cwd);
	free(c);
}

const char *call_subject(const struct call *c)
{
	switch (c->tool) {
	case TOOL_SHELL:
		return c->command ? c->command : "";
	case TOOL_SQL:
		return c->query ? c->query : "";
	case TOOL_READ_FILE:
	case TOOL_WRITE_FILE:
	case TOOL_EDIT_FILE:
		return c->path ? c->path : "";
	case TOOL_HTTP:
		return c->url ? c->url : "";
	case TOOL_OTHER:
		break;
	}
	return c->name ? c->name : "";
}

const char *tool_subject_key(const char *tool)
{
	/* in enum tool's order, as tool_names */
	static const char *const keys[] = {"command", "query", "path", "path", "path", "url"};

	for (size_t i = 0; tool && i < nitems(keys) && i < nitems(tool_names); i++)
		if (strcmp(tool, tool_names[i]) == 0)
			return keys[i];
	return NULL;
}

struct verdict *verdict_new(void)
{
	return xcalloc(1, sizeof(struct verdict));
}

void verdict_free(struct verdict *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->nfindings; i++)
		free(v->findings[i].reason);
	for (size_t i = 0; i < v->ncommands; i++)
		strv_free(v->commands[i].argv);
	free(v->findings);
	free(v->commands);
	strv_free(v->statements);
	strv_free(v->reads);
	strv_free(v->writes);
	strv_free(v->hosts);
	free(v);
}

void verdict_addv(struct verdict *v, enum tier t, const char *rule, struct span sp,
                  const char *fmt, va_list ap)
{
	struct finding *f;

	v->findings = xreallocarray(v->findings, v->nfindings + 1, sizeof(*v->findings));
	f = &v->findings[v->nfindings++];
	f->rule = rule;
	f->tier = t;
	f->span = sp;
	f->reason = xvasprintf(fmt, ap);
	if (t > v->tier)
		v->tier = t;
}

void verdict_add(struct verdict *v, enum tier t, const char *rule, struct span sp,
                 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict_addv(v, t, rule, sp, fmt, ap);
	va_end(ap);
}

void verdict_add_command(struct verdict *v, char **argv, struct span sp)
{
	v->commands = xreallocarray(v->commands, v->ncommands + 1, sizeof(*v->commands));
	v->commands[v->ncommands].argv = argv;
	v->commands[v->ncommands].span = sp;
	v->ncommands++;
}

void verdict_add_path(char ***vec, const char *s)
{
	if (!strv_contains(*vec, s))
		strv_push(vec, s);
}

bool verdict_has(const struct verdict *v, const char *rule)
{
	for (size_t i = 0; i < v->nfindings; i++)
		if (strcmp(v->findings[i].rule, rule) == 0)
			return true;
	return false;
}

struct profile *profile_dup(const struct profile *p)
{
	struct profile *d = xmalloc(sizeof(*d));
	*d = *p;
	d->name = xstrdup(p->name);
	d->read_only = strv_dup(p->read_only);
	d->read_write = strv_dup(p->read_write);
	d->home = strv_dup(p->home);
	d->env = strv_dup(p->env);
	d->secrets_skip = strv_dup(p->secrets_skip);
	d->hide = strv_dup(p->hide);
	d->keep = strv_dup(p->keep);
	d->hide_globs = strv_dup(p->hide_globs);
	d->keep_globs = strv_dup(p->keep_globs);
	return d;
}

void profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	free(p->name);
	strv_free(p->read_only);
	strv_free(p->read_write);
	strv_free(p->home);
	strv_free(p->env);
	strv_free(p->secrets_skip);
	strv_free(p->hide);
	strv_free(p->keep);
	strv_free(p->hide_globs);
	strv_free(p->keep_globs);
	free(p);
}

struct outcome *outcome_new(void)
{
	struct outcome *o = xcalloc(1, sizeof(*o));
	o->decision = DECISION_ERROR;
	o->exit_code = -1;
	return o;
}

void outcome_free(struct outcome *o)
{
	if (o == NULL)
		return;
	free(o->reason);
	free(o->out);
	free(o->err);
	free(o->preview);
	free(o);
}

/* The old reason is freed after the new one is made: callers extend it
 * ("%s; more", o->reason). */
void outcome_set_reason(struct outcome *o, const char *fmt, ...)
{
	char *old = o->reason;
	va_list ap;

	va_start(ap, fmt);
	o->reason = xvasprintf(fmt, ap);
	va_end(ap);
	free(old);
}
