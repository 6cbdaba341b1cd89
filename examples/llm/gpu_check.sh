#!/usr/bin/env bash
# gpu_check.sh [GEN_DIR [WORK_DIR]] - examples/llm on a GPU machine, in one go.
#
# Needs: gcc, python3 with torch (CUDA) and triton, an NVIDIA GPU; run from
# anywhere inside the checkout. GEN_DIR holds the kernels.c/kernels.h that
# examples/build.sh generated on the build machine (default
# build/examples/gen/llm: carry that folder over with the tree); WORK_DIR
# (default /tmp/tile-llm) gets the binary, the weight files (the 2.2 GB
# TinyLlama-shaped one is kept and reused when present) and the logs.
#
# 1. builds llm.c with gcc (no libtile: only tile.h and the generated pair)
# 2. makes the weights: --tiny, and TinyLlama-1.1B-shaped random weights
#    (torch.randn on the GPU)
# 3. correctness: the tiny config against llm.c's plain-C fp32 forward
#    (--check) and against reference.py (PyTorch); TinyLlama's shape
#    against reference.py over a 32-token prompt and 128 greedy steps, and
#    3 steps against the plain-C forward
# 4. figures: llm --bench at context 128 and 2048 (CUDA graph, with and
#    without PDL), prefill of 512 tokens, time to first token, each decode
#    kernel alone (--bench-kernels); then
#    reference.py --bench (PyTorch eager, torch.compile reduce-overhead) and
#    one table, with the targets (decode >= 1.0x torch.compile and >= 80% of
#    the copy-rate bound)
# Prints PASS/FAIL lines; exit status 1 when a correctness check fails.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
GEN=${1:-build/examples/gen/llm}
WORK=${2:-/tmp/tile-llm}
mkdir -p "$WORK"
PY=${PYTHON:-python3}
LLM=$WORK/llm
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

if [ ! -f "$GEN/kernels.c" ] || [ ! -f "$GEN/kernels.h" ]; then
	echo "FAIL build: $GEN/kernels.c and kernels.h not found (run ./build.sh on the build machine and carry $GEN over)"
	exit 1
fi
# 1. build
if gcc -std=c99 -O2 -Wall -Wextra -Werror -I"$ROOT" -I"$ROOT/examples/llm" -I"$GEN" \
	"$ROOT/examples/llm/llm.c" "$GEN/kernels.c" -ldl -lpthread -lm -o "$LLM" 2>"$WORK/build.log"; then
	pass "build: gcc llm.c + $GEN/kernels.c"
else
	cat "$WORK/build.log"
	fail "build"
	exit 1
fi

# 2. weights
TINY=$WORK/tiny.bin
BIG=$WORK/tinyllama-random.bin
"$PY" examples/llm/make_weights.py --tiny --std 0.1 "$TINY" >/dev/null || { fail "make_weights --tiny"; exit 1; }
if [ ! -f "$BIG.done" ]; then # made once, reused by later runs
	t0=$(date +%s)
	rm -f "$BIG"
	"$PY" examples/llm/make_weights.py "$BIG" || { fail "make_weights (TinyLlama shape)"; exit 1; }
	touch "$BIG.done"
	echo "weights: $BIG made in $(( $(date +%s) - t0 )) s"
fi

# 3. correctness
run() { # LOG ARGS...: runs llm, keeps its output in LOG
	local log=$1
	shift
	"$LLM" "$@" >"$log" 2>&1
}
tokens_of() { sed -n 's/^tokens: //p' "$1"; }

if run "$WORK/tiny_check.log" --weights "$TINY" --prompt-random 70 --steps 40 --check --dump-logits "$WORK/tiny.logits" &&
	grep -q "check: .*PASS" "$WORK/tiny_check.log"; then
	pass "tiny config vs plain-C fp32 forward: $(grep '^check:' "$WORK/tiny_check.log")"
else
	tail -n 20 "$WORK/tiny_check.log"
	fail "tiny config vs plain-C fp32 forward"
fi
if "$PY" examples/llm/reference.py --weights "$TINY" --prompt-random 70 --c-logits "$WORK/tiny.logits" \
	--c-tokens "$(tokens_of "$WORK/tiny_check.log")" >"$WORK/tiny_ref.log" 2>&1; then
	pass "tiny config vs PyTorch"
else
	fail "tiny config vs PyTorch"
fi
sed 's/^/    /' "$WORK/tiny_ref.log"

