#!/usr/bin/env bash
# test_targets.sh - targets newer than LLVM's NVPTX back end knows, arch
# presets, and depfiles. An sm_100/sm_110/sm_120 cubin is ptxas's work on
# sm_90 PTX: the blob must list the real archs, the PTX must say
# .target sm_90 and still use mma.sync for dots, and nothing from LLVM may
# reach stderr (it prints "not a recognized processor" when handed a CPU it
# does not know). Depfiles: `--depfile` lists every file a compile read,
# the manifest included, by absolute path. Needs ptxas (as the CI machine
# has); without it the cubin checks fail rather than pass vacuously.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
K=$ROOT/tests/kernels
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# compiles NAME ARGS...: tilec compile succeeds with an empty stderr
compiles() {
	local n=$1; shift
	if "$TILEC" compile "$@" >"$T/out" 2>"$T/err" && [ ! -s "$T/err" ]; then ok; else bad "$n:"; head -20 "$T/err"; fi
}
has() { if grep -qE -- "$3" "$2"; then ok; else bad "$1: /$3/ not in $2"; head -30 "$2"; fi; }
hasnt() { if grep -qE -- "$3" "$2"; then bad "$1: /$3/ in $2"; grep -E -- "$3" "$2" | head -5; else ok; fi; }

MMSIG='*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
MM=(-n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8
	-g 'cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)')

# 1. sm_100, sm_110, sm_120 (and 103, 121): cubins, stderr empty
compiles "matmul for Blackwell and Thor" "$K/matmul.py" "${MM[@]}" --arch sm_100,sm_103,sm_110,sm_120,sm_121 \
	-o "$T/mm" --keep-ptx "$T/ptx"
"$TILEC" inspect "$T/mm.c" >"$T/inspect" 2>&1
for a in 100 103 110 120 121; do
	has "image table: cubin sm_$a" "$T/inspect" "^image [0-9]+: group 0, cubin sm_$a, "
done
has "the PTX image is for the lowest arch" "$T/inspect" "^image 5: group 0, ptx sm_100, "
hasnt "no other image" "$T/inspect" "^image 6:"
has "sm_100's cubin comes from sm_90 PTX" "$T/ptx/mm.sm_100.ptx" "^\.target sm_90$"
has "sm_120's too" "$T/ptx/mm.sm_120.ptx" "^\.target sm_90$"
has "dots on sm_100 run mma.sync" "$T/ptx/mm.sm_100.ptx" "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32"
hasnt "no wgmma on sm_120" "$T/ptx/mm.sm_120.ptx" "wgmma"

# 2. presets
compiles "--arch orin,thor" "$K/vector_add.py" -n add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, 1024' \
	--arch orin,thor -o "$T/va"
"$TILEC" inspect "$T/va.c" >"$T/inspect" 2>&1
has "orin is sm_87" "$T/inspect" "^image 0: group 0, cubin sm_87, "
has "thor is sm_110" "$T/inspect" "^image 1: group 0, cubin sm_110, "
has "the PTX for orin,thor is compute_87" "$T/inspect" "^image 2: group 0, ptx sm_87, "
compiles "--arch hopper,blackwell" "$K/vector_add.py" -n add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, 1024' \
	--arch hopper,blackwell --no-ptx -o "$T/hb"
"$TILEC" inspect "$T/hb.c" >"$T/inspect" 2>&1
# (hopper is sm_90, which brings sm_90a; a vector add uses no wgmma, so the
# blob keeps sm_90's cubin and leaves the same code for sm_90a out)
has "hopper, blackwell: three cubins" "$T/inspect" "^image 0: group 0, cubin sm_90, .*"
hasnt "... no sm_90a" "$T/inspect" "sm_90a"
has "... sm_100" "$T/inspect" "^image 1: group 0, cubin sm_100, "
has "... sm_120" "$T/inspect" "^image 2: group 0, cubin sm_120, "
hasnt "... and no PTX" "$T/inspect" "^image 3"
"$TILEC" compile --help >"$T/help" 2>&1
has "--help names the presets" "$T/help" "orin \(sm_87\), thor \(sm_110\), hopper \(sm_90\),"
"$TILEC" compile "$K/vector_add.py" -n add_kernel -s '*fp32, *fp32, *fp32, i32, 1024' --arch volta -o "$T/x" \
	>/dev/null 2>"$T/err"
