#!/usr/bin/env bash
# test_corpus.sh - the public-kernel corpus (tests/corpus) on the CPU:
# every case compiled for every target family and run in the interpreter
# at a small size (tests/corpus/check.py says how). Needs python3.
set -uo pipefail
cd "$(dirname "$0")/.."
# the plain tilec: the corpus's ~200 compiles under ASan would take most of CI's time
TILEC=${TILE_BUILD:+$TILE_BUILD/tilec}
exec python3 tests/corpus/check.py --tilec "${TILEC:-build/tilec}" --jobs "$(nproc 2>/dev/null || echo 2)"
