#!/usr/bin/env bash
# test_pack.sh - `tilec pack` and `tilec inspect` end to end: a hand-written
# vector add (PTX, and cubins for sm_80 and sm_90 assembled by ptxas when it
# is there, else the committed ones), a Triton 3.6 cache entry (json +
# cubin with the two hidden scratch pointers), the generated C compiled as
# C99 -pedantic and as C++ and linked with tile.h, inspect's listing, and
# the errors (with nothing written).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
FIX=$ROOT/tests/fixtures/pack
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# check NAME CMD...: the command succeeds
check() { local n=$1; shift; if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$n"; cat "$T/err" | head -20; fi; }
# has NAME FILE TEXT: the file contains the text (fixed string)
has() { if grep -qF -- "$3" "$2"; then ok; else bad "$1: '$3' not in $2"; head -40 "$2"; fi; }
# fails NAME TEXT CMD...: the command exits 1 and says TEXT on stderr
fails() {
	local n=$1 text=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc = 1 ] && grep -qF -- "$text" "$T/err"; then ok; else bad "$n: rc $rc, stderr:"; cat "$T/err" | head -10; fi
}

PTXAS=
for p in "${TILE_PTXAS:-}" "${CUDA_HOME:+$CUDA_HOME/bin/ptxas}" /usr/local/cuda/bin/ptxas "$(command -v ptxas 2>/dev/null)"; do
	[ -n "$p" ] && [ -x "$p" ] && { PTXAS=$p; break; }
done
if [ -n "$PTXAS" ]; then
	check "ptxas sm_80" "$PTXAS" -arch=sm_80 "$FIX/add.ptx" -o "$T/add_sm_80.cubin"
	check "ptxas sm_90" "$PTXAS" -arch=sm_90 "$FIX/add.ptx" -o "$T/add_sm_90.cubin"
else
	echo "note: no ptxas; using the committed cubins"
	cp "$FIX/add_sm_80.cubin" "$FIX/add_sm_90.cubin" "$T/"
fi

SIG='*fp32:16, *fp32:16, *fp32:16, i32'
# A 7-parameter entry for the "scale" kernel (the body is never run).
cat >"$T/scale.ptx" <<'EOF'
.version 8.0
.target sm_80
.address_size 64
.visible .entry scale(.param .u64 a, .param .f64 b, .param .u64 c, .param .b16 d, .param .b16 e, .param .u8 f, .param .u8 g)
{
	ret;
}
EOF
FIX_SCALE=$T/scale.ptx
pack_vadd() {
	"$TILEC" pack -o "$1" --name vadd -n add_kernel -s "$SIG" --param-names x,y,out,n -g "cdiv(n, 1024)" -w 4 \
		--cubin "sm_80:$T/add_sm_80.cubin" --cubin "$T/add_sm_90.cubin" --ptx "$FIX/add.ptx" \
		-n add_kernel -s '*fp32, *fp32, *fp32, i32' --param-names x,y,out,n -g "cdiv(n, 1024)" --ptx "$FIX/add.ptx" \
		-n scale -s '*fp64, fp64, i64:1, fp16, bf16, i1, u8' --param-names out,alpha,k,h,b,flag,small \
		--ptx "$FIX_SCALE" --shared 65536
}

# ---- pack: PTX + cubins, two variants, a second kernel without a grid
check "pack vadd" pack_vadd "$T/vadd"
for f in vadd.c vadd.h vadd.tileblob; do [ -s "$T/$f" ] && ok || bad "$f not written"; done
has "header launch" "$T/vadd.h" "tile_status add_kernel(tile_stream stream, tile_deviceptr x, tile_deviceptr y, tile_deviceptr out, int32_t n);"
has "header scale" "$T/vadd.h" "tile_status scale(tile_stream stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, tile_deviceptr out, double alpha, int64_t k, uint16_t h, uint16_t b, uint8_t flag, uint8_t small);"
has "header load" "$T/vadd.h" "tile_status vadd_load(void);"
has "header guard" "$T/vadd.h" "#ifndef VADD_TILE_H"
has "header doc" "$T/vadd.h" "x % 16 == 0, y % 16 == 0, out % 16 == 0, grid (cdiv(n, 1024))"
has "no implementation in .c" "$T/vadd.c" '#include "vadd.h"'
if grep -q TILE_IMPLEMENTATION "$T/vadd.c"; then bad ".c defines TILE_IMPLEMENTATION"; else ok; fi
check "deterministic" pack_vadd "$T/again"
check "same bytes" cmp "$T/vadd.tileblob" "$T/again.tileblob"

