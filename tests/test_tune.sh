#!/usr/bin/env bash
# test_tune.sh - autotuned kernels end to end on the CPU: `tilec compile`
# with every config (and --config lists), the dispatch key from autotune's
# key, notes for host-only arguments, `--tuning FILE` embedding a table
# (shown sorted by `tilec inspect`) and its errors at file:line:col, the
# file's kernel identity (tile_kernel_identity, shown by `tilec inspect`)
# checked against the blob's: a file measured on another build of the
# kernel with as many configs (other signatures, configs in another
# order, another constexpr), or a version 1 file without identity, is
# refused; configs that do not fit in shared memory left out of `all`
# (renumbered, and the tuning file counted against what is left) or
# refused, then
# tools/tile-tune/tile_tune.c built from tile.h and the generated C (C11, -Wall
# -Wextra -Werror) and its argument errors (no GPU here: the driver part
# runs on the GPU machine, bench/tune/run.sh).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local n=$1; shift; if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$n"; head -20 "$T/err"; fi; }
has() { if grep -qF -- "$3" "$2"; then ok; else bad "$1: '$3' not in $2"; head -40 "$2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then bad "$1: '$3' in $2"; else ok; fi; }
# the identity tilec inspect prints for the autotuned kernel of a blob's .c
ident() { "$TILEC" inspect "$1" 2>/dev/null | sed -n 's/^  configs .*; identity \([0-9a-f]\{16\}\)$/\1/p' | head -n 1; }
fails() {
	local n=$1 text=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc = 1 ] && grep -qF -- "$text" "$T/err"; then ok; else bad "$n: rc $rc, stderr:"; head -10 "$T/err"; fi
}

