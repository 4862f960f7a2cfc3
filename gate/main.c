/*
 * main.c: airlock's entry point: picks the subcommand from a table.
 * With no subcommand, stdin that is not a terminal means `airlock gate`.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/airlock.h"
#include "core/util.h"
#include "gate/commands.h"

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *summary;
} commands[] = {
	{"gate", cmd_gate, "classify, decide, sandbox and record a stream of tool calls"},
	{"classify", cmd_classify, "print the verdict for each call; runs nothing"},
	{"exec", cmd_exec, "run one command in the sandbox"},
	{"preview", cmd_preview, "show what each call would change"},
	{"policy", cmd_policy, "check or show the effective policy"},
	{"audit", cmd_audit, "list, show, export and verify the audit log"},
	{"run", cmd_run, "start an agent as a child and gate its tool calls"},
	{"hook", cmd_hook, "answer a Claude Code PreToolUse hook"},
	{"mcp", cmd_mcp, "proxy an MCP stdio server, gating tools/call"},
	{"watch", cmd_watch, "classify and record an agent's own event stream"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: airlock [COMMAND] [OPTIONS]\n"
	           "airlock %s stands between a coding agent and the machine.\n\ncommands:\n",
	        AIRLOCK_VERSION);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`agent | airlock` runs the gate. `airlock COMMAND --help` for more;\n"
	           "man airlock for exit codes and files.\n");
}

int main(int argc, char **argv)
{
	/* jansson drops bytes or asserts when its allocator fails mid-parse;
	 * abort instead, as everywhere else, so no different call is decoded. */
	json_set_alloc_funcs(xmalloc, free);
	if (argc < 2) {
		if (!isatty(STDIN_FILENO))
			return cmd_gate(argc, argv);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("airlock %s\n", AIRLOCK_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	if (argv[1][0] == '-' && !isatty(STDIN_FILENO))
		return cmd_gate(argc, argv);
	fprintf(stderr, "airlock: unknown command %s\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
