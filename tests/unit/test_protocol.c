/*
 * test_protocol.c: the decoder over tests/data/protocol/decode.tsv (one
 * case per line: input, ok|error, shape, tool, subject or error text, id),
 * plus the line reader's cap and the result encoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/util.h"
#include "gate/protocol.h"
#include "tdata.h"

static void check_row(const struct tdata_row *r)
{
	const char *in = r->f[0], *want = r->f[1];
	const char *shape = r->nf > 2 ? r->f[2] : "", *tool = r->nf > 3 ? r->f[3] : "";
	const char *text = r->nf > 4 ? r->f[4] : "", *idtext = r->nf > 5 ? r->f[5] : "null";
	struct call *c = NULL;
	json_t *id = NULL, *want_id = json_loads(idtext, JSON_DECODE_ANY, NULL);
	char *err = NULL;
	int rc = protocol_decode(in, strlen(in), r->line, &c, &id, &err);

	if (strcmp(want, "ok") == 0) {
		if (rc != 0)
			fail_msg("%s:%zu: want ok, got error: %s", r->file, r->line, err);
		assert_string_equal(shape_name(c->shape), shape);
		assert_string_equal(tool_name(c->tool), tool);
		if (strcmp(tool, "other") == 0)
			assert_string_equal(c->name, text);
		else
			assert_string_equal(call_subject(c), text);
		if (!json_equal(c->id, want_id))
			fail_msg("%s:%zu: id mismatch", r->file, r->line);
	} else {
		if (rc != -1)
			fail_msg("%s:%zu: want error, decoded a %s call", r->file, r->line,
			         tool_name(c->tool));
		assert_null(c);
		if (*text && strstr(err, text) == NULL)
			fail_msg("%s:%zu: error [%s] lacks [%s]", r->file, r->line, err, text);
		if (!(id == NULL && json_is_null(want_id)) && !json_equal(id, want_id))
			fail_msg("%s:%zu: error id mismatch", r->file, r->line);
	}
	call_free(c);
	json_decref(id);
	json_decref(want_id);
	free(err);
}

static void test_decode_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/protocol/decode.tsv", &rows);
	(void)state;
	assert_true(n >= 40);
	for (size_t i = 0; i < n; i++)
		check_row(&rows[i]);
	tdata_free(rows, n);
}

static void test_nul_byte(void **state)
{
	const char line[] = "{\"id\":\"n\",\"tool\":\"shell\",\"input\":{\"command\":\"ls\"}}\0x";
	struct call *c;
	json_t *id;
	char *err = NULL;
	(void)state;
	assert_int_equal(protocol_decode(line, sizeof(line) - 1, 1, &c, &id, &err), -1);
	assert_non_null(strstr(err, "NUL"));
	free(err);
}

static void test_deep_nesting(void **state)
{
	size_t depth = 100000;
	char *s = xmalloc(2 * depth + 1);
	struct call *c;
	json_t *id;
	char *err = NULL;
	(void)state;
	memset(s, '[', depth);
	memset(s + depth, ']', depth);
	s[2 * depth] = '\0';
	assert_int_equal(protocol_decode(s, 2 * depth, 1, &c, &id, &err), -1);
	assert_non_null(err);
	free(err);
	free(s);
}

/* A line read leniently (watch, an MCP server's responses): a string with
 * a lone surrogate escape or a byte that is not UTF-8 reads as U+FFFD,
 * a pair and an escaped backslash as they are (tests/data/protocol/
 * repair.tsv: the line, the string value of "s" as JSON, or "-" for none). */
static void test_load_repaired(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/protocol/repair.tsv", &rows);
	(void)state;
	assert_true(n >= 5);
	for (size_t i = 0; i < n; i++) {
		json_t *j = protocol_load_repaired(rows[i].f[0], strlen(rows[i].f[0]), 0, NULL);
		json_t *s = json_object_get(j, "s");
		char *got = s ? json_dumps(s, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : xstrdup("-");
		if (strcmp(got, rows[i].f[1]) != 0)
			fail_msg("line %zu: read [%s], want [%s]", rows[i].line, got, rows[i].f[1]);
		free(got);
		json_decref(j);
	}
	tdata_free(rows, n);
}

/* Writes data to a pipe and reads it back through a reader with a cap. */
static void test_reader_cap(void **state)
{
	int p[2];
	const char *in = "short\n0123456789012345678901234567890123456789\nnext\nlast";
	struct reader *r;
	const char *line;
	size_t len;
	bool toolong;
	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], in, strlen(in)), (ssize_t)strlen(in));
	close(p[1]);
	r = reader_new(p[0], 16);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1);
	assert_false(toolong);
	assert_int_equal(len, 5);
	assert_memory_equal(line, "short", 5);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1);
	assert_true(toolong);
	assert_int_equal(len, 0);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1);
	assert_false(toolong);
	assert_memory_equal(line, "next", 4);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1);
	assert_memory_equal(line, "last", 4); /* no final newline */
	assert_int_equal(reader_next(r, &line, &len, &toolong), 0);
	reader_free(r);
	close(p[0]);
}

