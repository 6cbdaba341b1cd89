#!/usr/bin/env bash
# test_capture.sh - tile-capture (tools/tile-capture, docs/CAPTURE.md) on the
# CPU, with no Triton, torch or GPU: programs in tools/tile-capture/tests/apps
# launch kernels of the repository (tests/kernels, bench/tune) through a fake
# Triton and torch (tools/tile-capture/tests/fake), and the manifests they
# give are checked line by line and compiled with tilec:
#  - signatures with Triton's :16/:1 hints, most specialized first; launch
#    functions per dtype; constexprs, -w/-ns; grids from lambdas over META,
#    from the call site and from module globals; do_not_specialize;
#  - an autotune list tilec reads (no -D, the picks in the tuning file, the
#    identities filled in by --tilec and accepted by tilec compile --tuning),
#    autotune applied by host code (a launch function per config),
#    heuristics evaluated at launch;
#  - kernels as Inductor writes them, launched through CachingAutotuner: the
#    sources copied beside the manifest, which compiles after the cache is
#    removed; a kernel tilec refuses, commented out with its error;
#  - --from a saved record gives the same manifest; the JSON record;
#  - error paths: a program that raises or exits, a kernel whose file is
#    gone, a grid tilec cannot express, None for a pointer, a function as
#    constexpr; usage errors; tile_capture.capture() in a program.
# Uses $TILEC (the sanitized tilec under build.sh) or build/tilec; without
# either, the compiles are skipped with a message. PYTHON=python3.9 runs it
# under another interpreter.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
PY=${PYTHON:-python3}
TC=$ROOT/tools/tile-capture
APPS=$TC/tests/apps
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PYTHONPATH=$TC:$TC/tests/fake
export PYTHONDONTWRITEBYTECODE=1
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
has() { # has DESCRIPTION FILE TEXT: TEXT is in FILE
	if grep -qF -- "$3" "$2"; then ok; else fail "$1: '$3' not in $2"; head -c 3000 "$2"; echo; fi
}
hasnt() { if grep -qF -- "$3" "$2"; then fail "$1: '$3' in $2"; else ok; fi; }
line() { # line DESCRIPTION FILE LINE: FILE has exactly this line
	if grep -qxF -- "$3" "$2"; then ok; else fail "$1: no line '$3' in $2"; grep -vE '^(#|$)' "$2" | head -20; fi
}
before() { # before DESCRIPTION FILE A B: the line holding A comes before the one holding B
	local a b
	a=$(grep -nF -- "$3" "$2" | head -n 1 | cut -d: -f1)
	b=$(grep -nF -- "$4" "$2" | head -n 1 | cut -d: -f1)
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; then ok; else fail "$1: '$3' (line $a) not before '$4' (line $b)"; fi
}
status() { # status DESCRIPTION WANT GOT
	if [ "$2" = "$3" ]; then ok; else fail "$1: exit status $3, want $2"; cat "$T/err" 2>/dev/null | tail -20; fi
}
capture() { "$PY" -m tile_capture "$@" >"$T/out" 2>"$T/err"; }
# src FILE DIR: FILE as a manifest in DIR names it: relative where the two
# share more than / (a checkout under /tmp beside mktemp's folder), else as is
src() { "$PY" -c 'import os, sys; p, d = sys.argv[1:]; print(p if os.path.commonpath([p, d]) == os.sep else os.path.relpath(p, d))' "$1" "$2"; }
ident() { "$TILEC" inspect "$1" 2>/dev/null | sed -n "/^kernel $2\$/,/^kernel /s/^  configs .*; identity \([0-9a-f]\{16\}\)\$/\1/p"; }

if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
	echo "test_capture: skipped: tile-capture needs python3 3.9 or newer"
	echo "test_capture: 0 passed, 0 failed"
	exit 0
fi
if [ ! -x "$TILEC" ]; then
	echo "test_capture: $TILEC not found: the manifests are checked but not compiled"
	TILEC=
fi
ARCH=(--arch compute_80) # PTX only: the compiles check the manifests, not the code

