#!/bin/sh
# tile-capture: tile's launch capture (python3 -m tile_capture, docs/CAPTURE.md)
# from an installed tile: the package lies in share/tile/python beside bin/.
# PYTHON picks the interpreter (the one the captured program runs under);
# no bytecode is written into the prefix (uninstall removes what it lists).
here=$(cd "$(dirname "$0")/.." && pwd)
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$here/share/tile/python${PYTHONPATH:+:$PYTHONPATH}" exec "${PYTHON:-python3}" -m tile_capture "$@"