# ---- inspect: blob and generated .c
check "inspect blob" "$TILEC" inspect "$T/vadd.tileblob"
cp "$T/out" "$T/inspect.txt"
has "inspect kernel" "$T/inspect.txt" "kernel add_kernel"
has "inspect param" "$T/inspect.txt" "param 3 n: i32"
has "inspect variant" "$T/inspect.txt" "variant 0: add_kernel, group 0, num_warps 4"
has "inspect predicates" "$T/inspect.txt" "predicates: x % 16 == 0, y % 16 == 0, out % 16 == 0"
has "inspect grid" "$T/inspect.txt" "grid: cdiv(n, 1024)"
has "inspect no grid" "$T/inspect.txt" "grid: given by the caller"
has "inspect eq1" "$T/inspect.txt" "predicates: k == 1"
has "inspect shared" "$T/inspect.txt" "0 static + 65536 dynamic"
has "inspect sm_80" "$T/inspect.txt" "image 0: group 0, cubin sm_80,"
has "inspect sm_90" "$T/inspect.txt" "image 1: group 0, cubin sm_90,"
has "inspect ptx" "$T/inspect.txt" "image 2: group 0, ptx sm_80,"
has "inspect group 2" "$T/inspect.txt" "image 4: group 2, ptx sm_80,"
has "inspect total" "$T/inspect.txt" "total: $(stat -c %s "$T/vadd.tileblob") bytes"
check "inspect .c" "$TILEC" inspect "$T/vadd.c"
sed 1d "$T/out" >"$T/c.txt"
sed 1d "$T/inspect.txt" >"$T/b.txt"
check "inspect .c lists the same" cmp "$T/c.txt" "$T/b.txt"

# ---- the generated C compiles as C99 and C++ and runs against tile.h
check "gcc -std=c99 -pedantic" gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT" -I"$T" -c "$T/vadd.c" -o "$T/vadd.o"
check "g++" g++ -Wall -Wextra -Werror -pedantic -x c++ -I"$ROOT" -I"$T" -c "$T/vadd.c" -o "$T/vadd_cpp.o"
# against a tile.h that reads another blob version the build stops
mkdir -p "$T/oldtile"
sed "s/^#define TILE_BLOB_VERSION [0-9]*$/#define TILE_BLOB_VERSION 1/" "$ROOT/tile.h" >"$T/oldtile/tile.h"
has "old tile.h differs" "$T/oldtile/tile.h" "#define TILE_BLOB_VERSION 1"
if gcc -std=c99 -I"$T/oldtile" -I"$T" -c "$T/vadd.c" -o "$T/vadd_old.o" 2>"$T/err"; then
	bad "a tile.h of another blob version accepted"
else
	has "blob version mismatch names the fix" "$T/err" "vadd.c holds a version 5 blob that this tile.h cannot read"
fi
# a blob without predicates past parameter 31 is version 5: the tile.h of
# before version 6 (TILE_BLOB_VERSION 5, no TILE_BLOB_VERSION_MIN) builds it
mkdir -p "$T/v5tile"
sed -e "s/^#define TILE_BLOB_VERSION 6$/#define TILE_BLOB_VERSION 5/" -e "/^#define TILE_BLOB_VERSION_MIN /d" "$ROOT/tile.h" >"$T/v5tile/tile.h"
has "version 5 tile.h" "$T/v5tile/tile.h" "#define TILE_BLOB_VERSION 5"
check "a version 5 blob's .c against a version 5 tile.h" gcc -std=c99 -I"$T/v5tile" -I"$T" -c "$T/vadd.c" -o "$T/vadd_v5.o"
# ---- predicates past parameter 31: a version 6 blob (FORMAT.md's preds)
WIDE_PARAMS=$(for i in $(seq 0 39); do printf '.param .u32 p%d, ' "$i"; done)
printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry wide(%s)\n{\n\tret;\n}\n' "${WIDE_PARAMS%, }" >"$T/wide.ptx"
WIDE_SIG=$(for i in $(seq 0 39); do case $i in 0) printf 'i32:16, ' ;; 35) printf 'i32:1, ' ;; 39) printf 'u32:8' ;; *) printf 'i32, ' ;; esac; done)
check "pack a hint past parameter 31" "$TILEC" pack -o "$T/wide" -n wide -s "$WIDE_SIG" --ptx "$T/wide.ptx"
check "inspect wide" "$TILEC" inspect "$T/wide.tileblob"
cp "$T/out" "$T/wide.txt"
has "wide is version 6" "$T/wide.txt" "tile blob v6,"
has "wide's predicates" "$T/wide.txt" "predicates: p0 % 16 == 0, p35 == 1, p39 % 8 == 0"
has "wide header doc" "$T/wide.h" "p0 % 16 == 0, p35 == 1, p39 % 8 == 0"
check "wide .c, C99" gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT" -I"$T" -c "$T/wide.c" -o "$T/wide.o"
if gcc -std=c99 -I"$T/v5tile" -I"$T" -c "$T/wide.c" -o "$T/wide_v5.o" 2>"$T/err"; then
	bad "a version 6 blob's .c built against a version 5 tile.h"
