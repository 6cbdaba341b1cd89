#!/usr/bin/env bash
# test_llm.sh - examples/llm without a GPU: the tiny config's weights
# (make_weights.py --tiny, pure Python), then build/examples/llm --cpu runs
# every kernel of the model in tile's reference interpreter, exactly the
# manifest's variants (examples/llm/interp.h), and --check compares each
# step's logits with llm.c's plain-C fp32 forward pass on the same tokens
# (largest difference within 2% of the logits' scale, every greedy token
# the reference's argmax or a near tie). Prompts of 1, 20, 28, 40 and 70
# tokens (two prefill blocks of 64 rows), decode steps across the
# attention's splits (fused reduce, and --split-reduce), and the error paths: missing, truncated, foreign and unsupported
# weight files, bad token ids and options (--bench-skip's names), a context too small. Also: the
# manifest compiles for sm_90a and sm_80 alone, every kernel without spills;
# and the GPU path's start-up (the driver in a thread during the weight
# file's read) against a fake libcuda.so.1: the driver's failures reported,
# the thread always joined, the weights uploaded intact, nothing left behind.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${TILE_BUILD:-$ROOT/build}
LLM=$BUILD/examples/llm
MW=$ROOT/examples/llm/make_weights.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# judge NAME STATUS NEEDLE RC OUTPUT: whether a run exited with STATUS and
# printed NEEDLE (bad() says which not, with the output's end)
judge() {
	if [ "$4" != "$2" ]; then
		bad "$1: exit $4, want $2"
	elif [ -n "$3" ] && ! grep -qF -- "$3" <<<"$5"; then
		bad "$1: output lacks '$3'"
	else
		return 0
	fi
	echo "$5" | tail -n 20
	return 1
}

# expect NAME STATUS NEEDLE -- COMMAND...: exit status and a substring of stdout+stderr
expect() {
	local name=$1 want=$2 needle=$3
	shift 4
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	judge "$name" "$want" "$needle" "$rc" "$out" && ok
}

if [ ! -x "$LLM" ]; then
	bad "$LLM is not built (examples/build.sh)"
	echo "test_llm: $passed passed, $failed failed"
	exit 1
fi
if ! command -v python3 >/dev/null; then
	echo "test_llm: python3 not found: make_weights.py cannot run; skipped"
	echo "test_llm: 0 passed, 0 failed"
	exit 0
fi
# the manifest compiles for sm_90a and for sm_80 (Orin's class) without spills
nk=$(grep -c '^kernels.py ' "$ROOT/examples/llm/kernels.tile")
for arch in sm_90a sm_80; do
	if ! out=$("${TILEC_PLAIN:-$BUILD/tilec}" compile -m "$ROOT/examples/llm/kernels.tile" -o "$TMP/k_$arch" --arch "$arch" -q -v 2>&1); then
		bad "compile for $arch"
		echo "$out" | tail -n 20
	elif [ "$(grep -c "$arch: .* registers" <<<"$out")" -lt "$nk" ] || grep "$arch: .* registers" <<<"$out" | grep -qv "spills 0 bytes stored + 0 loaded"; then
		bad "compile for $arch: not $nk kernels (and the variants tilec adds) without spills"
		echo "$out" | tail -n 20
	else
		ok
	fi
done

W=$TMP/tiny.bin
# std 0.1: logits of about unit scale, so greedy decoding does not repeat one token
if ! python3 "$MW" --tiny --std 0.1 "$W" >/dev/null; then
	bad "make_weights.py --tiny"
	echo "test_llm: $passed passed, $failed failed"
	exit 1
fi

# the model against the C reference
expect check-70 0 "PASS" -- "$LLM" --cpu --weights "$W" --prompt-random 70 --steps 24 --check -q
expect check-1 0 "PASS" -- "$LLM" --cpu --weights "$W" --prompt 5 --steps 20 --check -q
# decode attention as split + reduce kernels: the same tokens as the fused reduce
a=$("$LLM" --cpu --weights "$W" --prompt-random 40 --steps 8 --check -q 2>&1)
b=$("$LLM" --cpu --weights "$W" --prompt-random 40 --steps 8 --check -q --split-reduce 2>&1)
if grep -q "PASS" <<<"$b" && [ "$(grep '^tokens:' <<<"$a")" = "$(grep '^tokens:' <<<"$b")" ]; then ok; else
	bad "split-reduce: '$a' against '$b'"
