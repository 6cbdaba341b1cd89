#!/usr/bin/env bash
# Writes tile.h to stdout: the public declarations (api.h), then the
# implementation under TILE_IMPLEMENTATION. The implementation files are
# fragments of one translation unit, in dependency order. loader/ holds
# these parts and this script only (programs built from tile.h live in
# tools/); `amalgamate.sh --list` prints the parts, which
# tests/test_layering.sh checks against the folder.
set -euo pipefail
cd "$(dirname "$0")"
IMPL="common.h inflate.h grid.h blob.h dispatch.h driver.h tensordesc.h launch.h"
if [ "${1:-}" = --list ]; then
	echo api.h $IMPL
	exit 0
fi
cat <<'HEAD'
/* tile.h - load and launch tile blobs (kernels compiled by tilec).
 *
 * Generated from loader/ by loader/amalgamate.sh: edit those files, then run
 * ./build.sh header. Single-header library: include it anywhere for the
 * declarations; in exactly one C or C++ file, first
 *     #define TILE_IMPLEMENTATION
 * for the implementation. Options (define before including):
 *     TILE_STATIC            private (static) functions
 *     TILE_MALLOC(size), TILE_FREE(ptr)
 *     TILE_USE_ZLIB          inflate with zlib (link -lz) instead of the built-in decoder
 *     TILE_LIBCUDA_NAME      the CUDA driver library to dlopen ("libcuda.so.1", then "libcuda.so")
 *     TILE_INITIAL_CONTEXTS  context slots a module starts with (4; the table grows)
 *     TILE_DEBUG             detect a launch racing with tile_module_destroy
 * Needs POSIX (dlopen, pthreads: link -ldl -lpthread on older glibc).
 */
HEAD
cat api.h
echo
echo '#ifdef TILE_IMPLEMENTATION'
echo '#ifndef TILE_IMPLEMENTATION_INCLUDED'
echo '#define TILE_IMPLEMENTATION_INCLUDED'
for f in $IMPL; do
	echo
	cat "$f"
done
echo
echo '#endif /* TILE_IMPLEMENTATION_INCLUDED */'
echo '#endif /* TILE_IMPLEMENTATION */'