if run "$WORK/big.log" --weights "$BIG" --prompt-random 32 --steps 128 --dump-logits "$WORK/big.logits"; then
	if "$PY" examples/llm/reference.py --weights "$BIG" --prompt-random 32 --c-logits "$WORK/big.logits" \
		--c-tokens "$(tokens_of "$WORK/big.log")" >"$WORK/big_ref.log" 2>&1; then
		pass "TinyLlama shape, 32-token prompt + 128 greedy steps vs PyTorch"
	else
		fail "TinyLlama shape vs PyTorch"
	fi
	sed 's/^/    /' "$WORK/big_ref.log"
else
	tail -n 20 "$WORK/big.log"
	fail "TinyLlama shape: llm failed"
fi
# the reduce apart adds the splits in another order: near ties may go the
# other way, so it is held to PyTorch as the fused run is, not to its tokens
if run "$WORK/big_split.log" --weights "$BIG" --prompt-random 32 --steps 128 --split-reduce --dump-logits "$WORK/split.logits" &&
	"$PY" examples/llm/reference.py --weights "$BIG" --prompt-random 32 --c-logits "$WORK/split.logits" \
		--c-tokens "$(tokens_of "$WORK/big_split.log")" >"$WORK/split_ref.log" 2>&1; then
	pass "decode attention with its reduce apart (--split-reduce) vs PyTorch"
else
	fail "decode attention with its reduce apart (--split-reduce) vs PyTorch"
fi
sed 's/^/    /' "$WORK/split_ref.log"
if run "$WORK/big_check.log" --weights "$BIG" --prompt 1,2,3 --steps 3 --check && grep -q "check: .*PASS" "$WORK/big_check.log"; then
	pass "TinyLlama shape vs plain-C fp32 forward: $(grep '^check:' "$WORK/big_check.log")"
else
	tail -n 20 "$WORK/big_check.log"
	fail "TinyLlama shape vs plain-C fp32 forward"
fi
if run "$WORK/big_nograph.log" --weights "$BIG" --prompt-random 32 --steps 128 --no-graph -q &&
	[ "$(tokens_of "$WORK/big_nograph.log")" = "$(tokens_of "$WORK/big.log")" ]; then
	pass "eager decode steps give the graph replays' tokens"
else
	fail "eager decode steps differ from the graph replays"
fi

# 4. figures
decode_of() { sed -n 's/^bench: decode \([0-9.]*\) ms.*/\1/p' "$1"; }
for ctx in 128 2048; do
	for pdl in "" --pdl; do
		log=$WORK/bench_${ctx}${pdl}.log
		if run "$log" --weights "$BIG" --prompt-random "$ctx" --steps 66 --bench $pdl; then
			grep '^bench:' "$log"
		else
			tail -n 5 "$log"
			echo "INFO bench ctx $ctx $pdl failed"
		fi
	done
done
run "$WORK/bench_eager.log" --weights "$BIG" --prompt-random 128 --steps 34 --bench --no-graph &&
	echo "eager launches: $(grep '^bench: decode' "$WORK/bench_eager.log")"
run "$WORK/bench_prefill.log" --weights "$BIG" --prompt-random 512 --steps 2 --bench && grep '^bench:' "$WORK/bench_prefill.log"
# each decode kernel alone (graph replays of its launches in a step), last
# in its run since it leaves the model's state unusable
run "$WORK/bench_kernels.log" --weights "$BIG" --prompt-random 128 --steps 34 --bench --bench-kernels &&
	grep '^bench: kernel' "$WORK/bench_kernels.log"
prefill=$(sed -n 's/^bench: prefill [0-9]* tokens: [0-9.]* ms (\([0-9]*\) tokens.*/\1/p' "$WORK/bench_prefill.log")
args=()
v=$(decode_of "$WORK/bench_128.log"); [ -n "$v" ] && args+=(--c-decode-128 "$v")
v=$(decode_of "$WORK/bench_2048.log"); [ -n "$v" ] && args+=(--c-decode-2048 "$v")
v=$(decode_of "$WORK/bench_128--pdl.log"); [ -n "$v" ] && args+=(--c-decode-128-pdl "$v")
v=$(decode_of "$WORK/bench_2048--pdl.log"); [ -n "$v" ] && args+=(--c-decode-2048-pdl "$v")
[ -n "$prefill" ] && args+=(--c-prefill-512 "$prefill")
echo
"$PY" examples/llm/reference.py --weights "$BIG" --bench "${args[@]}" 2>&1 | grep -v "^W[0-9]* \|UserWarning"

echo
if [ "$fails" = 0 ]; then echo "gpu_check: all correctness checks passed"; else echo "gpu_check: $fails FAILED"; fi
[ "$fails" = 0 ]