else
	has "version 6 blob, version 5 tile.h" "$T/err" "wide.c holds a version 6 blob that this tile.h cannot read"
fi
cat >"$T/main.c" <<'EOF'
#define TILE_IMPLEMENTATION
#include "tile.h"
#include "vadd.h"
#include <stdio.h>
#include <string.h>
int main(void)
{
	tile_module *m;
	tile_status s = vadd_module(&m);
	if (s != TILE_SUCCESS) {
		printf("module: %s: %s\n", tile_status_string(s), tile_last_error());
		return 1;
	}
	tile_variant_info v;
	tile_variant_get_info(m, 0, 1, &v);
	printf("kernels %d %s %s variants %d images %d v1 group %d\n", tile_kernel_count(m), tile_kernel_name(m, 0),
	       tile_kernel_name(m, 1), tile_variant_count(m, 0), tile_image_count(m), v.group);
	vadd_unload();
	return 0;
}
EOF
check "link with tile.h" gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT" -I"$T" "$T/main.c" "$T/vadd.c" -o "$T/main" -ldl -lpthread
check "run" "$T/main"
has "introspection via the generated module" "$T/out" "kernels 2 add_kernel scale variants 2 images 5 v1 group 1"

# ---- a Triton cache entry: hidden scratch parameters, metadata from the json
mkdir -p "$T/cache"
cp "$FIX/triton/add_kernel.json" "$FIX/triton/add_kernel.cubin" "$T/cache/"
check "pack triton" "$TILEC" pack -o "$T/tri" -n add_kernel -s "$SIG" --param-names x,y,out,n -g "cdiv(n, 1024)" \
	--triton "$T/cache/add_kernel.json"
check "inspect triton" "$TILEC" inspect "$T/tri.tileblob"
has "triton hidden 1" "$T/out" "param 4 global_scratch: *i8 (hidden)"
has "triton hidden 2" "$T/out" "param 5 profile_scratch: *i8 (hidden)"
has "triton stages" "$T/out" "num_warps 4, num_stages 3"
has "triton arch" "$T/out" "cubin sm_90a"
has "triton launch takes visible only" "$T/tri.h" "tile_deviceptr out, int32_t n);"
has "triton doc" "$T/tri.h" "(plus 2 hidden trailing parameters, passed as 0)"
check "triton gcc" gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT" -c "$T/tri.c" -o "$T/tri.o"

printf '{"name": "add_kernel", "num_warps": 8, "num_ctas": 2, "target": {"arch": 90}, "shared": 70000}' >"$T/cache/ctas.json"
cp "$T/cache/add_kernel.cubin" "$T/cache/ctas.cubin"
check "pack num_ctas" "$TILEC" pack -o "$T/ctas" -n add_kernel -s "$SIG" --triton "$T/cache/ctas.json"
check "inspect num_ctas" "$TILEC" inspect "$T/ctas.tileblob"
has "num_ctas as cluster" "$T/out" "num_warps 8, num_stages 0, shared 0 static + 70000 dynamic, cluster 2x1x1"
has "default names" "$T/out" "param 3 p3: i32"
# --cluster: a cluster shape for kernels compiled elsewhere
check "pack --cluster" "$TILEC" pack -o "$T/cl" -n add_kernel -s "$SIG" --cluster 2,2 --ptx "$FIX/add.ptx"
check "inspect --cluster" "$TILEC" inspect "$T/cl.tileblob"
has "--cluster 2,2" "$T/out" "cluster 2x2x1"
check "pack --cluster equal to the json's" "$TILEC" pack -o "$T/cl2" -n add_kernel -s "$SIG" --cluster 2 --triton "$T/cache/ctas.json"
fails "--cluster against the json's" "--cluster 4x1x1, but the Triton json's clusters are 2x1x1" \
	"$TILEC" pack -o "$T/cl3" -n add_kernel -s "$SIG" --cluster 4 --triton "$T/cache/ctas.json"
