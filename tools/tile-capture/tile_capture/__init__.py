"""tile_capture - records the Triton kernel launches of a Python program and
writes them as a tilec manifest (docs/CAPTURE.md).

Design: a capture is hooks (hooks.py: Triton's JITFunction.run, Autotuner
and Heuristics, Inductor's CachingAutotuner) feeding a Recorder
(record.py) for as long as the program, or the `with capture(...)` block,
runs; write() then turns the record into the manifest, the JSON record and
the tuning file (emit.py), after asking tilec about each launch function
where a tilec is given (tilec.py). Only the standard library is imported
here; Triton (and, through the program, torch) is imported when a capture
starts.
"""
import contextlib
import os
import sys

from . import emit, hooks, record
from . import tilec as tilec_check

__all__ = ["capture", "write"]


def _log(msg):
    sys.stderr.write("tile-capture: %s\n" % msg)


def write(rec, manifest, json_path=None, tuning=None, tilec=None, arch=None, generic=False, log=_log):
    """Writes a record as manifest (and JSON and tuning file); returns the emit.Plan."""
    for path in (manifest, json_path, tuning):
        if path and os.path.dirname(os.path.abspath(path)):
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    plan = emit.Plan(rec, manifest, generic)
    plan.copy_sources()
    if tilec:
        tilec_check.check(plan, tilec, arch, log)
    tuning_text = plan.tuning_text() if tuning else None
    with open(manifest, "w") as f:
        f.write(plan.manifest_text(tuning if tuning_text else None))
    if tuning_text:
        with open(tuning, "w") as f:
            f.write(tuning_text)
    elif tuning:
        log("no kernel with an autotune list tilec reads was launched: %s not written" % tuning)
    if json_path:
        record.save(rec, json_path)
    summary(rec, plan, manifest, log)
    return plan


def summary(rec, plan, manifest, log):
    launches = sum(s["count"] for k in rec["kernels"] for s in k["specs"])
    log("%d launch%s of %d kernel%s: %d launch function%s (%d variants) in %s" % (
        launches, "" if launches == 1 else "es", len(rec["kernels"]), "" if len(rec["kernels"]) == 1 else "s",
        len(plan.functions), "" if len(plan.functions) == 1 else "s",
        sum(len(f.variants) for f in plan.functions if not f.refused), manifest))
    for k, bad in plan.skipped:
        for reason, n in bad.items():
            log("not compiled: %s (%s:%d), %d launch%s: %s" % (k["name"], k["file"], k["line"], n,
                                                               "" if n == 1 else "es", reason))
    for f in plan.functions:
        if f.refused:
            log("refused by tilec: %s: %s" % (f.name, f.refused))
        elif not f.grid:
            log("%s takes its grid from the caller: %s" % (f.name, f.grid_note))
    for fail in rec.get("failures", []):
        log("could not read %d launch%s: %s" % (fail["count"], "" if fail["count"] == 1 else "es",
                                                fail["message"]))
    if all(f.refused for f in plan.functions):
        log("no launch function to compile: tilec compile -m refuses a manifest without kernels")


class Session:
    """A capture in progress: hooks installed, launches recorded."""

    def __init__(self, manifest, json=None, tuning=None, tilec=None, arch=None, generic=False, program=None):
        self.manifest, self.json, self.tuning = manifest, json, tuning
        self.tilec, self.arch, self.generic = tilec, arch, generic
        self.program = list(program if program is not None else sys.argv)
        self.recorder = record.Recorder()
        self.plan = None

    def start(self):
        hooks.install(self.recorder)
        return self

    def stop(self, status="ok"):
        hooks.uninstall()
        rec = self.recorder.to_json(self.program, status)
        self.plan = write(rec, self.manifest, self.json, self.tuning, self.tilec, self.arch, self.generic)
        return self.plan


@contextlib.contextmanager
def capture(manifest, json=None, tuning=None, tilec=None, arch=None, generic=False):
    """Records the Triton launches of the block and writes manifest (and
    the JSON record and tuning file) when it ends, also when it raises."""
    s = Session(manifest, json, tuning, tilec, arch, generic).start()
    status = "ok"
    try:
        yield s
    except BaseException as e:
        status = "raised %s: %s" % (type(e).__name__, e)
        raise
    finally:
        s.stop(status)