cat >"$T/k.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[
    triton.Config({"BLOCK": 128}, num_warps=4),
    triton.Config({"BLOCK": 256}, num_warps=4),
    triton.Config({"BLOCK": 512}, num_warps=8, num_ctas=2, maxnreg=128, pre_hook=lambda nargs: None),
], key=["n", "x_ptr", "BLOCK"], prune_configs_by={"early_config_prune": None}, reset_to_zero=["out_ptr"])
@triton.jit
def scale(x_ptr, out_ptr, n, m, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@triton.jit
def plain(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)
PY
SIG=(--no-hint-variants -n scale -s "*fp32:16, *fp32:16, i32, i64" -s "*fp32:16, *fp32:16, i32:16, i64" -g "cdiv(n, BLOCK)" --arch sm_80)

# all configs, two specializations each
check "compile all" "$TILEC" compile "$T/k.py" "${SIG[@]}" -o "$T/all"
has "note prune" "$T/err" "autotune's prune_configs_by is host Python and is ignored"
has "note pointer key" "$T/err" "autotune key 'x_ptr' is a pointer"
has "note constexpr key" "$T/err" "autotune key 'BLOCK' is not a runtime parameter"
has "note num_ctas" "$T/err" "num_ctas=2 is compiled as one CTA per program: no target has thread block clusters (sm_90 and newer)"
hasnt "no maxnreg note" "$T/err" "maxnreg is not applied"
has "note pre_hook" "$T/err" "autotune config 2: its pre_hook (Python, run before each launch) is not run: what it does to the arguments, the caller must do"
check "inspect all" "$TILEC" inspect "$T/all.c"
has "configs" "$T/out" "configs 3; tuning key n; default config 0; 0 entries"
has "config 2 variant" "$T/out" "config 2 (autotune config 2)"
has "reset_to_zero" "$T/out" "param 1 out_ptr: *fp32 (reset_to_zero)"
[ "$(grep -c '^  variant' "$T/out")" = 6 ] && ok || bad "6 variants"

# maxnreg: the config's value reaches ptxas as .maxnreg (its report shows
# the bound kept), the command line's overrides it, others have none
check "compile maxnreg" "$TILEC" compile "$T/k.py" "${SIG[@]}" -o "$T/mr" -v --keep-ptx "$T/mrptx"
[ "$(grep -c '^\.maxnreg 128$' "$T/mrptx/mr.sm_80.ptx")" = 2 ] && ok || bad "config 2's two variants have .maxnreg 128"
[ "$(grep -c '^\.maxnreg' "$T/mrptx/mr.sm_80.ptx")" = 2 ] && ok || bad "configs 0 and 1 have no .maxnreg"
check "compile --maxnreg" "$TILEC" compile "$T/k.py" "${SIG[@]}" --maxnreg 32 -o "$T/mr32" -v --keep-ptx "$T/mr32ptx"
[ "$(grep -c '^\.maxnreg 32$' "$T/mr32ptx/mr32.sm_80.ptx")" = 6 ] && ok || bad "--maxnreg 32 on every variant"
if awk '/registers/ { if ($3 > 32) bad = 1 } END { exit bad }' "$T/err"; then ok; else bad "registers over 32:"; cat "$T/err"; fi
check "ir maxnreg" "$TILEC" ir "$T/k.py" -n scale -s "*fp32:16, *fp32:16, i32, i64" -c 2
has "ir header: the config's num_ctas splits the blocks" "$T/out" "num_warps=8 num_stages=3 num_ctas=2 maxnreg=128"
"$TILEC" compile "$T/k.py" "${SIG[@]}" --maxnreg 16 -o "$T/x" 2>"$T/err"
[ $? = 2 ] && grep -qF -- "--maxnreg wants registers per thread from 24 to 255, not '16'" "$T/err" && ok || bad "--maxnreg 16 is a usage error"
# on a manifest line, not beside -m
printf '%s\n' "k.py scale \"*fp32:16, *fp32:16, i32, i64\" -g \"cdiv(n, BLOCK)\" --config 0 --maxnreg 40" >"$T/m.txt"
check "manifest --maxnreg" "$TILEC" compile --no-hint-variants -m "$T/m.txt" -o "$T/mm" --arch sm_80 --keep-ptx "$T/mmptx"
[ "$(grep -c '^\.maxnreg 40$' "$T/mmptx/mm.sm_80.ptx")" = 1 ] && ok || bad "a manifest line's --maxnreg 40"
"$TILEC" compile -m "$T/m.txt" -o "$T/mm" --arch sm_80 --maxnreg 40 2>"$T/err"
[ $? = 2 ] && grep -qF -- "kernel options (-D, --bind, -g, -w, -ns, -nc, --maxnreg, -on, --config) go on manifest lines" "$T/err" && ok || bad "--maxnreg beside -m"
sed 's/maxnreg=128/maxnreg=256/' "$T/k.py" >"$T/k256.py"
fails "config maxnreg range" "maxnreg must be an int from 24 to 255" "$TILEC" compile "$T/k256.py" "${SIG[@]}" -o "$T/x"
sed 's/maxnreg=128/maxnreg="a"/' "$T/k.py" >"$T/kstr.py"
fails "config maxnreg type" "maxnreg must be an int from 24 to 255" "$TILEC" compile "$T/kstr.py" "${SIG[@]}" -o "$T/x"

# a subset: configs 0 and 2 of the source become 0 and 1
check "compile subset" "$TILEC" compile "$T/k.py" "${SIG[@]}" --config 2,0 -o "$T/sub"
check "inspect subset" "$TILEC" inspect "$T/sub.c"
has "subset configs" "$T/out" "configs 2; tuning key n"
has "subset order" "$T/out" "config 0 (autotune config 2)"
fails "config range" "--config 3: 'scale' has 3 autotune configs" "$TILEC" compile "$T/k.py" "${SIG[@]}" --config 0,3 -o "$T/x"
fails "config twice" "--config lists config 1 twice" "$TILEC" compile "$T/k.py" "${SIG[@]}" --config 1,1 -o "$T/x"
fails "config syntax" "--config wants all, N or N,M,..." "$TILEC" compile "$T/k.py" "${SIG[@]}" --config 1,x -o "$T/x"
fails "config plain" "--config 0: 'plain' has no @triton.autotune configs" \
	"$TILEC" compile "$T/k.py" -n plain -s "*fp32, i32" -D BLOCK=64 --config 0 --arch sm_80 -o "$T/x"
# one config: a plain kernel, as before
check "compile one" "$TILEC" compile "$T/k.py" "${SIG[@]}" --config 1 -o "$T/one"
check "inspect one" "$TILEC" inspect "$T/one.c"
hasnt "one: no table" "$T/out" "configs"
has "one: source config" "$T/out" "(autotune config 1)"

# a tuning file embedded: measured on the blob compiled with the same
# options (all.c), whose identity it carries
ID=$(ident "$T/all.c")
[ ${#ID} = 16 ] && ok || bad "inspect prints the identity: '$ID'"
cat >"$T/good.tuning" <<TXT
# measured elsewhere
tile-tuning 2
kernel scale identity $ID configs 3 key n default 2
1048576 1   # c0 c1 c2 times
4096 0
65536 2
TXT
check "compile tuned" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/good.tuning" -o "$T/tuned"
check "inspect tuned" "$TILEC" inspect "$T/tuned.c"
has "tuned header" "$T/out" "configs 3; tuning key n; default config 2; 3 entries"
sed -n '/tuning key/,/variant 0/p' "$T/out" | grep -- '->' >"$T/entries"
printf '    n=4096 -> config 0\n    n=65536 -> config 2\n    n=1048576 -> config 1\n' >"$T/want"
cmp -s "$T/entries" "$T/want" && ok || { bad "entries sorted"; cat "$T/entries"; }
[ "$(ident "$T/tuned.c")" = "$ID" ] && ok || bad "the embedded table changed the identity: $(ident "$T/tuned.c") against $ID"
# files of other builds of scale, with as many configs: one signature, the
# configs in another order, another BLOCK for every config
check "compile one signature" "$TILEC" compile "$T/k.py" -n scale -s "*fp32:16, *fp32:16, i32, i64" -g "cdiv(n, BLOCK)" \
	--arch sm_80 -o "$T/onesig"
check "compile reordered" "$TILEC" compile "$T/k.py" "${SIG[@]}" --config 2,1,0 -o "$T/reord"
sed 's/"BLOCK": 512/"BLOCK": 1024/' "$T/k.py" >"$T/k1024.py"
check "compile another BLOCK" "$TILEC" compile "$T/k1024.py" "${SIG[@]}" -o "$T/b1024"
for other in onesig reord b1024; do
	OID=$(ident "$T/$other.c")
	[ ${#OID} = 16 ] && [ "$OID" != "$ID" ] && ok || bad "$other: identity '$OID', the same as all's ($ID)?"
	sed "s/identity $ID/identity $OID/" "$T/good.tuning" >"$T/$other.tuning"
	fails "tuned for $other" "$other.tuning:3:23: error: kernel scale was tuned for identity $OID; this blob's kernel scale is $ID (other configs, signatures or constexprs): re-run tile-tune with a blob of this build" \
		"$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/$other.tuning" -o "$T/x"
done
# ... each accepted by the build it was measured on
check "reordered file on its build" "$TILEC" compile "$T/k.py" "${SIG[@]}" --config 2,1,0 --tuning "$T/reord.tuning" -o "$T/reordt"
# version 1 (no identity) and a kernel line without one
printf 'tile-tuning 1\nkernel scale configs 3 key n default 2\n' >"$T/v1.tuning"
fails "version 1" "v1.tuning:1:1: error: a version 1 tuning file ('tile-tuning 1') does not record the identity of the blob it was tuned for: re-run tile-tune with a blob of this build (tilec reads 'tile-tuning 2')" \
	"$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/v1.tuning" -o "$T/x"
printf 'tile-tuning 2\nkernel scale configs 3 key n default 2\n' >"$T/noid.tuning"
fails "no identity" "noid.tuning:2:1: error: a kernel line needs identity H" \
	"$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/noid.tuning" -o "$T/x"
printf 'tile-tuning 2\nkernel scale identity 12g4 configs 3 key n default 2\n' >"$T/badid.tuning"
fails "bad identity" "badid.tuning:2:14: error: unknown or bad field 'identity 12g4'" \
	"$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/badid.tuning" -o "$T/x"
# errors
tf() { printf 'tile-tuning 2\n%b' "$1" | sed "s/^kernel \([a-z]*\) /kernel \1 identity $ID /" >"$T/bad.tuning"; }
tf 'kernel scale configs 2 key n default 0\n'
fails "tuned configs" "bad.tuning:2:1: error: kernel scale was tuned with 2 configs; this blob compiles 3" \
	"$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
tf 'kernel other configs 3 key n default 0\n'
fails "tuned other" "names kernel other, which this blob has not" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
tf 'kernel scale configs 3 key m,x_ptr default 0\n'
fails "tuned key" "tuning key 'x_ptr' is not an integer parameter" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
tf 'kernel scale configs 3 key n default 0\n5 1\n5 2\n'
fails "tuned duplicate" "two entries for one key" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
tf 'kernel scale configs 3 key n default 0\n5 3\n'
fails "tuned config range" "bad.tuning:3:3: error: config 3; kernel scale has 3" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
tf 'kernel scale configs 3 key n default 0\n5 x1\n'
fails "tuned int" "bad.tuning:3:3: error: 'x1' is not an integer" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
tf 'kernel scale configs 3 default 0\n'
fails "tuned fields" "needs configs N, key P1,P2,... (or -) and default D" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
printf 'tile-tuning 7\n' >"$T/bad.tuning"
fails "tuned header" "bad.tuning:1:1: error: expected 'tile-tuning 2'" "$TILEC" compile "$T/k.py" "${SIG[@]}" --tuning "$T/bad.tuning" -o "$T/x"
[ ! -e "$T/x.c" ] && ok || bad "a failed compile wrote x.c"

# heuristics that read runtime arguments: evaluated at launch
cat >"$T/h.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_K": 32}), triton.Config({"BLOCK_K": 64})], key=["K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0,
                    "TWICE": lambda args: args["BLOCK_K"] * 2,
                    "SPLIT": lambda args: min(triton.next_power_of_2(args["K"]) // 1024, 4)})
@triton.jit
def rowsum(x_ptr, out_ptr, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr, TWICE: tl.constexpr, SPLIT: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        if EVEN_K:
            acc += tl.load(x_ptr + row * K + offs)
        else:
            acc += tl.load(x_ptr + row * K + offs, mask=offs < K, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0) * SPLIT)


@triton.heuristics({"BIG": lambda args: args["n"] > 100 if args["n"] else False})
@triton.jit
def cond(x_ptr, n, BIG: tl.constexpr):
    tl.store(x_ptr, BIG)
PY
HS=(--no-hint-variants -n rowsum -s "*fp32:16, *fp32:16, i32" -g "1024" --arch sm_80)
fails "heuristic values needed" "the heuristic for \`SPLIT\` reads runtime arguments and is not True/False valued" \
	"$TILEC" compile "$T/h.py" "${HS[@]}" -o "$T/x"
check "compile heuristics" "$TILEC" compile "$T/h.py" "${HS[@]}" -D SPLIT=1,2,4 -o "$T/heur"
check "inspect heuristics" "$TILEC" inspect "$T/heur.c"
has "heuristic EVEN_K" "$T/out" "heuristic EVEN_K = K % BLOCK_K == 0 (at launch)"
has "heuristic SPLIT" "$T/out" "heuristic SPLIT = min(next_power_of_2(K) // 1024, 4) (at launch)"
hasnt "TWICE folds" "$T/out" "heuristic TWICE"
[ "$(grep -c '^  variant' "$T/out")" = 12 ] && ok || bad "2 configs x 2 EVEN_K x 3 SPLIT = 12 variants"
has "a variant's values" "$T/out" "constexprs: BLOCK_K=64, EVEN_K=True, TWICE=128, SPLIT=4"
check "heuristic fixed" "$TILEC" compile "$T/h.py" "${HS[@]}" -D EVEN_K=True -D SPLIT=2 -o "$T/fixed"
check "inspect fixed" "$TILEC" inspect "$T/fixed.c"
hasnt "fixed: no heuristic" "$T/out" "(at launch)"
[ "$(grep -c '^  variant' "$T/out")" = 2 ] && ok || bad "fixed: 2 variants"
fails "heuristic construct" "where this expression is not supported" \
	"$TILEC" compile "$T/h.py" -n cond -s "*i32, i32" --arch sm_80 -o "$T/x"

# configs whose shared memory does not fit a target: left out of `all`
cat >"$T/mm.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=3, num_warps=4),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 128}, num_stages=5, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=2, num_warps=4),
], key=["M", "N", "K"])
@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))
PY
MS=(--no-hint-variants -n mm -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16" -s "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32"
	-g "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)" --arch sm_80)