for bad_shape in 0 9 3,3 2,2,2,2 x 2, ,2 -1 2.5; do
	fails "--cluster $bad_shape" "--cluster: error:" "$TILEC" pack -o "$T/cl4" -n add_kernel -s "$SIG" --cluster "$bad_shape" --ptx "$FIX/add.ptx"
done
fails "--cluster of 9 blocks" "a cluster of 9 blocks (3,3): at most 8" \
	"$TILEC" pack -o "$T/cl4" -n add_kernel -s "$SIG" --cluster 3,3 --ptx "$FIX/add.ptx"
[ ! -e "$T/cl3.c" ] && [ ! -e "$T/cl4.c" ] && ok || bad "a refused --cluster wrote output"

# ---- registers and static shared memory come from the cubin
check "pack shared" "$TILEC" pack -o "$T/sh" -n shk -s '*i32' --cubin "$FIX/shared_sm_80.cubin" --shared 512
check "inspect shared" "$TILEC" inspect "$T/sh.tileblob"
has "static shared" "$T/out" "variant 0: shk, group 0, num_warps 4, num_stages 0, shared 1000 static + 512 dynamic, 8 registers"
check "inspect vadd regs" grep -q "registers" "$T/inspect.txt"

# ---- tile's :8 and :4 hints become the variant's predicates
check "pack :8 and :4" "$TILEC" pack -o "$T/d8" -n add_kernel -s '*fp32:8, *fp32:4, *fp32:16, i32:8' --ptx "$FIX/add.ptx"
check "inspect :8 and :4" "$TILEC" inspect "$T/d8.tileblob"
has "predicates by 8 and 4" "$T/out" "predicates: p0 % 8 == 0, p1 % 4 == 0, p2 % 16 == 0, p3 % 8 == 0"

# ---- errors: status 1, a precise message, nothing written
P=(pack -o "$T/errout/x" -n add_kernel)
mkdir -p "$T/errout"
fails "missing file" "nope.ptx: error: cannot open" "$TILEC" "${P[@]}" -s "$SIG" --ptx "$T/nope.ptx"
fails "bad type" "'fp33' is not a type" "$TILEC" "${P[@]}" -s '*fp32, fp33' --ptx "$FIX/add.ptx"
fails "bad hint" "bad hint ':1' on '*fp32'" "$TILEC" "${P[@]}" -s '*fp32:1, *fp32, *fp32, i32' --ptx "$FIX/add.ptx"
fails "float hint" "bad hint ':16' on 'fp32'" "$TILEC" "${P[@]}" -s '*fp32, *fp32, *fp32, fp32:16' --ptx "$FIX/add.ptx"
fails "float :8 hint" "bad hint ':8' on 'fp32'" "$TILEC" "${P[@]}" -s '*fp32, *fp32, *fp32, fp32:8' --ptx "$FIX/add.ptx"
fails "hint :2" "bad hint ':2' on 'i32'" "$TILEC" "${P[@]}" -s '*fp32, *fp32, *fp32, i32:2' --ptx "$FIX/add.ptx"
SIG65=$(printf 'i32,%.0s' $(seq 65))
fails "65 parameters" "more than 64 parameters" "$TILEC" "${P[@]}" -s "$SIG65" --ptx "$FIX/add.ptx"
fails "bad grid" "-g:1:9: error: unknown name 'm' in grid expression" "$TILEC" "${P[@]}" -s "$SIG" --param-names x,y,out,n -g "cdiv(n, m)" --ptx "$FIX/add.ptx"
fails "grid names defaults" "(integer names: p3)" "$TILEC" "${P[@]}" -s "$SIG" -g "n" --ptx "$FIX/add.ptx"
fails "wrong arch" "is for sm_80, not sm_90" "$TILEC" "${P[@]}" -s "$SIG" --cubin "sm_90:$T/add_sm_80.cubin"
fails "bad arch name" "'sm_x' is not an arch" "$TILEC" "${P[@]}" -s "$SIG" --cubin "sm_x:$T/add_sm_80.cubin"
fails "two cubins, one arch" "a second cubin for sm_80" "$TILEC" "${P[@]}" -s "$SIG" --cubin "$T/add_sm_80.cubin" --cubin "$T/add_sm_80.cubin"
fails "not a cubin" "not a cubin" "$TILEC" "${P[@]}" -s "$SIG" --cubin "$FIX/add.ptx"
fails "not ptx" "no '.target sm_XX' line" "$TILEC" "${P[@]}" -s "$SIG" --ptx "$FIX/triton/add_kernel.json"
fails "param count" "entry 'add_kernel' takes 6 parameters, the signature gives 4" "$TILEC" "${P[@]}" -s "$SIG" --ptx "$FIX/triton/add_kernel.ptx"
fails "symbol" "no kernel 'other' in it" "$TILEC" "${P[@]}" -s "$SIG" --symbol other --ptx "$FIX/add.ptx"
fails "names count" "3 names for 4 parameters" "$TILEC" "${P[@]}" -s "$SIG" --param-names a,b,c --ptx "$FIX/add.ptx"
fails "no signature" "no signature: give -s" "$TILEC" "${P[@]}" --ptx "$FIX/add.ptx"
fails "no input" "no input: give --cubin, --ptx or --triton" "$TILEC" "${P[@]}" -s "$SIG"
fails "option order" "-s: error: comes before the first -n KERNEL" "$TILEC" pack -o "$T/errout/x" -s "$SIG" -n k
fails "unknown option" "--frob: error: unknown option" "$TILEC" "${P[@]}" -s "$SIG" --frob 1
fails "pack --tuning" "--tuning: error: tilec pack makes kernels of one config, which have no tuning table: compile the @triton.autotune kernel with \`tilec compile ... --tuning t.tuning\`" \
	"$TILEC" "${P[@]}" -s "$SIG" --tuning t.tuning
