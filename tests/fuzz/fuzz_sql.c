/*
 * fuzz_sql.c: the SQL classifier (classify_sql) on arbitrary text.
 * Invariants: classification is deterministic; putting a harmless
 * statement in front (SELECT 1;) never lowers the tier.
 */
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_SQL_MAX 4096

static struct classify_opts opts;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	classify_opts_init(&opts, "/srv/work", "/home/agent");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sql, *wrapped;
	struct verdict *v1, *v2, *w;
	const char *why = NULL;

	if (size > FUZZ_SQL_MAX)
		return 0;
	sql = fuzz_cstr(data, size);
	v1 = classify_sql(sql, &opts);
	v2 = classify_sql(sql, &opts);
	if (!fuzz_verdict_same(v1, v2, &why))
		fuzz_fail("deterministic classification", sql, "two runs differ in %s", why);
	wrapped = xasprintf("SELECT 1;\n%s", sql);
	w = classify_sql(wrapped, &opts);
	/* no statement at all may rate "unreadable"; a SELECT in front makes it readable */
	if (v1->statements && v1->statements[0] && w->tier < v1->tier)
		fuzz_fail("a statement in front never lowers the tier", sql, "%s vs %s",
		          tier_name(w->tier), tier_name(v1->tier));
	verdict_free(w);
	free(wrapped);
	verdict_free(v1);
	verdict_free(v2);
	free(sql);
	return 0;
}