check "compile: a config too big is left out" "$TILEC" compile "$T/mm.py" "${MS[@]}" -o "$T/mm"
has "left-out warning" "$T/err" "mm.py:11:5: warning: 'mm': autotune config 1 (BLOCK_M=256, BLOCK_N=256, BLOCK_K=128, num_warps=8, num_stages=5) needs 524288 bytes of shared memory, more than a block may have on sm_80 (166912): left out of the blob"
[ "$(grep -c 'warning:' "$T/err")" = 1 ] && ok || bad "one warning for the config, not one per variant"
check "inspect left out" "$TILEC" inspect "$T/mm.c"
has "two configs left" "$T/out" "configs 2; tuning key M,N,K; default config 0; 0 entries"
has "config 1 is autotune config 2" "$T/out" "config 1 (autotune config 2)"
hasnt "autotune config 1 gone" "$T/out" "(autotune config 1)"
[ "$(grep -c '^  variant' "$T/out")" = 4 ] && ok || bad "left out: 2 configs x 2 specializations"
# the tuning file counts the blob's configs
MMID=$(ident "$T/mm.c")
printf 'tile-tuning 2\nkernel mm identity %s configs 3 key M,N,K default 0\n' "$MMID" >"$T/mm3.tuning"
fails "tuned before leaving out" "kernel mm was tuned with 3 configs; this blob compiles 2 (--config; 1 left out for shared memory)" \
	"$TILEC" compile "$T/mm.py" "${MS[@]}" --tuning "$T/mm3.tuning" -o "$T/x"