fi
expect check-20 0 "PASS" -- "$LLM" --cpu --weights "$W" --prompt 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 \
	--steps 6 --check --dump-logits "$TMP/logits.bin"
size=$(stat -c %s "$TMP/logits.bin" 2>/dev/null || echo 0)
if [ "$size" = $((6 * 512 * 4)) ]; then ok; else bad "dump-logits: $size bytes, want $((6 * 512 * 4))"; fi
# the same prompt from a file gives the same tokens
printf '1 2 3 4 5 6 7 8 9 10\n11,12,13,14,15,16,17,18,19,20\n' >"$TMP/prompt.txt"
a=$("$LLM" --cpu --weights "$W" --prompt-file "$TMP/prompt.txt" --steps 6 -q 2>&1 | grep '^tokens:')
b=$("$LLM" --cpu --weights "$W" --prompt 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 --steps 6 -q 2>&1 | grep '^tokens:')
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "prompt file: '$a' against '$b'"; fi
# the context exactly full: prompt + steps = ctx
expect ctx-full 0 "PASS" -- "$LLM" --cpu --weights "$W" --prompt-random 28 --steps 4 --ctx 32 --check -q

# error paths: a message, no crash
expect no-file 1 "cannot open" -- "$LLM" --cpu --weights "$TMP/none.bin" --prompt 1
head -c 1000 "$W" >"$TMP/trunc.bin"
expect truncated 1 "truncated" -- "$LLM" --cpu --weights "$TMP/trunc.bin" --prompt 1
head -c 20 "$W" >"$TMP/short.bin"
expect short 1 "header" -- "$LLM" --cpu --weights "$TMP/short.bin" --prompt 1
printf 'GGUF and then some bytes that are not a weight file at all, padded out to 64 bytes.....' >"$TMP/foreign.bin"
expect magic 1 "bad magic" -- "$LLM" --cpu --weights "$TMP/foreign.bin" --prompt 1
python3 - "$W" "$TMP/hd32.bin" "$TMP/v2.bin" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
hd = bytearray(data); hd[28:32] = struct.pack("<I", 32)      # head_dim 32
open(sys.argv[2], "wb").write(hd)
v2 = bytearray(data); v2[8:12] = struct.pack("<I", 2)        # version 2
open(sys.argv[3], "wb").write(v2)
EOF
expect head-dim 1 "the kernels are built for 64" -- "$LLM" --cpu --weights "$TMP/hd32.bin" --prompt 1
expect version 1 "format version 2" -- "$LLM" --cpu --weights "$TMP/v2.bin" --prompt 1
expect bad-token 1 "bad token id" -- "$LLM" --cpu --weights "$W" --prompt 1,x,3
expect vocab-token 1 "past the vocab" -- "$LLM" --cpu --weights "$W" --prompt 1,512
expect empty-prompt 1 "no token ids" -- "$LLM" --cpu --weights "$W" --prompt ,
expect over-ctx 1 "exceed the context" -- "$LLM" --cpu --weights "$W" --prompt-random 30 --steps 4 --ctx 32
expect unknown-opt 2 "unknown option" -- "$LLM" --cpu --weights "$W" --prompt 1 --frobnicate
expect no-weights 2 "--weights FILE is required" -- "$LLM" --prompt 1
expect two-prompts 2 "exactly one of" -- "$LLM" --weights "$W" --prompt 1 --prompt-random 3
expect bad-steps 2 "is not an integer" -- "$LLM" --weights "$W" --prompt 1 --steps 0
expect skip-name 2 "'gemv_qkv' is not a decode kernel (gemv_norm, gemv_residual" -- "$LLM" --weights "$W" --prompt 1 --bench \
	--bench-skip attn_decode,gemv_qkv
