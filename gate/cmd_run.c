/* cmd_run.c: STAND-IN until the integrations issue lands. */
#include <stdio.h>

#include "core/airlock.h"
#include "gate/commands.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "airlock run: not built yet\n");
	return EXIT_USAGE;
}
