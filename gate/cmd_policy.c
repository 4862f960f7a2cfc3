/* cmd_policy.c: STAND-IN until its issue lands. */
#include <stdio.h>

#include "core/airlock.h"
#include "gate/commands.h"

int cmd_policy(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "airlock policy: not built yet\n");
	return EXIT_USAGE;
}
