#!/usr/bin/env bash
# Writes tile.h to stdout: the public declarations, then the implementation.
set -euo pipefail
cd "$(dirname "$0")"
cat api.h
