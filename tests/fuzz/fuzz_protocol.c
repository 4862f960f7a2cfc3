/*
 * fuzz_protocol.c: the protocol decoder (gate/protocol.c) on arbitrary lines.
 * Invariants: decoding is deterministic; an error always carries a message;
 * a decoded call re-encoded in the canonical shape decodes to the same tool
 * and subject; every result and error line is valid JSON in valid UTF-8.
 */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "gate/protocol.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* The line as JSON text must parse back and be valid UTF-8. */
static void check_line(json_t *obj, const char *input, const char *what)
{
	char *s = json_dumps(obj, JSON_COMPACT);
	json_t *back;

	if (s == NULL)
		fuzz_fail(what, input, "json_dumps failed");
	if (!utf8_valid(s, strlen(s)) || strchr(s, '\n'))
		fuzz_fail(what, input, "not one line of valid UTF-8: %s", s);
	back = json_loads(s, JSON_REJECT_DUPLICATES, NULL);
	if (back == NULL)
		fuzz_fail(what, input, "does not parse back: %s", s);
	json_decref(back);
	free(s);
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* Re-encodes c canonically and checks it decodes to the same call. */
static void check_roundtrip(const struct call *c, const char *input)
{
	json_t *canon = json_pack("{s:O,s:s,s:O}", "id", c->id, "tool", c->name, "input", c->input);
	struct call *c2 = NULL;
	json_t *id2 = NULL;
	char *err = NULL;

	if (protocol_decode_json(canon, 1, &c2, &id2, &err) < 0)
		fuzz_fail("canonical round trip", input, "re-decoding failed: %s", err);
	if (c2->tool != c->tool || strcmp(str_or_empty(call_subject(c)),
	                                  str_or_empty(call_subject(c2))) != 0)
		fuzz_fail("canonical round trip", input, "tool %s/%s or subject differ",
		          tool_name(c->tool), tool_name(c2->tool));
	call_free(c2);
	json_decref(canon);
}

static void check_call(const struct call *c, const char *input)
{
	struct verdict *v = verdict_new();
	struct outcome *o = outcome_new();
	json_t *res = protocol_result(c, v, o);

	check_line(res, input, "result line");
	json_decref(res);
	verdict_free(v);
	outcome_free(o);
	check_roundtrip(c, input);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct call *c1 = NULL, *c2 = NULL;
	json_t *id1 = NULL, *id2 = NULL;
	char *e1 = NULL, *e2 = NULL, *input = fuzz_cstr(data, size);
	int r1 = protocol_decode((const char *)data, size, 7, &c1, &id1, &e1);
	int r2 = protocol_decode((const char *)data, size, 7, &c2, &id2, &e2);

	if (r1 != r2)
		fuzz_fail("deterministic decode", input, "%d then %d", r1, r2);
	if (r1 < 0) {
		json_t *res;
		if (e1 == NULL || *e1 == '\0' || c1 != NULL)
			fuzz_fail("error carries a message", input, "errstr %p call %p", (void *)e1,
			          (void *)c1);
		if (strcmp(e1, e2) != 0 || !json_equal(id1 ? id1 : json_null(), id2 ? id2 : json_null()))
			fuzz_fail("deterministic error", input, "[%s] vs [%s]", e1, e2);
		res = protocol_error(id1, 7, e1);
		check_line(res, input, "error line");
		json_decref(res);
	} else {
		if (c1 == NULL || e1 != NULL || id1 != NULL)
			fuzz_fail("success is clean", input, "call %p errstr %p", (void *)c1, (void *)e1);
		if (c1->tool != c2->tool || c1->shape != c2->shape ||
		    !json_equal(c1->input, c2->input) || strcmp(c1->name, c2->name) != 0)
			fuzz_fail("deterministic decode", input, "two decodes differ");
		check_call(c1, input);
	}
	call_free(c1);
	call_free(c2);
	json_decref(id1);
	json_decref(id2);
	free(e1);
	free(e2);
	free(input);
	return 0;
}
