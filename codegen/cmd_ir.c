/* cmd_ir.c - placeholder until the sub-command lands. */
#include <stdio.h>
#include "cmd.h"
int cmd_ir(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "tilec: error: 'ir' is not implemented yet\n");
	return 2;
}