has "an unknown preset is an error that lists them" "$T/err" "'volta' is not sm_XX, sm_90a, compute_XX or a preset"
"$TILEC" compile "$K/vector_add.py" -n add_kernel -s '*fp32, *fp32, *fp32, i32, 1024' --arch hopper,sm_90 -o "$T/x" \
	>/dev/null 2>"$T/err"
has "a preset overlapping an arch is a duplicate" "$T/err" "'sm_90' is listed twice"
# sm_120's shared memory is Ada's (99 KB): a config over it is refused there only
"$TILEC" compile "$K/matmul.py" -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 \
	-D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -ns 4 -g 1 --arch sm_100,sm_120 -o "$T/big" >/dev/null 2>"$T/err"
has "sm_120's 99 KB limit applies" "$T/err" "more than a block may have on sm_120 \(101376\)"
# Orin (sm_87) has A100's 163 KB a block, sm_86 99 KB: the same config
"$TILEC" compile "$K/matmul.py" -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 \
	-D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 8 -ns 4 -g 1 --arch orin -o "$T/big87" -v >"$T/out" 2>"$T/err"
has "144 KB of rings fit a block on sm_87" "$T/out" "matmul_kernel_0: sm_87: .*, 147456 dynamic"
"$TILEC" compile "$K/matmul.py" -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 \
	-D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 8 -ns 4 -g 1 --arch sm_86 -o "$T/big86" >/dev/null 2>"$T/err"
has "... and not on sm_86" "$T/err" "more than a block may have on sm_86 \(101376\)"

# 3. depfiles
mkdir -p "$T/dep dir"
cp "$K/vector_add.py" "$K/softmax.py" "$T/dep dir/"
cat >"$T/dep dir/m.txt" <<'M'
vector_add.py add_kernel "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
softmax.py softmax_kernel "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024" -g n_rows
M
(cd "$T" && "$TILEC" compile -m "dep dir/m.txt" -o gen --arch sm_80 --depfile gen.d >"$T/out" 2>"$T/err") &&
	[ ! -s "$T/err" ] && ok || { bad "manifest with --depfile"; head "$T/err"; }
has "the depfile's targets are the outputs" "$T/gen.d" "^gen\.c gen\.h: "
has "it lists the manifest by absolute path, blanks escaped" "$T/gen.d" "^  $T/dep\\\\ dir/m\.txt( \\\\)?$"
has "... and each kernel file" "$T/gen.d" "^  $T/dep\\\\ dir/vector_add\.py( \\\\)?$"
has "... both" "$T/gen.d" "^  $T/dep\\\\ dir/softmax\.py( \\\\)?$"
[ "$(grep -c '^  ' "$T/gen.d")" = 3 ] && ok || bad "three dependencies, each once: $(cat "$T/gen.d")"
# Make reads it: touching a kernel makes the outputs out of date
printf 'all: gen.c\ninclude gen.d\ngen.c:\n\t@echo rebuilt\n' >"$T/Makefile"
(cd "$T" && make -q all) && ok || bad "make finds gen.c up to date after the compile"
sleep 1; touch "$T/dep dir/softmax.py"
(cd "$T" && make -q all) && bad "make should rebuild gen.c after softmax.py changed" || ok
"$TILEC" compile "$T/nope.py" -n k -s 'i32' -o "$T/nope" --depfile "$T/nope.d" >/dev/null 2>&1
[ ! -e "$T/nope.d" ] && ok || bad "a failed compile writes no depfile"

echo "test_targets: $pass passed, $fail failed"
[ "$fail" = 0 ]
