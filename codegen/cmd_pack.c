/* cmd_pack.c - placeholder until the sub-command lands. */
#include <stdio.h>
#include "cmd.h"
int cmd_pack(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "tilec: error: 'pack' is not implemented yet\n");
	return 2;
}
int cmd_inspect(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "tilec: error: inspect is not implemented yet\n"); return 2; }
