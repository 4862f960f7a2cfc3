/*
 * fuzz_gitcreds.c: the cut of a repository config's credentials
 * (exec/gitcreds.c) on arbitrary text. Invariants: what a sandbox is shown
 * holds no secret shape classify_find_secret() knows, no URL with user
 * information but the mark, no extraheader or credential helper value. Not that cutting
 * again changes nothing: the audit redactor it calls stops after 4
 * rounds, and a mark that swallowed a shell separator (`-p(x` cut whole)
 * can let a fifth find one more option password; more, never less.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "exec/exec_internal.h"
#include "tests/fuzz/fuzz.h"

/* The first URL whose user information is not the mark, or NULL. */
static const char *userinfo_left(const char *s)
{
	for (const char *p = s; (p = strstr(p, "://")) != NULL; p += 3) {
		const char *q = p + 3;
		size_t n = strcspn(q, "/?# \t\r\n\v\f\"'");
		const char *at = memrchr(q, '@', n);
		if (at && at > q && !((size_t)(at - q) == 8 && memcmp(q, "REDACTED", 8) == 0))
			return p;
	}
	return NULL;
}

/* The first key (extraheader, helper) with a value but a mark, or NULL. */
static const char *header_left(const char *s, const char *key)
{
	for (const char *p = s; (p = strcasestr(p, key)) != NULL; p++) {
		const char *eq = p + strcspn(p, "=\n");
		if (*eq == '=' && strncmp(eq, "= [REDACTED:", 12) != 0)
			return p;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), *cut = gitcreds_cut(s, strlen(s));
	const char *shown = cut ? cut : s, *kind, *left;
	struct span where = {0, 0};

	if ((kind = classify_find_secret(shown, strlen(shown), &where)) != NULL)
		fuzz_fail("the cut leaves no secret shape", s, "%s left at %zu+%zu in [%s]", kind,
		          where.off, where.len, shown);
	if ((left = userinfo_left(shown)) != NULL)
		fuzz_fail("the cut leaves no URL user information", s, "at [%.40s]", left);
	if ((left = header_left(shown, "extraheader")) != NULL)
		fuzz_fail("the cut leaves no extraheader value", s, "at [%.40s]", left);
	if ((left = header_left(shown, "helper")) != NULL)
		fuzz_fail("the cut leaves no credential helper value", s, "at [%.40s]", left);
	free(cut);
	free(s);
	return 0;
}
