/*
 * fuzz_audit.c: the audit event encoder (db/record.c) with redaction on.
 * The input is a call line (or, when it does not decode, a shell command)
 * and also the call's output and reason. Each call is recorded received,
 * decided and finished, then read back. Invariants: the stored events are
 * valid UTF-8 JSON holding no secret shape and never the granted value;
 * the hash chain verifies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "db/db.h"
#include "gate/protocol.h"
#include "tests/fuzz/fuzz.h"

#define GRANTED "granted-Value-0123"
#define ROTATE 200 /* calls per database, so the chain check stays cheap */

static struct db *db;
static char dir[] = "/tmp/airlock-fuzz-audit.XXXXXX";
static struct classify_opts opts;
static unsigned ncalls;

static void db_fresh(void)
{
	char *err = NULL, *file = xasprintf("%s/audit.db", dir);
	long long n = 0;

	if (db && db_verify(db, &n, &err) != 0)
		fuzz_fail("the chain verifies", NULL, "%s", err);
	db_close(db);
	unlink(file);
	if (db_open(file, &db, &err) < 0 ||
	    db_session_begin(db, &(struct db_session_info){.cwd = "/srv/work", .mode = "gate"},
	                     &err) < 0) {
		fprintf(stderr, "fuzz_audit: %s\n", err);
		abort();
	}
	db_set_redact(db, true);
	db_add_secret_value(db, GRANTED);
	free(file);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL)
		abort();
	classify_opts_init(&opts, "/srv/work", "/home/agent");
	db_fresh();
	return 0;
}

static struct call *input_call(const uint8_t *data, size_t size)
{
	struct call *c = NULL;
	json_t *id = NULL;
	char *err = NULL, *cmd;

	if (protocol_decode((const char *)data, size, 1, &c, &id, &err) == 0)
		return c;
	json_decref(id);
	free(err);
	cmd = fuzz_cstr(data, size);
	c = call_new();
	c->id = json_string("fuzz");
	c->name = xstrdup("shell");
	c->tool = TOOL_SHELL;
	c->input = json_pack("{s:s%}", "command", cmd, strlen(cmd));
	if (c->input == NULL) /* not UTF-8: jansson refuses it */
		c->input = json_pack("{s:s}", "command", "true");
	c->command = json_string_value(json_object_get(c->input, "command"));
	free(cmd);
	return c;
}

/* Each stored string is redacted on its own, so each is checked on its own:
 * a BEGIN in one field and "PRIVATE KEY-----" in another are no key. */
static const char *secret_in(json_t *j)
{
	const char *kind = NULL, *key;
	json_t *v;
	size_t i;

	if (json_is_string(j))
		return classify_find_secret(json_string_value(j), json_string_length(j), NULL);
	if (json_is_object(j))
		json_object_foreach(j, key, v) {
			if ((kind = secret_in(v)) != NULL)
				return kind;
		}
	if (json_is_array(j))
		json_array_foreach(j, i, v) {
			if ((kind = secret_in(v)) != NULL)
				return kind;
		}
	return NULL;
}

static void check_stored(int64_t id, const char *input)
{
	json_t *detail = NULL;
	char *err = NULL, *text;
	const char *kind;

	if (db_call_detail(db, id, &detail, &err) != 0)
		fuzz_fail("a recorded call reads back", input, "%s", err);
	text = json_dumps(detail, JSON_COMPACT);
	if (text == NULL || !utf8_valid(text, strlen(text)))
		fuzz_fail("stored events are UTF-8 JSON", input, "dump failed or invalid");
	if ((kind = secret_in(detail)) != NULL)
		fuzz_fail("the log holds no secret shape", input, "%s in %s", kind, text);
	if (strstr(text, GRANTED))
		fuzz_fail("the log never holds a granted value", input, "%s", text);
	free(text);
	json_decref(detail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct call *c = input_call(data, size);
	struct verdict *v = classify_call(c, &opts);
	struct outcome *o = outcome_new();
	char *err = NULL, *input = fuzz_cstr(data, size);

	if (++ncalls % ROTATE == 0)
		db_fresh();
	if (db_call_received(db, c, v, &o->audit_id, &err) < 0)
		fuzz_fail("the log accepts any call", input, "%s", err);
	if (db_call_decided(db, o->audit_id,
	                    &(struct db_decision){ACTION_AUTO, DECISION_AUTO, "policy", input, 0,
	                                          input},
	                    &err) < 0)
		fuzz_fail("the log accepts any decision", input, "%s", err);
	o->decision = DECISION_AUTO;
	o->ran = true;
	o->exit_code = 0;
	o->out = xmalloc(size + 1);
	memcpy(o->out, data, size);
	o->outlen = size;
	o->reason = xstrdup(input);
	if (db_call_finished(db, o->audit_id, o, &err) < 0)
		fuzz_fail("the log accepts any outcome", input, "%s", err);
	check_stored(o->audit_id, input);
	outcome_free(o);
	verdict_free(v);
	call_free(c);
	free(input);
	return 0;
}
