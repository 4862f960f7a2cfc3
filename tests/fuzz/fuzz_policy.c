/*
 * fuzz_policy.c: policy files (libgit2 config text through policy_load) and
 * rule patterns on arbitrary input. Invariants: a load either fails with a
 * message or succeeds; what `policy show` prints for a loaded policy loads
 * back to the same text; every line that parses as a pattern parses the
 * same way twice, and the pattern remembered for an argv matches that argv;
 * each line as a SQL statement is decided without a fault, and one that
 * starts with DELETE meets deny = Sql(DELETE *) however its SQL nests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "policy/policy.h"
#include "policy/policy_internal.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_POLICY_MAX 4096

static char path[64], shown[64], state[64];
static struct policy *sql_policy; /* deny = Sql(DELETE *), loaded once */

/* What a load keeps (policy/load.c) goes to a state directory of the
 * run's own, not the user's; the loads below take it back. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/airlock-fuzz-policy-%d", (int)getpid());
	snprintf(shown, sizeof(shown), "/tmp/airlock-fuzz-shown-%d", (int)getpid());
	snprintf(state, sizeof(state), "/tmp/airlock-fuzz-state-%d", (int)getpid());
	if (mkdir(state, 0700) < 0 && errno != EEXIST)
		return 1;
	return setenv("XDG_STATE_HOME", state, 1) == 0 ? 0 : 1;
}

static struct policy *load(const char *file, char **err);
static void put(const char *file, const char *text);

/* The line as one SQL statement: decided without a fault, and a DELETE is
 * denied. */
static void line_sql(const char *line)
{
	struct call *c = call_new();
	struct verdict *v = verdict_new();
	struct plan pl;
	char *norm = pattern_sql_normalize(line), *err = NULL;

	if (sql_policy == NULL) {
		put(path, "[rules]\n\tdeny = Sql(DELETE *)\n\task = Sql(*DROP*)\n\tallow = Sql\n");
		if ((sql_policy = load(path, &err)) == NULL)
			fuzz_fail("the SQL policy loads", line, "%s", err);
	}
	c->tool = TOOL_SQL;
	v->tier = TIER_MEDIUM;
	strv_push(&v->statements, line);
	policy_decide(sql_policy, c, v, 0, &pl);
	if (strncasecmp(norm, "DELETE ", 7) == 0 && pl.action != ACTION_DENY)
		fuzz_fail("a DELETE meets deny = Sql(DELETE *)", line, "%s", pl.reason);
	plan_clear(&pl);
	free(norm);
	verdict_free(v);
	call_free(c);
}

static void put(const char *file, const char *text)
{
	FILE *f = fopen(file, "w");
	if (f == NULL)
		fuzz_fail("temp file", text, "cannot write %s", file);
	fputs(text, f);
	fclose(f);
	chmod(file, 0600);
}

static struct policy *load(const char *file, char **err)
{
	struct policy_source src = {.workdir = "/srv/work", .home = "/home/agent"};
	struct policy *p = NULL;

	src.file = file;
	*err = NULL;
	src.workdir = NULL; /* only the --policy layer */
	src.home = NULL;
	return policy_load(&src, &p, err) < 0 ? NULL : p;
}

static void file_roundtrip(const char *text)
{
	struct policy *p, *q;
	char *err, *a, *b;

	put(path, text);
	if ((p = load(path, &err)) == NULL) {
		if (err == NULL || *err == '\0')
			fuzz_fail("a failed load says why", text, "empty message");
		free(err);
		return;
	}
	a = policy_render(p, false);
	/* loaded again, from what the first load kept: the same policy */
	if ((q = load(path, &err)) == NULL)
		fuzz_fail("a second load, from the kept reading, loads", text, "%s", err);
	b = policy_render(q, false);
	if (strcmp(a, b) != 0)
		fuzz_fail("a second load, from the kept reading, is the same", text,
		          "--- first:\n%s--- second:\n%s", a, b);
	free(b);
	policy_free(q);
	put(shown, a);
	if ((q = load(shown, &err)) == NULL)
		fuzz_fail("show output loads back", text, "%s\n--- shown:\n%s", err, a);
	b = policy_render(q, false);
	if (strcmp(a, b) != 0)
		fuzz_fail("show output loads back the same", text, "--- first:\n%s--- second:\n%s",
		          a, b);
	free(a);
	free(b);
	policy_free(p);
	policy_free(q);
}

