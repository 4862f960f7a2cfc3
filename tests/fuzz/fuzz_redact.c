/*
 * fuzz_redact.c: the audit log's redactor (db_redact) on arbitrary text.
 * Invariants: the output holds no secret shape that classify_find_secret
 * knows, never the granted value, and redacting again changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "db/db.h"
#include "tests/fuzz/fuzz.h"

#define GRANTED "granted-Value-0123"

static struct db *db;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[] = "/tmp/airlock-fuzz-redact.XXXXXX", *err = NULL, *file;

	(void)argc;
	(void)argv;
	if (mkdtemp(path) == NULL)
		abort();
	file = xasprintf("%s/audit.db", path);
	if (db_open(file, &db, &err) < 0) {
		fprintf(stderr, "fuzz_redact: %s\n", err);
		abort();
	}
	db_set_redact(db, true);
	db_add_secret_value(db, GRANTED);
	free(file);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), *r, *r2;
	struct span where = {0, 0};
	const char *kind;

	r = db_redact(db, s);
	if ((kind = classify_find_secret(r, strlen(r), &where)) != NULL)
		fuzz_fail("redaction leaves no secret shape", s, "%s left at %zu+%zu in [%s]", kind,
		          where.off, where.len, r);
	if (strstr(r, GRANTED))
		fuzz_fail("redaction removes granted values", s, "still in [%s]", r);
	r2 = db_redact(db, r);
	if (strcmp(r, r2) != 0)
		fuzz_fail("redaction is idempotent", s, "[%s] then [%s]", r, r2);
	free(r2);
	free(r);
	free(s);
	return 0;
}
