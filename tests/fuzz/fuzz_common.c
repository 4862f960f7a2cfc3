/*
 * fuzz_common.c: the helpers of fuzz.h. Linked into every harness.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "gate/agent.h"
#include "tests/fuzz/fuzz.h"

void fuzz_fail(const char *what, const char *input, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n=== invariant broken: %s\n=== input: [%s]\n=== ", what,
	        input ? input : "(none)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	return xstrndup((const char *)data, nul ? (size_t)(nul - data) : size);
}

static bool argv_same(char *const *a, char *const *b)
{
	size_t i;
	for (i = 0; a && b && a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return (a == NULL || a[i] == NULL) && (b == NULL || b[i] == NULL);
}

static bool findings_same(const struct verdict *a, const struct verdict *b, const char **why)
{
	if (a->nfindings != b->nfindings) {
		*why = "finding count";
		return false;
	}
	for (size_t i = 0; i < a->nfindings; i++) {
		const struct finding *x = &a->findings[i], *y = &b->findings[i];
		if (strcmp(x->rule, y->rule) != 0 || x->tier != y->tier ||
		    x->span.off != y->span.off || x->span.len != y->span.len ||
		    strcmp(x->reason ? x->reason : "", y->reason ? y->reason : "") != 0) {
			*why = "a finding (rule, tier, span or reason)";
			return false;
		}
	}
	return true;
}

bool fuzz_verdict_same(const struct verdict *a, const struct verdict *b, const char **why)
{
	if (a->tier != b->tier) {
		*why = "tier";
		return false;
	}
	if (!findings_same(a, b, why))
		return false;
	if (a->ncommands != b->ncommands) {
		*why = "command count";
		return false;
	}
	for (size_t i = 0; i < a->ncommands; i++)
		if (!argv_same(a->commands[i].argv, b->commands[i].argv) ||
		    a->commands[i].span.off != b->commands[i].span.off ||
		    a->commands[i].span.len != b->commands[i].span.len) {
			*why = "a command (argv or span)";
			return false;
		}
	if (!argv_same(a->statements, b->statements) || !argv_same(a->reads, b->reads) ||
	    !argv_same(a->writes, b->writes) || !argv_same(a->hosts, b->hosts)) {
		*why = "statements, reads, writes or hosts";
		return false;
	}
	return true;
}

char *fuzz_squote(const char *s)
{
	return agent_shell_quote(s); /* the quoting the hook and protocol use */
}

char *fuzz_join_argv(char *const *argv)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; argv && argv[i]; i++) {
		char *q = fuzz_squote(argv[i]);
		if (i)
			buf_puts(&b, " ");
		buf_puts(&b, q);
		free(q);
	}
	return buf_take(&b, NULL);
}