/* A Shell pattern with a `*` inside a word, as a deny rule: the command its
 * span spells with every `*` taken as nothing is denied (when the span
 * holds no other glob character, and its words split back the same). */
static void line_span(struct pattern *x, const char *line)
{
	struct ruleset rs = {0};
	struct rule_result rr;
	struct verdict *v;
	struct call *c;
	char **argv = NULL, *text, *save = NULL;
	size_t n = 0;

	if (x->kind != PK_SHELL || x->span == NULL || strpbrk(x->span, "?[\\") ||
	    strstr(x->span, "  "))
		return;
	text = xstrdup(x->span);
	for (char *r = text; *r; r++)
		if (*r != '*')
			text[n++] = *r;
	text[n] = '\0';
	if (n == 0 || text[0] == ' ' || text[n - 1] == ' ' || strstr(text, "  ")) {
		free(text);
		return;
	}
	for (char *w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save))
		strv_push(&argv, w);
	v = verdict_new();
	c = call_new();
	c->tool = TOOL_SHELL;
	v->tier = TIER_HIGH;
	verdict_add_command(v, argv, (struct span){0, 0});
	if (ruleset_add(&rs, RA_DENY, x, 0) == 0) {
		memset(x, 0, sizeof(*x)); /* the ruleset owns it now */
		ruleset_decide(&rs, c, v, &rr);
		if (rr.deny == NULL)
			fuzz_fail("a span's own text, stars taken as nothing, is denied", line, "%s",
			          rs.v[PK_SHELL][0].pat.span);
	}
	ruleset_clear(&rs);
	free(text);
	verdict_free(v);
	call_free(c);
}

/* Each line as a pattern, and as an argv whose remembered pattern must match. */
static void line_patterns(struct policy *p, const char *line)
{
	struct pattern x, y;
	char *e1 = NULL, *e2 = NULL, *err = NULL, *sug, **argv = NULL, *copy, *save = NULL;
	int r1 = pattern_parse(line, "/srv/work", "/home/agent", &x, &e1);
	int r2 = pattern_parse(line, "/srv/work", "/home/agent", &y, &e2);
	struct verdict *v = verdict_new();
	struct call *c = call_new();

	if (r1 != r2)
		fuzz_fail("deterministic pattern parse", line, "%d then %d", r1, r2);
	if (r1 == 0) {
		line_span(&x, line);
		pattern_clear(&x);
		pattern_clear(&y);
	}
	copy = xstrdup(line);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		strv_push(&argv, w);
	if (argv) {
		c->tool = TOOL_SHELL;
		v->tier = TIER_HIGH;
		verdict_add_command(v, argv, (struct span){0, 0});
		sug = policy_suggest_pattern(p, c, v, &err);
		/* by its prefix: the message quotes the call, whose words may say
		 * "a bug" themselves (a 66-word call refused as too long did) */
		if (sug == NULL && strncmp(err, "the suggested pattern does not match", 36) == 0)
			fuzz_fail("remembered pattern matches its call", line, "%s", err);
		free(sug);
	}
	free(err);
	free(copy);
	free(e1);
	free(e2);
	verdict_free(v);
	call_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_source src = {.defaults_only = true};
	struct policy *p;
	char *text, *copy, *save = NULL, *err = NULL;

	if (size > FUZZ_POLICY_MAX)
		return 0;
	text = fuzz_cstr(data, size);
	file_roundtrip(text);
	if (policy_load(&src, &p, &err) < 0)
		fuzz_fail("defaults load", text, "%s", err);
	copy = xstrdup(text);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		line_patterns(p, l);
		line_sql(l);
	}
	policy_free(p);
	free(copy);
	free(text);
	return 0;
}
