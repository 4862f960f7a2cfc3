/* cmd_hook.c: STAND-IN until the integrations issue lands. */
#include <stdio.h>

#include "core/airlock.h"
#include "gate/commands.h"

int cmd_hook(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "airlock hook: not built yet\n");
	return EXIT_USAGE;
}
