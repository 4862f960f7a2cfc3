/*
 * fuzz_shell.c: the shell parser and classifier (classify_shell) on
 * arbitrary command strings. Invariants: classification is deterministic;
 * wrapping a command never lowers its tier: bash -c '...', true && ...,
 * echo $( ... ), and for each simple command found, sudo and env X=1 in
 * front of its quoted argv.
 */
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_SHELL_MAX 4096 /* longer inputs add time, not coverage */

static struct classify_opts opts;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	classify_opts_init(&opts, "/srv/work", "/home/agent");
	return 0;
}

/* Checks that classifying `wrapped` is at least `base`'s tier. */
static void check_not_lower(const char *input, const char *how, char *wrapped, enum tier base)
{
	struct verdict *w = classify_shell(wrapped, &opts);

	if (w->tier < base)
		fuzz_fail("wrapping never lowers the tier", input, "%s: [%s] is %s, unwrapped %s",
		          how, wrapped, tier_name(w->tier), tier_name(base));
	verdict_free(w);
	free(wrapped);
}

/* sudo and env only wrap simple commands: wrap each one the parser found. */
static void check_simple_wrappers(const struct verdict *v, const char *input)
{
	static const char *const prefix[] = {"sudo ", "env X=1 "};

	for (size_t i = 0; i < v->ncommands && i < 4; i++) {
		char *const *argv = v->commands[i].argv;
		char *q = fuzz_join_argv(argv);
		struct verdict *b;
		/* sudo and env read a first word with '=' as a variable, '-' as an option */
		if (*q == '\0' || argv == NULL || strchr(argv[0], '=') || argv[0][0] == '-') {
			free(q);
			continue;
		}
		b = classify_shell(q, &opts);
		for (size_t k = 0; k < nitems(prefix); k++)
			check_not_lower(input, prefix[k], xasprintf("%s%s", prefix[k], q), b->tier);
		verdict_free(b);
		free(q);
	}
}

static bool parse_failed(const struct verdict *v)
{
	for (size_t i = 0; i < v->nfindings; i++)
		if (strncmp(v->findings[i].rule, "parse.", 6) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cmd, *q;
	struct verdict *v1, *v2;
	const char *why = NULL;

	if (size > FUZZ_SHELL_MAX)
		return 0;
	cmd = fuzz_cstr(data, size);
	v1 = classify_shell(cmd, &opts);
	v2 = classify_shell(cmd, &opts);
	if (!fuzz_verdict_same(v1, v2, &why))
		fuzz_fail("deterministic classification", cmd, "two runs differ in %s", why);
	q = fuzz_squote(cmd);
	if (cmd[0] != '-' && cmd[0] != '+') { /* else bash reads it as options */
		check_not_lower(cmd, "bash -c", xasprintf("bash -c %s", q), v1->tier);
		check_not_lower(cmd, "sh -c", xasprintf("sh -c %s", q), v1->tier);
	}
	free(q);
	/* Text that does not parse is no command to wrap: pasted into other
	 * syntax it can become one ( ")$(x" ). bash -c quotes it exactly. */
	if (!parse_failed(v1)) {
		check_not_lower(cmd, "true &&", xasprintf("true && %s", cmd), v1->tier);
		/* a trailing backslash would join the closing line: not a wrapper then */
		if (*cmd == '\0' || cmd[strlen(cmd) - 1] != '\\')
			check_not_lower(cmd, "$( )", xasprintf("echo $(%s\n)", cmd), v1->tier);
	}
	check_simple_wrappers(v1, cmd);
	verdict_free(v1);
	verdict_free(v2);
	free(cmd);
	return 0;
}
