/* cmd_watch.c: STAND-IN until the integrations issue lands. */
#include <stdio.h>

#include "core/airlock.h"
#include "gate/commands.h"

int cmd_watch(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "airlock watch: not built yet\n");
	return EXIT_USAGE;
}