/* What reader_set_pass() hands over: the bytes and the number of firsts. */
struct passed {
	struct buf b;
	int firsts;
};

static void collect(void *arg, const char *p, size_t n, bool first)
{
	struct passed *ps = arg;
	buf_append(&ps->b, p, n);
	ps->firsts += first;
}

/* A line longer than the cap, and longer than the reader's first buffer,
 * is handed over whole in pieces; the lines around it are read as usual. */
static void test_reader_pass(void **state)
{
	static const size_t big = 200000;
	struct passed ps = {.firsts = 0};
	FILE *f = tmpfile();
	struct reader *r;
	const char *line;
	size_t len;
	bool toolong;
	(void)state;
	assert_non_null(f);
	fputs("a\n", f);
	for (size_t i = 0; i < big; i++)
		fputc('0' + (int)(i % 10), f);
	fputs("\nnext\n0123456789abcdef!", f);
	fflush(f);
	rewind(f);
	buf_init(&ps.b, 0);
	r = reader_new(fileno(f), 1000);
	reader_set_pass(r, collect, &ps);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1);
	assert_false(toolong);
	assert_int_equal(ps.b.len, 0);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1);
	assert_true(toolong);
	assert_int_equal(ps.firsts, 1);
	assert_int_equal(ps.b.len, big);
	for (size_t i = 0; i < big; i++)
		if (ps.b.data[i] != '0' + (int)(i % 10))
			fail_msg("byte %zu passed as %c", i, ps.b.data[i]);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1);
	assert_false(toolong);
	assert_memory_equal(line, "next", 4);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 1); /* short, unterminated */
	assert_false(toolong);
	assert_int_equal(len, 17);
	assert_int_equal(ps.firsts, 1);
	assert_int_equal(reader_next(r, &line, &len, &toolong), 0);
	reader_free(r);
	buf_free(&ps.b);
	fclose(f);
}

static void test_result_encoding(void **state)
{
	const char *in = "{\"id\":\"r1\",\"tool\":\"shell\",\"input\":{\"command\":\"ls\"}}";
	struct call *c;
	struct verdict *v = verdict_new();
	struct outcome *o = outcome_new();
	json_t *id, *res;
	char *err = NULL;
	(void)state;
	assert_int_equal(protocol_decode(in, strlen(in), 1, &c, &id, &err), 0);
	verdict_add(v, TIER_HIGH, "fs.delete", (struct span){0, 2}, "deletes %s", "x");
	o->decision = DECISION_AUTO;
	o->ran = true;
	o->exit_code = 0;
	o->out = xstrdup("bad \xff bytes");
	o->outlen = strlen(o->out);
	res = protocol_result(c, v, o);
	assert_string_equal(json_string_value(json_object_get(res, "id")), "r1");
	assert_string_equal(json_string_value(json_object_get(res, "tier")), "high");
	assert_string_equal(json_string_value(json_object_get(res, "decision")), "auto");
	assert_string_equal(json_string_value(json_object_get(res, "stdout")),
	                    "bad \xef\xbf\xbd bytes");
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 0);
	json_decref(res);
	res = protocol_error(NULL, 9, "broken");
	assert_true(json_is_null(json_object_get(res, "id")));
	assert_int_equal(json_integer_value(json_object_get(res, "line")), 9);
	json_decref(res);
	call_free(c);
	verdict_free(v);
	outcome_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_table),  cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_deep_nesting),  cmocka_unit_test(test_reader_cap),
		cmocka_unit_test(test_reader_pass),
		cmocka_unit_test(test_result_encoding), cmocka_unit_test(test_load_repaired),
	};
	return cmocka_run_group_tests_name("protocol", tests, NULL, NULL);
}
