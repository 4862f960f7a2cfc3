/*
 * classifier.c: STAND-IN (foundation issue) until the real classifier lands.
 * Splits on whitespace and knows a small table of programs; already fails
 * closed: unknown programs medium, unknown tools high, rm -rf / critical.
 */
#include <string.h>

#include "classifier/classifier.h"
#include "core/util.h"

struct prog {
	const char *name;
	enum tier tier;
	const char *rule;
	const char *reason;
};

static const struct prog progs[] = {
	{"ls", TIER_LOW, NULL, NULL},
	{"cat", TIER_LOW, NULL, NULL},
	{"echo", TIER_LOW, NULL, NULL},
	{"grep", TIER_LOW, NULL, NULL},
	{"pwd", TIER_LOW, NULL, NULL},
	{"true", TIER_LOW, NULL, NULL},
	{"make", TIER_MEDIUM, "exec.build", "runs a build"},
	{"rm", TIER_HIGH, "fs.delete", "deletes files"},
	{"curl", TIER_HIGH, "net.fetch", "reaches the network"},
	{"pip", TIER_HIGH, "pkg.install", "installs packages"},
};

void classify_opts_init(struct classify_opts *opts, const char *workdir, const char *home)
{
	opts->workdir = workdir;
	opts->home = home;
	opts->unknown_program = TIER_MEDIUM;
	opts->unknown_tool = TIER_HIGH;
}

struct verdict *classify_shell(const char *cmd, const struct classify_opts *opts)
{
	struct verdict *v = verdict_new();
	char *copy = xstrdup(cmd), *save = NULL, *w;
	char **argv = NULL;
	struct span all = {0, strlen(cmd)};

	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		strv_push(&argv, w);
	if (argv == NULL) {
		free(copy);
		return v;
	}
	if (strpbrk(cmd, ";&|`$()<>\"'\\"))
		verdict_add(v, TIER_HIGH, "parse.uncertain", all,
		            "stand-in classifier cannot read shell syntax");
	else if (strcmp(argv[0], "rm") == 0 && strv_contains(argv, "-rf") &&
	         strv_contains(argv, "/"))
		verdict_add(v, TIER_CRITICAL, "fs.delete.root", all, "deletes the whole filesystem");
	else {
		const struct prog *p = NULL;
		for (size_t i = 0; i < nitems(progs); i++)
			if (strcmp(progs[i].name, argv[0]) == 0)
				p = &progs[i];
		if (p == NULL)
			verdict_add(v, opts->unknown_program, "exec.unknown_program", all,
			            "unknown program %s", argv[0]);
		else if (p->rule)
			verdict_add(v, p->tier, p->rule, all, "%s", p->reason);
	}
	verdict_add_command(v, argv, all);
	free(copy);
	return v;
}

struct verdict *classify_sql(const char *sql, const struct classify_opts *opts)
{
	struct verdict *v = verdict_new();
	struct span all = {0, strlen(sql)};
	(void)opts;
	if (strcasestr(sql, "drop") || strcasestr(sql, "delete"))
		verdict_add(v, TIER_HIGH, "sql.destructive", all, "destroys rows or tables");
	else if (!strcasestr(sql, "select"))
		verdict_add(v, TIER_MEDIUM, "sql.write", all, "changes the database");
	return v;
}

struct verdict *classify_call(const struct call *c, const struct classify_opts *opts)
{
	struct verdict *v;
	struct span all = {0, 0};

	switch (c->tool) {
	case TOOL_SHELL:
		return classify_shell(c->command, opts);
	case TOOL_SQL:
		return classify_sql(c->query, opts);
	case TOOL_READ_FILE:
		return verdict_new();
	case TOOL_WRITE_FILE:
	case TOOL_EDIT_FILE:
		v = verdict_new();
		verdict_add(v, TIER_MEDIUM, "fs.write", all, "writes a file");
		return v;
	case TOOL_HTTP:
		v = verdict_new();
		verdict_add(v, TIER_HIGH, "net.fetch", all, "reaches the network");
		return v;
	case TOOL_OTHER:
		break;
	}
	v = verdict_new();
	verdict_add(v, opts->unknown_tool, "tool.unknown", all, "unknown tool %s", c->name);
	return v;
}
