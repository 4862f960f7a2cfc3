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
#include "gate/commands.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"

static const char gate_usage[] =
	"usage: airlock gate [--db FILE] [--workdir DIR] [--policy FILE] [--no-redact]\n"
	"                    [--approve-with CMD] [--no-tty] [--line-cap BYTES]\n"
	"Reads tool calls (one JSON object per line) on stdin, classifies each, applies\n"
	"the policy, runs auto calls in the sandbox, asks a person about high-risk ones,\n"
	"records everything in the audit log and writes one JSON result per line.\n";

static const struct option gate_longopts[] = {
	{"db", required_argument, NULL, 'd'},
	{"workdir", required_argument, NULL, 'w'},
	{"policy", required_argument, NULL, 'p'},
	{"no-redact", no_argument, NULL, 'R'},
	{"approve-with", required_argument, NULL, 'A'},
	{"line-cap", required_argument, NULL, 'L'},
	{"no-tty", no_argument, NULL, 'T'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int cmd_gate(int argc, char **argv)
{
	struct gate_opts o = {.mode = "gate"};
	struct gate *g = NULL;
	long long cap;
	char *err = NULL;
	int ch, rc, sig;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+h", gate_longopts, NULL)) != -1) {
		switch (ch) {
		case 'd': o.db_path = optarg; break;
		case 'w': o.workdir = optarg; break;
		case 'p': o.policy_file = optarg; break;
		case 'R': o.no_redact = true; break;
		case 'A': o.approve_with = optarg; break;
		case 'T': o.no_tty = true; break;
		case 'L':
			if (parse_ll(optarg, 1024, 1LL << 34, &cap) < 0) {
				fprintf(stderr, "airlock gate: --line-cap wants bytes (1024..16G)\n");
				return EXIT_USAGE;
			}
			o.line_cap = (size_t)cap;
			break;
		case 'h': fputs(gate_usage, stdout); return EXIT_OK;
		default: fputs(gate_usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc) {
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
	gate_close(g); /* ends the session in the log, also after a signal */
	sig = gate_signals_stop();
	return sig ? 128 + sig : rc;
}
