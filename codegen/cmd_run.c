/* cmd_run.c - placeholder until the sub-command lands. */
#include <stdio.h>
#include "cmd.h"
int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "tilec: error: 'run' is not implemented yet\n");
	return 2;
}
