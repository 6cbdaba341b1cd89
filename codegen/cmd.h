/* cmd.h - the sub-commands of tilec, one file each (cmd_NAME.c). Each takes
 * the arguments after its name and returns the process exit status. */
#ifndef TILEC_CMD_H
#define TILEC_CMD_H

#include <stdint.h>

int cmd_compile(int argc, char **argv); /* cmd_compile.c: kernel .py -> blob .c/.h */
int cmd_pack(int argc, char **argv);    /* cmd_pack.c: PTX/cubin/Triton cache -> blob .c/.h */
int cmd_inspect(int argc, char **argv); /* cmd_pack.c: list a blob's contents */
int cmd_ir(int argc, char **argv);      /* cmd_ir.c: dump the tile IR of a kernel */
int cmd_run(int argc, char **argv);     /* cmd_run.c: run a kernel in the reference interpreter */

/* cmd_ir.c: whether `a` is --pipelined[=registers|=wgmma] (tilec ir and
 * tilec run take it), and then *po: the pass options it stands for */
struct pipeline_options;
int cmd_pipelined(const char *a, struct pipeline_options *po);

/* tile_impl.c: the grid program of a variant of a module tile_module_create
 * validated (the public API does not expose the code); *size bytes. */
struct tile_module;
const uint8_t *tilec_grid_program(const struct tile_module *m, int kernel, int variant, uint32_t *size);

#endif