printf 'tile-tuning 2\nkernel mm identity %s configs 2 key M,N,K default 1\n3000 3000 3000 1\n' "$MMID" >"$T/mm2.tuning"
check "tuned after leaving out" "$TILEC" compile "$T/mm.py" "${MS[@]}" --tuning "$T/mm2.tuning" -o "$T/mmt"
check "inspect tuned left out" "$TILEC" inspect "$T/mmt.c"
has "tuned left out entry" "$T/out" "M=3000 N=3000 K=3000 -> config 1"
# chosen, or none left: errors
fails "--config N too big" "kernel 'mm_0' (BLOCK_M=256, BLOCK_N=256, BLOCK_K=128, num_warps=8, num_stages=5) needs 524288 bytes" \
	"$TILEC" compile "$T/mm.py" "${MS[@]}" --config 1 -o "$T/x"
fails "--config list too big" "kernel 'mm_1' (BLOCK_M=256" "$TILEC" compile "$T/mm.py" "${MS[@]}" --config 0,1 -o "$T/x"
fails "none fits" "error: 'mm': none of its 3 autotune configs fits in shared memory on every target (--arch)" \
	"$TILEC" compile "$T/mm.py" "${MS[@]}" -D BLOCK_K=512 -ns 4 -o "$T/x"
[ "$(grep -c 'left out of the blob' "$T/err")" = 3 ] && ok || bad "none fits: a warning per config"
[ ! -e "$T/x.c" ] && ok || bad "a failed compile wrote x.c"

# tile-tune from tile.h and the generated C
CC=${CC:-cc}
check "build tile-tune" $CC -O1 -std=c11 -Wall -Wextra -Werror -I. -I"$T" -DTILE_TUNE_BLOB=tuned tools/tile-tune/tile_tune.c "$T/tuned.c" \
	-ldl -lpthread -lm -o "$T/tile-tune"
check "tile-tune --help" "$T/tile-tune" --help
has "help" "$T/out" "--key NAME=V"
fails "tile-tune no shape" "no shape: give --key" "$T/tile-tune"
fails "tile-tune bad arg" "--arg nope=1: the kernel has no such parameter" "$T/tile-tune" --key n=4096 --arg nope=1
fails "tile-tune no driver" "cannot open the CUDA driver" env TILE_TUNE_LIBCUDA=$T/none.so "$T/tile-tune" --key n=4096 --arg x_ptr=n --arg out_ptr=n --arg m=1

echo "test_tune: $pass passed, $fail failed"
[ "$fail" = 0 ]
