"""python3 -m tile_capture: run a program and write its Triton kernels as a
tilec manifest (docs/CAPTURE.md).

Design: the program runs in this process, as `python3 PROGRAM ARGS` would
run it (runpy, sys.argv and sys.path[0] set), with the hooks installed;
whatever way it ends (normally, sys.exit, an exception) the launches seen
so far are written, and the exit status is the program's (1 where it
raised). --from writes a saved JSON record again without running anything.
"""
import argparse
import os
import runpy
import sys
import traceback

from . import Session, _log, record, write

USAGE = """python3 -m tile_capture -o MANIFEST [options] -- PROGRAM.py [ARGS...]
       python3 -m tile_capture -o MANIFEST [options] -- -m MODULE [ARGS...]
       python3 -m tile_capture -o MANIFEST [options] --from RECORD.json"""


def parse(argv):
    program = []
    if "--" in argv:
        i = argv.index("--")
        argv, program = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(prog="python3 -m tile_capture", usage=USAGE, description=(
        "Runs a Python program, records every Triton kernel it launches (@triton.jit kernels, "
        "@triton.autotune and @triton.heuristics, and the kernels torch.compile generates) and "
        "writes them as a manifest for `tilec compile -m`."))
    p.add_argument("-o", dest="manifest", required=True, metavar="MANIFEST", help="the manifest to write")
    p.add_argument("--json", metavar="RECORD", help="also write the record of every launch as JSON")
    p.add_argument("--tuning", metavar="FILE", help="also write the configs Triton's autotuner picked as a "
                   "tuning file (tile-tuning 2) for tilec compile --tuning")
    p.add_argument("--tilec", metavar="TILEC", help="compile each launch function with this tilec: kernels "
                   "it refuses are commented out with its error, and the tuning file gets each kernel's "
                   "identity and the blob's config numbers")
    p.add_argument("--arch", metavar="LIST", help="with --tilec: the --arch the blob will be built for "
                   "(configs left out for shared memory depend on it)")
    p.add_argument("--generic", action="store_true", help="add a variant without hints to every launch "
                   "function, for arguments the run never showed")
    p.add_argument("--from", dest="source", metavar="RECORD", help="write a saved record instead of running "
                   "a program")
    args = p.parse_args(argv)
    if bool(program) == bool(args.source):
        p.error("give a program after -- or a record with --from (one of them)")
    if program and program[0] == "-m" and len(program) < 2:
        p.error("-m needs a module name")
    return args, program


def run_program(program):
    """Runs the program as __main__; returns its exit status and what ended it."""
    try:
        if program[0] == "-m":
            sys.argv = program[1:]
            runpy.run_module(program[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(program)
            sys.path.insert(0, os.path.dirname(os.path.abspath(program[0])))
            runpy.run_path(program[0], run_name="__main__")
    except SystemExit as e:
        if e.code is None or e.code == 0:
            return 0, "ok"
        if not isinstance(e.code, int):
            sys.stderr.write("%s\n" % e.code)
        code = e.code if isinstance(e.code, int) else 1
        return code, "exited with status %d" % code
    except BaseException as e:
        tb = e.__traceback__  # from the program's own frames on
        while tb is not None and (tb.tb_frame.f_code.co_filename == __file__ or
                                  "runpy" in tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb)
        return 1, "raised %s: %s" % (type(e).__name__, e)
    return 0, "ok"


def main(argv):
    args, program = parse(argv)
    if args.source:
        try:
            rec = record.load(args.source)
        except (OSError, ValueError) as e:
            _log("cannot read %s: %s" % (args.source, e))
            return 2
        write(rec, args.manifest, args.json, args.tuning, args.tilec, args.arch, args.generic)
        return 0
    session = Session(args.manifest, args.json, args.tuning, args.tilec, args.arch, args.generic, program)
    try:
        session.start()
    except ImportError as e:
        _log("cannot import triton: %s" % e)
        return 2
    code, status = run_program(program)
    session.stop(status)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
