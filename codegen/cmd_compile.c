/* cmd_compile.c - placeholder until the sub-command lands. */
#include <stdio.h>
#include "cmd.h"
int cmd_compile(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "tilec: error: 'compile' is not implemented yet\n");
	return 2;
}
