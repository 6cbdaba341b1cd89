/* tilec.c - the command-line tool: dispatches to one sub-command. With
 * TILEC_STATS set in the environment, the command's peak memory (resident
 * set) and CPU time are printed on stderr after it ran, as
 * "tilec: peak memory N KiB, user+system N ms" (tests/test_limits.sh bounds
 * the memory of inputs at every limit with it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmd.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"compile", cmd_compile, "compile @triton.jit kernels to a blob and C launchers"},
	{"pack", cmd_pack, "pack PTX, cubins or Triton cache entries into a blob and C launchers"},
	{"inspect", cmd_inspect, "list the kernels, variants and images of a blob or generated .c"},
	{"ir", cmd_ir, "print the tile IR of a kernel"},
	{"run", cmd_run, "run a kernel on the CPU with the reference interpreter"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tilec COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'tilec COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			int rc = commands[i].fn(argc - 2, argv + 2);
			struct rusage ru;
			if (getenv("TILEC_STATS") && getrusage(RUSAGE_SELF, &ru) == 0)
				fprintf(stderr, "tilec: peak memory %ld KiB, user+system %ld ms\n", ru.ru_maxrss,
					(long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
						(long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
			return rc;
		}
	fprintf(stderr, "tilec: error: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
