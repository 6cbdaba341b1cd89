#!/usr/bin/env bash
# soak_fake.sh - the soak program (tests/gpu/soak.c) against the fake
# driver (tests/fake_cuda/fake_cuda.c), both built with ThreadSanitizer:
# its kernels are packed by tilec from fake PTX (the same launch
# functions as soak_prepare.sh's, with images only the fake driver runs),
# two fake devices, two contexts each; any ThreadSanitizer report, launch
# error or wrong value fails. Run by tests/test_loader_fake.sh.
# Usage: bash tests/gpu/soak_fake.sh TILEC OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
TILEC=$1
OUT=$2
mkdir -p "$OUT"
cc=${CC:-cc}
tsan="-std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fsanitize=thread -fno-omit-frame-pointer"
# the fake driver reads its symbol list from the first line (trailing space)
cat >"$OUT/soak_a.ptx" <<'PTX'
// FAKE ptx compute_80: soak_inc soak_axpy 
.version 7.0
.target sm_80
.address_size 64
.visible .entry soak_inc(.param .u64 p, .param .u32 n) { ret; }
.visible .entry soak_axpy(.param .u64 x, .param .u64 y, .param .u32 n, .param .u32 a) { ret; }
PTX
cat >"$OUT/soak_b.ptx" <<'PTX'
// FAKE ptx compute_80: soak_acc 
.version 7.0
.target sm_80
.address_size 64
.visible .entry soak_acc(.param .u64 counter, .param .u32 v) { ret; }
PTX
"$TILEC" pack -o "$OUT/soak_a" -n soak_inc -s "*i32, i32" --param-names p,n -g "cdiv(n, 256)" --ptx "$OUT/soak_a.ptx" \
	-n soak_axpy -s "*i32, *i32, i32, i32" --param-names x,y,n,a -g "cdiv(n, 256)" --ptx "$OUT/soak_a.ptx"
"$TILEC" pack -o "$OUT/soak_b" -n soak_acc -s "*i32, i32" --param-names counter,v -g 1 --ptx "$OUT/soak_b.ptx"
$cc $tsan -fPIC -shared -o "$OUT/libfakecuda_tsan.so" tests/fake_cuda/fake_cuda.c -lpthread
$cc $tsan -I. -I"$OUT" -o "$OUT/soak" tests/gpu/soak.c "$OUT/soak_a.c" "$OUT/soak_b.c" -ldl -lpthread
lib=$(cd "$OUT" && pwd)/libfakecuda_tsan.so
SOAK_LIBCUDA=$lib FAKE_CUDA_DEVICES=2 TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
	"$OUT/soak" --threads ${SOAK_THREADS:-16} --launches ${SOAK_LAUNCHES:-2000} --contexts 2 --elems 64