# --- the pieces: grids, heuristics, types and hints, names, inspect ---------
"$PY" "$TC/tests/test_units.py" >"$T/units" 2>&1
u=$(sed -n 's/^units: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$T/units")
if [ -n "$u" ]; then
	passed=$((passed + ${u% *}))
	failed=$((failed + ${u#* }))
	grep FAIL "$T/units"
else
	fail "test_units.py gave no result"
	tail -20 "$T/units"
fi

# --- kernels of the repository, the many ways programs launch them ---------
A=$T/a
capture -o "$A/kernels.manifest" --json "$A/record.json" --tuning "$A/tuning.txt" -- "$APPS/launches.py"
status "launches.py" 0 $?
M=$A/kernels.manifest
VA=$(src "$ROOT/tests/kernels/vector_add.py" "$A")
ADD='-D BLOCK_SIZE=1024 -g "cdiv(n_elements, BLOCK_SIZE)" -w 4 -ns 3'
line "vector_add, aligned" "$M" "$VA add_kernel \"*fp32:16, *fp32:16, *fp32:16, i32:16\" -on add_kernel_fp32 $ADD"
line "vector_add, n = 1000" "$M" "$VA add_kernel \"*fp32:16, *fp32:16, *fp32:16, i32\" -on add_kernel_fp32 $ADD"
line "vector_add, x[1:] views" "$M" "$VA add_kernel \"*fp32, *fp32, *fp32:16, i32\" -on add_kernel_fp32 $ADD"
line "vector_add, fp16" "$M" "$VA add_kernel \"*fp16:16, *fp16:16, *fp16:16, i32:16\" -on add_kernel_fp16 $ADD"
before "most specialized first" "$M" '"*fp32:16, *fp32:16, *fp32:16, i32:16"' '"*fp32:16, *fp32:16, *fp32:16, i32"'
before "most specialized first (views)" "$M" '"*fp32:16, *fp32:16, *fp32:16, i32"' '"*fp32, *fp32, *fp32:16, i32"'
has "shapes seen" "$M" "#   n_elements       i32        4096, 1000, 4095"
has "dtypes and shapes seen" "$M" "#   x_ptr            *fp32      float32[4096], float32[1000], float32[4095]"
MMSIG='"*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"'
MMGRID='-g "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"'
line "matmul, :1 strides" "$M" "$(src "$ROOT/tests/kernels/matmul.py" "$A") matmul_kernel $MMSIG -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 $MMGRID -w 4 -ns 3"
TM=$(src "$ROOT/bench/tune/matmul.py" "$A")
line "autotuned matmul: configs from the source" "$M" "$TM matmul_kernel $MMSIG -on matmul_kernel_2 $MMGRID"
line "autotuned matmul, K = 200" "$M" "$TM matmul_kernel \"*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32, i32, i32:1, i32:16, i32:1, i32:16, i32:1\" -on matmul_kernel_2 $MMGRID"
has "autotune comment" "$M" "#   autotune: 8 configs, key M,N,K: compiled as tilec's autotune list, picks in the tuning file"
RS=$(src "$ROOT/bench/tune/rowsum.py" "$A")
line "rowsum: heuristic at launch, grid from the caller" "$M" "$RS rowsum_kernel \"*fp32:16, *fp32:16, i32:16\""
line "rowsum, K = 1000" "$M" "$RS rowsum_kernel \"*fp32:16, *fp32:16, i32\""
has "heuristic comment" "$M" "#   heuristic EVEN_K: evaluated at launch (tilec compiles both values)"
has "grid not expressed" "$M" '#   grid: the launch function takes grid_x, grid_y, grid_z: `M` is not passed to the kernel as an integer argument (Triton launched (64, 1, 1))'
line "smoothing: a float heuristic at launch" "$M" "$(src "$ROOT/tests/kernels/smoothing.py" "$A") smooth_kernel \"*fp32:16, *fp32:16, fp32, i32\" -D BLOCK=1024 -g \"cdiv(n, BLOCK)\" -w 4 -ns 3"
hasnt "no -D for heuristics tilec evaluates" "$M" "HAS_SMOOTHING="
hasnt "no -D for heuristics tilec evaluates" "$M" "EVEN_K="
has "autotune by host code" "$M" "autotune is applied by host code, not by a decorator in the source, so each config Triton picked is a launch function of its own"
has "config 0 as a launch function" "$M" "-D BLOCK_SIZE_M=32 -D BLOCK_SIZE_N=32 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 $MMGRID -w 4 -ns 3"
has "config 1 as a launch function" "$M" "-D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 $MMGRID -w 8 -ns 3"
EX=$(src "$APPS/extra_kernels.py" "$A")
line "do_not_specialize: n without :16" "$M" "$EX fill_kernel \"*fp32:16, i32, fp32\" -D BLOCK=1024 -g 4 -w 4 -ns 3"
line "a module global in the grid" "$M" "$EX strided_fill_kernel \"*fp32:16, i32:16\" -D BLOCK=256 -g 8 -w 4 -ns 3"
has "module global noted" "$M" "#   note: module global extra_kernels.NUM_PROGRAMS written as its value 8"
U=$A/tuning.txt
line "tuning: matmul" "$U" "kernel matmul_kernel_2 identity 0000000000000000 configs 8 key M,N,K default 2"
has "tuning: K = 200 took config 7" "$U" "256 384 200 7  # 1 launch: BLOCK_SIZE_K=32, BLOCK_SIZE_M=32, BLOCK_SIZE_N=64"
has "tuning: 512^3 took config 2, twice" "$U" "512 512 512 2  # 2 launches: BLOCK_SIZE_K=32, BLOCK_SIZE_M=128"
line "tuning: rowsum" "$U" "kernel rowsum_kernel identity 0000000000000000 configs 2 key K default 0"
has "tuning: rowsum K = 1024" "$U" "1024 1  # 1 launch: BLOCK_K=512"
has "tuning: rowsum K = 1000" "$U" "1000 0  # 1 launch: BLOCK_K=128"
has "tuning: how to fill the identity" "$U" "fill it in with tile-capture --from RECORD --tilec TILEC"
has "summary" "$T/err" "tile-capture: 16 launches of 8 kernels: 10 launch functions (14 variants) in $M"
"$PY" - "$A/record.json" >"$T/json" 2>&1 <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
k = {(x["name"], x["file"].split("/")[-2]): x for x in rec["kernels"]}
mm = k[("matmul_kernel", "tune")]
checks = [
    rec["tile_capture"] == 1 and rec["status"] == "ok" and len(rec["kernels"]) == 8,
    len(mm["autotune"]["configs"]) == 8 and mm["autotune"]["key"] == ["M", "N", "K"],
    mm["autotune"]["configs"][7] == {"kwargs": {"BLOCK_SIZE_M": "32", "BLOCK_SIZE_N": "64", "BLOCK_SIZE_K": "32",
                                                "GROUP_SIZE_M": "8"}, "num_warps": 2, "num_stages": 5,
                                     "num_ctas": 1, "maxnreg": None},
    sorted((s["config"], k2["values"]["K"], k2["count"]) for s in mm["specs"] for k2 in s["keys"])
    == [(2, 512, 2), (7, 200, 1)],
    k[("rowsum_kernel", "tune")]["heuristics"]["EVEN_K"]["mode"] == "launch-bool",
    k[("add_kernel", "kernels")]["specs"][0]["samples"][0]["args"][0] == {"dtype": "float32", "shape": [4096],
                                                                         "strides": [1]},
    k[("add_kernel", "kernels")]["specs"][0]["samples"][0]["grid"] == [4, 1, 1],
]
for i, c in enumerate(checks):
    print("json check %d: %s" % (i, "ok" if c else "FAIL"))
PY
n=$(grep -c ': ok$' "$T/json")
passed=$((passed + n))
if grep -q FAIL "$T/json" || [ "$n" != 7 ]; then fail "the JSON record"; cat "$T/json"; fi

# --- the same record again, with tilec: identities, the blob with --tuning --
B=$T/b
if [ -n "$TILEC" ]; then
	capture -o "$B/kernels.manifest" --tuning "$B/tuning.txt" --tilec "$TILEC" "${ARCH[@]}" --from "$A/record.json"
	status "--from with --tilec" 0 $?
	if cmp -s "$A/kernels.manifest" "$B/kernels.manifest"; then ok; else fail "--from: another manifest"; diff "$A/kernels.manifest" "$B/kernels.manifest" | head; fi
	if "$TILEC" compile -m "$B/kernels.manifest" --tuning "$B/tuning.txt" "${ARCH[@]}" -o "$B/blob" >"$T/cc" 2>&1; then ok; else fail "tilec compile -m --tuning"; head -20 "$T/cc"; fi
	for k in matmul_kernel_2 rowsum_kernel; do
		id=$(ident "$B/blob.c" $k)
		if [ -n "$id" ]; then has "identity of $k" "$B/tuning.txt" "kernel $k identity $id configs"; else fail "no identity for $k in the blob"; fi
	done
	"$TILEC" inspect "$B/blob.c" >"$T/inspect" 2>&1
	has "the table: K = 200" "$T/inspect" "M=256 N=384 K=200 -> config 7"
	has "the table: 512^3" "$T/inspect" "M=512 N=512 K=512 -> config 2"
	has "the table: rowsum" "$T/inspect" "K=1024 -> config 1"
	has "the table's default" "$T/inspect" "configs 8; tuning key M,N,K; default config 2; 2 entries"
	has "a heuristic at launch" "$T/inspect" "heuristic EVEN_K = K % BLOCK_K == 0 (at launch)"
	has "a grid from the caller" "$T/inspect" "grid: given by the caller"
	for k in add_kernel_fp32 add_kernel_fp16 matmul_kernel matmul_kernel_2 rowsum_kernel smooth_kernel fill_kernel strided_fill_kernel \
		matmul_kernel_BLOCK_SIZE_M_32_BLOCK_SIZE_N_32_w4 matmul_kernel_BLOCK_SIZE_M_64_BLOCK_SIZE_N_64_w8; do
		line "$k in the blob" "$T/inspect" "kernel $k"
	done
	# the placeholder identity is refused, naming the blob's
	if "$TILEC" compile -m "$A/kernels.manifest" --tuning "$A/tuning.txt" "${ARCH[@]}" -o "$A/blob" >"$T/cc" 2>&1; then
		fail "a tuning file without identities was accepted"
	else
		has "placeholder identity refused" "$T/cc" "was tuned for identity 0000000000000000"
	fi
fi

# --- kernels as Inductor writes them -----------------------------------------
C=$T/c
if [ -n "$TILEC" ]; then
	capture -o "$C/kernels.manifest" --json "$C/record.json" --tilec "$TILEC" "${ARCH[@]}" -- "$APPS/inductor.py" "$C/torchinductor_test"
	status "inductor.py" 0 $?
	M=$C/kernels.manifest
	line "pointwise" "$M" 'kernels.inductor/cpo3kq7wzvx2.py triton_poi_fused_add_maximum_sin_0 "*fp32:16, *fp32:16, *fp32:16, i32" -D XBLOCK=1024 -g "cdiv(xnumel, XBLOCK)" -w 4 -ns 1'
	line "looped reduction, the config Inductor launched" "$M" 'kernels.inductor/cre5m2hxy4tb.py triton_red_fused_sum_0 "*fp32:16, *fp32:16, i32:16, i32" -D XBLOCK=8 -D R0_BLOCK=64 -g "cdiv(xnumel, XBLOCK)" -w 2 -ns 1'
	has "generated-by comment" "$M" "generated by torch.compile (Inductor triton_red_fused_sum_0)"
	has "an autotuner restored from the cache is the same kernel" "$M" "# triton_red_fused_sum_0: 2 launches"
	S=$C/kernels.inductor/torch/_inductor/runtime/triton_compat.py
	for b in "from triton.language.extra import libdevice" "from triton.language import math" \
		"from triton import language as tl" "import triton" "builtins_use_semantic_kwarg = True"; do
		line "triton_compat stub: $b" "$S" "$b"
	done
	has "copies noted" "$M" "# sources torch.compile generated are copies in kernels.inductor"
	# amax: triton_helpers.maximum's combine function makes a block only to
	# ask its type, which tilec takes since it drops the unused block
	line "amax reduction over triton_helpers.maximum" "$M" 'kernels.inductor/cre5m2hxy4tb.py triton_per_fused_amax_exp_1 "*fp32:16, *fp32:16, i32:16, i32:16" -D XBLOCK=8 -g "cdiv(xnumel, XBLOCK)" -w 2 -ns 1'
	hasnt "nothing refused by tilec" "$M" "REFUSED by tilec"
	hasnt "no refusal summarized" "$T/err" "refused by tilec"
	for f in cpo3kq7wzvx2.py cre5m2hxy4tb.py torch/__init__.py torch/_inductor/__init__.py \
		torch/_inductor/runtime/__init__.py torch/_inductor/runtime/triton_helpers.py \
		torch/_inductor/runtime/triton_compat.py; do
		if [ -f "$C/kernels.inductor/$f" ]; then ok; else fail "no copy kernels.inductor/$f"; fi
	done
	if [ ! -e "$C/kernels.inductor/torch/_inductor/runtime/triton_heuristics.py" ]; then ok; else fail "host module copied"; fi
	rm -rf "$C/torchinductor_test"
	if "$TILEC" compile -m "$M" "${ARCH[@]}" -o "$C/blob" >"$T/cc" 2>&1; then ok; else fail "inductor manifest after the cache is gone"; head -20 "$T/cc"; fi
	capture -o "$C/again.manifest" --from "$C/record.json"
	status "--from after the cache is gone" 0 $?
	has "--from copies the earlier copies" "$C/again.manifest" 'again.inductor/cpo3kq7wzvx2.py triton_poi_fused_add_maximum_sin_0'
	hasnt "--from: nothing left out" "$C/again.manifest" "NOT COMPILED"
	if [ -f "$C/again.inductor/torch/_inductor/runtime/triton_helpers.py" ]; then ok; else fail "--from: helpers not copied"; fi
fi

# --- error paths -------------------------------------------------------------
E=$T/e
capture -o "$E/kernels.manifest" --json "$E/record.json" -- "$APPS/errors.py"
status "a program that raises" 1 $?
M=$E/kernels.manifest
VA=$(src "$ROOT/tests/kernels/vector_add.py" "$E")
EX=$(src "$APPS/extra_kernels.py" "$E")
has "its traceback" "$T/err" "RuntimeError: the program failed after its launches"
hasnt "the traceback starts in the program" "$T/err" "tile_capture/__main__.py"
has "noted in the manifest" "$M" "# the program raised RuntimeError: the program failed after its launches: the launches before it are here"
line "launches before it kept" "$M" "$VA add_kernel \"*fp32:16, *fp32:16, *fp32:16, i32:16\" $ADD"
has "a file that is gone" "$M" "# NOT COMPILED (1 launch): its source file"
has "a file that is gone (name)" "$M" "/gone_kernel.py no longer exists"
has "None for a pointer" "$M" '# NOT COMPILED (1 launch): None passed for runtime parameter `b_ptr`'
has "a function as constexpr" "$M" '# NOT COMPILED (1 launch): constexpr `FN` is a @triton.jit function (negate): -D takes literals and dtypes'
has "a grid tilec cannot express" "$M" '#   grid: the launch function takes grid_x, grid_y, grid_z: `x.numel()` is outside what a tilec grid expression holds'
line "its launch function takes the grid" "$M" "$EX bias_kernel \"*fp32:16, *fp32:16, i32:16\" -D BLOCK=1024 -w 4 -ns 3"
has "summary lists what is left out" "$T/err" "tile-capture: not compiled: scale_kernel ("
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["status"] != "raised RuntimeError: the program failed after its launches")' "$E/record.json"
status "status in the JSON" 0 $?
if [ -n "$TILEC" ]; then
	if "$TILEC" compile -m "$M" "${ARCH[@]}" -o "$E/blob" >"$T/cc" 2>&1; then ok; else fail "the manifest of a failed run"; head -20 "$T/cc"; fi
fi
capture -o "$E/exit.manifest" -- "$APPS/errors.py" exit
status "a program that exits 3" 3 $?
has "its exit noted" "$E/exit.manifest" "# the program exited with status 3: the launches before it are here"

# --- usage -------------------------------------------------------------------
capture -o "$T/u.manifest"
status "neither program nor record" 2 $?
has "usage message" "$T/err" "give a program after -- or a record with --from"
capture -o "$T/u.manifest" --from "$T/none.json"
status "a missing record" 2 $?
has "missing record named" "$T/err" "cannot read $T/none.json"
(cd "$APPS" && PYTHONPATH=$PYTHONPATH:$APPS "$PY" -m tile_capture -o "$T/m/kernels.manifest" -- -m launches >"$T/out" 2>"$T/err")
status "-- -m MODULE" 0 $?
has "-m runs the module" "$T/m/kernels.manifest" '-on add_kernel_fp16'
if ! PYTHONPATH=$TC "$PY" -c 'import triton' 2>/dev/null; then
	PYTHONPATH=$TC "$PY" -m tile_capture -o "$T/n.manifest" -- "$APPS/launches.py" >"$T/out" 2>"$T/err"
	status "no triton" 2 $?
	has "no triton: said so" "$T/err" "tile-capture: cannot import triton"
fi

# --- tile_capture.capture() inside a program ---------------------------------
"$PY" "$APPS/context.py" "$T/x/kernels.manifest" "$T/x/record.json" >"$T/out" 2>"$T/err"
status "capture() in a program" 0 $?
VA=$(src "$ROOT/tests/kernels/vector_add.py" "$T/x")
line "the block's launch" "$T/x/kernels.manifest" "$VA add_kernel \"*fp32:16, *fp32:16, *fp32:16, i32:16\" $ADD"
n=$(awk -v p="$VA " 'index($0, p) == 1' "$T/x/kernels.manifest" | wc -l)
if [ "$n" = 1 ]; then ok; else fail "capture(): $n lines, want the block's one"; fi

echo "test_capture: $passed passed, $failed failed"
[ "$failed" = 0 ]