expect skip-empty 2 "needs at least one kernel" -- "$LLM" --weights "$W" --prompt 1 --bench --bench-skip ""
expect skip-comma 2 "'' is not a decode kernel" -- "$LLM" --weights "$W" --prompt 1 --bench --bench-skip attn_decode,,gemv_norm
expect skip-prefill-kernel 2 "'gemm' is not a decode kernel" -- "$LLM" --weights "$W" --prompt 1 --bench --bench-skip gemm
expect skip-no-bench 2 "it needs --bench" -- "$LLM" --weights "$W" --prompt 1 --bench-skip attn_decode
expect skip-check 2 "not --check" -- "$LLM" --weights "$W" --prompt 1 --bench --check --bench-skip attn_decode
expect skip-kernels 2 "or --bench-kernels" -- "$LLM" --weights "$W" --prompt 1 --bench --bench-kernels --bench-skip attn_decode
expect missing-value 2 "needs a value" -- "$LLM" --weights "$W" --prompt
expect dump-path 1 "cannot write" -- "$LLM" --cpu --weights "$W" --prompt 1 --steps 2 --dump-logits "$TMP/no/such/dir/l.bin"
expect cpu-bench 2 "--bench times the GPU; not with --cpu" -- "$LLM" --cpu --weights "$W" --prompt 1 --bench
expect cpu-bench-kernels 2 "--bench-kernels times the GPU" -- "$LLM" --cpu --weights "$W" --prompt 1 --bench-kernels
expect help 0 "usage: llm" -- "$LLM" --help

# the GPU path's start-up (the driver in a thread while the weights are
# read) against a fake libcuda.so.1 (tests/fake_cuda/llm_driver.c): every entry point llm.c and tile.h
# resolve, "device" memory in host memory, launches that do nothing. The
# program is built as on a GPU machine (no libtile, no --cpu), with ASan and
# UBSan where the compiler has them.
if ! python3 -c "import ctypes; ctypes.CDLL('libcuda.so.1')" 2>/dev/null; then
	expect no-gpu 1 "llm: no GPU: libcuda.so.1 not found (--cpu runs the kernels" -- "$LLM" --weights "$W" --prompt 1
fi
CC=${CC:-cc}
GEN=$BUILD/examples/gen/llm
mkdir -p "$TMP/fake"
san="-fsanitize=address,undefined -fno-omit-frame-pointer"
gpu_build() { # FLAGS...: llm.c as gpu_check.sh builds it, into $TMP/llm_gpu
	$CC -std=c99 -O1 -g -Wall -Wextra -Werror "$@" -I"$ROOT" -I"$ROOT/examples/llm" -I"$GEN" "$ROOT/examples/llm/llm.c" \
		"$GEN/kernels.c" -ldl -lpthread -lm -o "$TMP/llm_gpu"
}
if ! command -v "$CC" >/dev/null || [ ! -f "$GEN/kernels.c" ]; then
	echo "test_llm: no $CC or no $GEN/kernels.c: the fake-driver tests skipped"
elif ! $CC -std=c99 -O1 -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared -o "$TMP/fake/libcuda.so.1" \
	"$ROOT/tests/fake_cuda/llm_driver.c" -lpthread; then
	bad "building the fake libcuda.so.1"
elif ! { gpu_build $san 2>/dev/null || gpu_build; }; then
	bad "building llm.c for the GPU (gcc -std=c99 -Wall -Wextra -Werror)"