fails "bad warps" "-w: error: '0' is not an integer in 1..32" "$TILEC" "${P[@]}" -s "$SIG" -w 0 --ptx "$FIX/add.ptx"
fails "variant types" "a second variant of 'add_kernel' with other parameter types" "$TILEC" "${P[@]}" -s "$SIG" --ptx "$FIX/add.ptx" -n add_kernel -s '*fp16, *fp32, *fp32, i32' --ptx "$FIX/add.ptx"
fails "c name" "'2x' is not a C identifier" "$TILEC" "${P[@]}" --name 2x -s "$SIG" --ptx "$FIX/add.ptx"
printf '{"name": "add_kernel", "num_warps": 4,\n "target": {"arch": 90,}}' >"$T/cache/bad.json"
cp "$T/cache/add_kernel.cubin" "$T/cache/bad.cubin"
fails "bad json" "bad.json:2:24: error: expected a string key" "$TILEC" "${P[@]}" -s "$SIG" --triton "$T/cache/bad.json"
printf '{"name": "add_kernel", "num_warps": 4.5, "target": {"arch": 90}}' >"$T/cache/bad.json"
fails "json field" "'num_warps' must be an integer in 1..32" "$TILEC" "${P[@]}" -s "$SIG" --triton "$T/cache/bad.json"
printf '{"name": "add_kernel", "num_warps": 4, "target": {"arch": 80}, "global_scratch_size": 0}' >"$T/cache/bad.json"
fails "json arch" "the cubin is for sm_90, not sm_80" "$TILEC" "${P[@]}" -s "$SIG" --triton "$T/cache/bad.json"
printf '{"name": "add_kernel", "num_warps": 4, "target": {"arch": 90}, "global_scratch_size": 128}' >"$T/cache/bad.json"
fails "json scratch" "needs 128 bytes of global scratch memory" "$TILEC" "${P[@]}" -s "$SIG" --triton "$T/cache/bad.json"
if [ -z "$(ls -A "$T/errout")" ]; then ok; else bad "files left behind after errors: $(ls "$T/errout")"; fi
# a failing pack leaves earlier outputs as they were
cp "$T/vadd.tileblob" "$T/keep.tileblob"
fails "fails over old output" "cannot open" "$TILEC" pack -o "$T/vadd" -n add_kernel -s "$SIG" --ptx "$T/nope.ptx"
check "old output kept" cmp "$T/vadd.tileblob" "$T/keep.tileblob"

# ---- inspect refuses bad input
cp "$T/vadd.tileblob" "$T/corrupt.tileblob"
printf '\x07' | dd of="$T/corrupt.tileblob" bs=1 seek=100 conv=notrunc 2>/dev/null
fails "inspect corrupt" "error: bad blob: blob checksum mismatch" "$TILEC" inspect "$T/corrupt.tileblob"
head -c 40 "$T/vadd.tileblob" >"$T/short.tileblob"
fails "inspect truncated" "error: bad blob:" "$TILEC" inspect "$T/short.tileblob"
fails "inspect not a blob" "neither a tile blob nor a C file generated by tilec" "$TILEC" inspect "$FIX/add.ptx"
sed 's/0x54, 0x49/0x54, 0x4049/' "$T/vadd.c" >"$T/badarray.c"
fails "inspect bad array" "is not a number 0..255" "$TILEC" inspect "$T/badarray.c"

echo "test_pack: $pass passed, $fail failed"
[ "$fail" = 0 ]
