/* cmd_mcp.c: STAND-IN until the integrations issue lands. */
#include <stdio.h>

#include "core/airlock.h"
#include "gate/commands.h"

int cmd_mcp(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "airlock mcp: not built yet\n");
	return EXIT_USAGE;
}