else
	# fake NAME STATUS NEEDLE [VAR=VALUE...] -- ARGS...: as expect, on the fake
	# driver; and no complaint from it (left at exit: contexts, memory,
	# streams, modules) nor a sanitizer's report. The output stays in
	# FAKE_OUT.
	fake() {
		local name=$1 want=$2 needle=$3 vars=() rc
		shift 3
		while [ "$1" != -- ]; do
			vars+=("$1")
			shift
		done
		shift
		FAKE_OUT=$(env LD_LIBRARY_PATH="$TMP/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "${vars[@]}" \
			timeout 120 "$TMP/llm_gpu" "$@" 2>&1)
		rc=$?
		judge "fake driver, $name" "$want" "$needle" "$rc" "$FAKE_OUT" || return 0
		if grep -q "fake libcuda:\|Sanitizer\|runtime error" <<<"$FAKE_OUT"; then
			bad "fake driver, $name: the fake driver's complaint or a sanitizer's report"
			echo "$FAKE_OUT" | tail -n 20
		else
			ok
		fi
	}
	# a start-up of 300 ms, a read of the tiny file of far less: the main
	# thread waits for the rest, and --bench says so
	fake start 0 "tokens: " FAKE_LLM_INIT_MS=300 -- --weights "$W" --prompt-random 20 --steps 4 --bench
	t=$(sed -n 's/.*waiting for the driver after the file read \([0-9.]*\) ms.*in a thread during the file read: driver and context (cuInit, primary context, stream) \([0-9.]*\) ms.*/\1 \2/p' <<<"$FAKE_OUT")
	if [ -n "$t" ] && awk -v w="${t% *}" -v d="${t#* }" 'BEGIN { exit !(w >= 200 && d >= 300) }'; then ok; else
		bad "fake driver, start: --bench's wait and start-up '$t' ms (want at least 200 and 300)"
		grep '^bench:' <<<"$FAKE_OUT"
	fi
	fake cuinit 1 "llm: cuInit failed: CUDA_ERROR_NO_DEVICE (100)" FAKE_LLM_INIT_ERROR=100 -- --weights "$W" --prompt 1
	fake no-device 1 "llm: no CUDA device" FAKE_LLM_DEVICES=0 -- --weights "$W" --prompt 1
	fake modules 1 "llm: loading the kernels: CUDA driver call failed: cuModuleLoadData" FAKE_LLM_MODULE_ERROR=200 -- \
		--weights "$W" --prompt 1
	# the file's error while the start-up still runs: reported, the thread
	# joined (the exit waits for the start-up's 500 ms)
	t0=$(date +%s%N)
	fake truncated 1 "truncated" FAKE_LLM_INIT_MS=500 -- --weights "$TMP/trunc.bin" --prompt 1
	if [ $(($(date +%s%N) - t0)) -ge 500000000 ]; then ok; else bad "fake driver, truncated: exited before the start-up ended"; fi
	fake head-dim 1 "the kernels are built for 64" -- --weights "$TMP/hd32.bin" --prompt 1
	# TinyLlama's width, 2 layers, a vocab of 4096: 4 pieces of the read
	# (64 MB), no two bytes 64 MB apart alike. The device's copy must be the
	# file's payload with start-ups of 0, 100 and 2000 ms, so that the driver
	# is up before the read, comes up during it (what was read goes up at
	# once, the rest piece by piece) or after it, as the read's speed has
	# it; and with --check's host copy.
	python3 - "$TMP/big.bin" <<'EOF'
import struct, sys
H, L, NH, KV, HD, F, V = 2048, 2, 32, 4, 64, 5632, 4096
per = H + (NH + 2 * KV) * HD * H + H * NH * HD + H + 3 * F * H
n = 2 * (2 * V * H + L * per + H)
pattern = bytes(range(251)) * 4096
with open(sys.argv[1], "wb") as f:
    f.write(b"TILELLM\0" + struct.pack("<8I2f", 1, H, L, NH, KV, HD, F, V, 1e-5, 10000.0) + bytes(16))
    while n > 0:
        f.write(pattern[:n])
        n -= len(pattern)
EOF
	tail -c +65 "$TMP/big.bin" >"$TMP/big.payload"
	payload=$(stat -c %s "$TMP/big.payload")
	for init in 0 100 2000; do
		rm -f "$TMP/dev.bin"
		fake "upload, start-up of $init ms" 0 "tokens: " FAKE_LLM_INIT_MS=$init FAKE_LLM_DUMP="$TMP/dev.bin" -- \
			--weights "$TMP/big.bin" --prompt 1,2,3 --steps 2 -q
		if cmp -s -n "$payload" "$TMP/big.payload" "$TMP/dev.bin"; then ok; else
			bad "fake driver, upload with a start-up of $init ms: the device's weights differ from the file's"
		fi
	done
	rm -f "$TMP/dev.bin"
	# the fake's logits are zeros: --check fails, after the upload; the
	# uploads read one host copy, the one --check's reference reads
	fake "upload, --check" 1 "check: " FAKE_LLM_DUMP="$TMP/dev.bin" FAKE_LLM_ONE_COPY=1 -- --weights "$TMP/big.bin" \
		--prompt 1,2,3 --steps 2 -q --check
	if cmp -s -n "$payload" "$TMP/big.payload" "$TMP/dev.bin"; then ok; else
		bad "fake driver, upload with --check: the device's weights differ from the file's"
	fi
	# the start-up fails during the read: reported, the thread joined
	fake "cuInit during the read" 1 "llm: cuInit failed: CUDA_ERROR_NO_DEVICE (100)" FAKE_LLM_INIT_MS=100 \
		FAKE_LLM_INIT_ERROR=100 -- --weights "$TMP/big.bin" --prompt 1
fi

echo "test_llm: $passed passed, $failed failed"
[ "$failed" = 0 ]
