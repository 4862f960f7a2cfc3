/*
 * test_agent.c: the integration helpers (gate/agent.c): shell quoting
 * round-trips through a real /bin/sh (tests/data/integrations/quote.tsv),
 * MCP argument mapping (mcp-map.tsv), child processes and exit statuses.
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
#include "gate/agent.h"
#include "gate/protocol.h"
#include "tdata.h"

/* Runs `printf %s QUOTED` through sh and returns what it printed. */
static char *through_shell(const char *quoted)
{
	char *cmd = xasprintf("printf %%s %s", quoted), buf[4096];
	FILE *p = popen(cmd, "r");
	struct buf b;
	size_t n;

	assert_non_null(p);
	buf_init(&b, 0);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		buf_append(&b, buf, n);
	assert_int_equal(pclose(p), 0);
	free(cmd);
	return buf_take(&b, NULL);
}

static void test_quote_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/integrations/quote.tsv", &rows);
	(void)state;
	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++) {
		char *q = agent_shell_quote(rows[i].f[0]), *out = through_shell(q);
		if (strcmp(out, rows[i].f[0]) != 0)
			fail_msg("line %zu: [%s] quoted as [%s] came back as [%s]", rows[i].line,
			         rows[i].f[0], q, out);
		free(q);
		free(out);
	}
	tdata_free(rows, n);
}

static char *kinds_of(struct call **calls)
{
	struct buf b;
	buf_init(&b, 0);
	for (size_t i = 0; calls[i]; i++)
		buf_printf(&b, "%s%s", i ? " " : "", tool_name(calls[i]->tool));
	return buf_take(&b, NULL);
}

/* Each call's cwd, "-" for none, space-separated. */
static char *cwds_of(struct call **calls)
{
	struct buf b;
	buf_init(&b, 0);
	for (size_t i = 0; calls[i]; i++)
		buf_printf(&b, "%s%s", i ? " " : "", calls[i]->cwd ? calls[i]->cwd : "-");
	return buf_take(&b, NULL);
}

static void test_mcp_map_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/integrations/mcp-map.tsv", &rows);
	(void)state;
	assert_true(n >= 15);
	/* an id the protocol refuses (an MCP client's object) maps the same:
	 * the calls were decoded with it, and dropped */
	for (size_t i = 0; i < 2 * n; i++) {
		struct tdata_row *r = &rows[i % n];
		json_t *args = json_loads(r->f[1], 0, NULL);
		json_t *id = i < n ? json_integer(7) : json_pack("{s:[i]}", "o", 1);
		char *name = xasprintf("mcp:srv.%s", r->f[0]);
		struct call **calls = agent_tool_calls(name, r->f[0], args, id);
		char *kinds = kinds_of(calls);

		if (args == NULL)
			fail_msg("line %zu: bad JSON", r->line);
		if (strcmp(kinds, r->f[2]) != 0)
			fail_msg("line %zu: %s mapped to [%s], want [%s]", r->line, r->f[0],
			         kinds, r->f[2]);
		if (r->nf > 3) { /* where each call is judged from */
			char *cwds = cwds_of(calls);
			if (strcmp(cwds, r->f[3]) != 0)
				fail_msg("line %zu: %s placed in [%s], want [%s]", r->line, r->f[0],
				         cwds, r->f[3]);
			free(cwds);
		}
		if (r->nf > 4 && agent_calls_unsandboxed(calls) != (strcmp(r->f[4], "asks") == 0))
			fail_msg("line %zu: %s: unsandboxed is %d, want %s", r->line, r->f[0],
			         agent_calls_unsandboxed(calls), r->f[4]);
		assert_string_equal(calls[0]->name, name);
		assert_true(json_equal(calls[0]->id, id));
		if (calls[0]->tool != TOOL_OTHER) /* the log keeps what was sent */
			assert_true(json_equal(json_object_get(calls[0]->input, "arguments"), args));
		free(kinds);
		free(name);
		agent_calls_free(calls);
		json_decref(args);
		json_decref(id);
	}
	tdata_free(rows, n);
}

static void test_named_calls_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/integrations/named-calls.tsv", &rows);
	(void)state;
	assert_true(n >= 8);
	for (size_t i = 0; i < n; i++) {
		char *line = xasprintf("{\"tool\":\"%s\",\"input\":%s}", rows[i].f[0], rows[i].f[1]);
		struct call *c = NULL, **calls;
		json_t *id = NULL, *root;
		char *err = NULL, *kinds;

		if (protocol_decode(line, strlen(line), 1, &c, &id, &err) < 0)
			fail_msg("line %zu: %s", rows[i].line, err);
		root = json_loads(line, 0, NULL);
		calls = agent_named_calls(c, json_object_get(root, "input"), "/w");
		kinds = calls ? kinds_of(calls) : xstrdup("-");
		if (strcmp(kinds, rows[i].f[2]) != 0)
			fail_msg("line %zu: %s mapped to [%s], want [%s]", rows[i].line, rows[i].f[0],
			         kinds, rows[i].f[2]);
		free(kinds);
		agent_calls_free(calls);
		call_free(c);
		json_decref(root);
		free(line);
	}
	tdata_free(rows, n);
}

static void test_spawn_pipes(void **state)
{
	char *argv[] = {(char *)"cat", NULL}, *err = NULL, buf[16] = {0};
	struct agent_child ch;
	int ec;
	(void)state;
	assert_int_equal(agent_spawn(argv, &ch, &ec, &err), 0);
	assert_int_equal(write(ch.in_fd, "hi\n", 3), 3);
	close(ch.in_fd);
	assert_int_equal(read(ch.out_fd, buf, sizeof(buf) - 1), 3);
	assert_string_equal(buf, "hi\n");
	close(ch.out_fd);
	assert_int_equal(agent_wait(ch.pid), 0);
}

static void test_spawn_missing(void **state)
{
	char *argv[] = {(char *)"/nonexistent/agent", NULL}, *err = NULL;
	struct agent_child ch;
	int ec = 0;
	(void)state;
	assert_int_equal(agent_spawn(argv, &ch, &ec, &err), -1);
	assert_int_equal(ec, EXIT_NOT_FOUND);
	assert_non_null(strstr(err, "/nonexistent/agent"));
	free(err);
}

static void test_wait_status(void **state)
{
	char *ok[] = {(char *)"sh", (char *)"-c", (char *)"exit 7", NULL};
	char *sig[] = {(char *)"sh", (char *)"-c", (char *)"kill -TERM $$", NULL};
	char *err = NULL;
	struct agent_child ch;
	int ec;
	(void)state;
	assert_int_equal(agent_spawn(ok, &ch, &ec, &err), 0);
	close(ch.in_fd), close(ch.out_fd);
	assert_int_equal(agent_wait(ch.pid), 7);
	assert_int_equal(agent_spawn(sig, &ch, &ec, &err), 0);
	close(ch.in_fd), close(ch.out_fd);
	assert_int_equal(agent_wait(ch.pid), 128 + 15);
}

static void test_command_line(void **state)
{
	char *argv[] = {(char *)"python3", (char *)"my agent.py", (char *)"--x=1", (char *)"",
	                NULL};
	char *s = agent_command_line(argv);
	(void)state;
	assert_string_equal(s, "python3 'my agent.py' --x=1 ''");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_table),   cmocka_unit_test(test_mcp_map_table),
		cmocka_unit_test(test_named_calls_table), cmocka_unit_test(test_spawn_pipes),   cmocka_unit_test(test_spawn_missing),
		cmocka_unit_test(test_wait_status),   cmocka_unit_test(test_command_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
