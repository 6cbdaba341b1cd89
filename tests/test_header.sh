#!/usr/bin/env bash
# test_header.sh - tile.h compiles cleanly in every configuration a user may
# pick: C99, C11, C++11 and C++17 (gcc, and clang when installed), with
# -Wall -Wextra -Werror -pedantic; declarations only, with the
# implementation, with TILE_USE_ZLIB, with TILE_STATIC. Two translation
# units (one implementation, one user) link into a program that runs, and
# the allocation hooks TILE_MALLOC/TILE_FREE receive every allocation.
set -u
cd "$(dirname "$0")/.."
out=${TILE_BUILD:-build}/header_test
mkdir -p "$out"
passed=0
failed=0

ok() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

printf '#include "tile.h"\nint tile_user(void) { return tile_status_string(TILE_SUCCESS)[0]; }\n' >"$out/decl.c"
printf '#define TILE_IMPLEMENTATION\n#include "tile.h"\n#include "tile.h"\n' >"$out/impl.c"

compilers=("gcc -x c -std=c99" "gcc -x c -std=c11" "g++ -x c++ -std=c++11" "g++ -x c++ -std=c++17")
if command -v clang >/dev/null 2>&1; then
	compilers+=("clang -x c -std=c99" "clang++ -x c++ -std=c++11")
fi
for c in "${compilers[@]}"; do
	for defs in "" "-DTILE_USE_ZLIB" "-DTILE_STATIC"; do
		for src in decl impl; do
			# TILE_STATIC only makes sense with the implementation in the same unit.
			[ "$defs" = -DTILE_STATIC ] && [ $src = decl ] && continue
			# shellcheck disable=SC2086
			if $c $defs -Wall -Wextra -Werror -pedantic -I. -c "$out/$src.c" -o "$out/x.o" 2>"$out/err.txt"; then
				ok
			else
				fail "$c $defs $src.c"
				head -n 20 "$out/err.txt"
			fi
		done
	done
done

# A program of two translation units; the allocation hooks see every
# allocation and every free.
cat >"$out/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "tile.h"
int tile_user(void);
extern int hook_allocs, hook_frees;
int main(void)
{
	static const unsigned char not_a_blob[40] = {'T', 'I', 'L', 'E', TILE_BLOB_VERSION, 0, 32, 0, 40};
	tile_module *m = NULL;
	tile_status st = tile_module_create(not_a_blob, sizeof not_a_blob, &m);
	printf("%d %s / %s / %d %d\n", (int)st, tile_status_string(st), tile_last_error(), hook_allocs, hook_frees);
	return !(tile_user() == 's' && st == TILE_ERROR_BAD_BLOB && m == NULL && hook_allocs > 0 && hook_allocs == hook_frees);
}
C
cat >"$out/hooks.c" <<'C'
#include <stdlib.h>
int hook_allocs, hook_frees;
static void *hook_malloc(size_t n) { hook_allocs++; return malloc(n); }
static void hook_free(void *p) { hook_frees += p != NULL; free(p); }
#define TILE_MALLOC(n) hook_malloc(n)
#define TILE_FREE(p) hook_free(p)
#define TILE_IMPLEMENTATION
#include "tile.h"
C
for c in "gcc -x c -std=c99" "g++ -x c++ -std=c++11"; do
	# shellcheck disable=SC2086
	if $c -Wall -Wextra -Werror -pedantic -I. -c "$out/decl.c" -o "$out/decl.o" &&
		$c -Wall -Wextra -Werror -pedantic -I. -c "$out/hooks.c" -o "$out/hooks.o" &&
		$c -Wall -Wextra -Werror -pedantic -I. -c "$out/main.c" -o "$out/main.o" &&
		g++ -o "$out/prog" "$out/main.o" "$out/decl.o" "$out/hooks.o" -ldl -lpthread; then
		if "$out/prog"; then ok; else fail "$c: two-unit program"; fi
	else
		fail "$c: two-unit program does not build"
	fi
done

# TILE_USE_ZLIB: the images go through zlib's uncompress, with the same
# status on a corrupt stream.
cat >"$out/zlib.c" <<'C'
#include <zlib.h>
#define TILE_USE_ZLIB
#define TILE_IMPLEMENTATION
#include "tile.h"
int main(void)
{
	unsigned char data[4096], z[8192], out[4096];
	uLongf zn = sizeof z;
	int i, ok;
	for (i = 0; i < 4096; i++)
		data[i] = (unsigned char)(i * 7 % 13);
	compress2(z, &zn, data, sizeof data, 9);
	ok = tile__inflate_image(0, z, zn, out, sizeof out) == TILE_SUCCESS && memcmp(out, data, sizeof data) == 0;
	z[zn / 2] ^= 0x55;
	ok = ok && tile__inflate_image(1, z, zn, out, sizeof out) == TILE_ERROR_INFLATE &&
	     strstr(tile_last_error(), "image 1: inflate: zlib error") != NULL;
	return !ok;
}
C
if gcc -std=c99 -Wall -Wextra -Werror -pedantic -I. "$out/zlib.c" -o "$out/zlib" -lz -ldl -lpthread && "$out/zlib"; then
	ok
else
	fail "TILE_USE_ZLIB inflate"
fi

echo "test_header: $passed passed, $failed failed"
[ "$failed" = 0 ]
