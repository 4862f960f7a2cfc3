/*
 * cmd_gate.c: `airlock gate`, the pipeline over a stream of calls:
 * `agent | airlock gate`, and what `airlock` does with no subcommand when
 * stdin is not a terminal.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/util.h"
#include "gate/agent.h"
#include "gate/commands.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"

static const char gate_usage[] =
	"usage: airlock gate [--db FILE] [--workdir DIR] [--policy FILE] [--no-redact]\n"
	"                    [--approve-with CMD] [--no-tty] [--line-cap BYTES]\n"
	"Reads tool calls (one JSON object per line) on stdin, classifies each, applies\n"
	"the policy, runs auto calls in the sandbox, asks a person about high-risk ones,\n"
	"records everything in the audit log and writes one JSON result per line.\n"
	AGENT_GATE_USAGE;

static const struct option gate_longopts[] = {
	AGENT_GATE_LONGOPTS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int cmd_gate(int argc, char **argv)
{
	struct gate_opts o = {.mode = "gate"};
	struct gate *g = NULL;
	char *err = NULL;
	int ch, rc, sig;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+h", gate_longopts, NULL)) != -1) {
		/* the options run, hook, mcp and watch share: one parser, so
		 * --line-cap 16M means the same everywhere */
		if ((rc = agent_gate_option(ch, optarg, &o, &err)) != 0) {
			if (rc < 0) {
				fprintf(stderr, "airlock gate: %s\n", err);
				free(err);
				return EXIT_USAGE;
			}
			continue;
		}
		switch (ch) {
		case 'h': fputs(gate_usage, stdout); return EXIT_OK;
		default: fputs(gate_usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "airlock gate: unexpected argument '%s' (the calls go on stdin, one "
		                "JSON object per line)\n", argv[optind]);
		fputs(gate_usage, stderr);
		return EXIT_USAGE;
	}
	if (gate_signals_start(&err) < 0) {
		fprintf(stderr, "airlock gate: %s\n", err);
		free(err);
		return EXIT_INTERNAL;
	}
	if (gate_open(&o, &g, &rc, &err) < 0) {
		fprintf(stderr, "airlock gate: %s\n", err);
		free(err);
		sig = gate_signals_stop();
		return sig ? 128 + sig : rc;
	}
	gate_signals_attach(g);
	gate_watch_results(g, STDOUT_FILENO);
	rc = gate_stream(g, STDIN_FILENO, stdout);
	gate_signals_attach(NULL);
	/* ends the session in the log, also after a signal; a log that could
	 * not take an outcome or the session's end is not whole, and the
	 * status says so (125): with every call refused it was 0 */
	if (gate_close(g) < 0 && rc == EXIT_OK)
		rc = EXIT_INTERNAL;
	sig = gate_signals_stop();
	return sig ? 128 + sig : rc;
}
