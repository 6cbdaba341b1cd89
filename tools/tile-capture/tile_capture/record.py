"""record.py - the launches of a run, kept as the JSON record.

Design: a program may launch one kernel millions of times with a handful
of specializations, so the recorder keeps, per kernel (launch.kernel_info),
one entry per distinct specialization (launch.spec without its sample):
how often it ran, every autotune key it ran with (the tuning table needs
them all), and the first few distinct argument samples (dtypes, shapes,
scalar values, grids). The record is all the writer (emit.py) reads, so a
saved record can be written again later (`--from`), with another tilec or
--arch. A launch the recorder cannot read is noted, never raised into the
program.
"""
import json
import sys
import threading
import traceback

from . import launch as L

VERSION = 1
SAMPLES = 16  # argument samples kept per specialization


def spec_key(spec):
    """What makes two launches the same specialization."""
    return json.dumps({k: v for k, v in spec.items() if k not in ("sample", "count", "keys", "samples")},
                      sort_keys=True)


class Recorder:
    """A hooks listener that records every launch."""

    def __init__(self):
        self.kernels = {}  # ident -> kernel JSON, its "specs" a dict until to_json
        self.order = []
        self.failures = {}  # message -> count
        self.lock = threading.Lock()

    def launch(self, tensors, build, call):
        result = call()
        try:
            launch = build()
            with self.lock:
                self.add(launch)
        except Exception as e:
            where = traceback.extract_tb(sys.exc_info()[2])[-1]
            msg = "%s: %s (%s:%d)" % (type(e).__name__, e, where.filename, where.lineno)
            with self.lock:
                self.failures[msg] = self.failures.get(msg, 0) + 1
        return result

    def add(self, launch):
        ident = L.kernel_ident(launch)
        k = self.kernels.get(ident)
        if k is None:
            k = self.kernels[ident] = L.kernel_info(launch)
            k["specs"] = {}
            self.order.append(ident)
        s = L.spec(k, launch)
        key = spec_key(s)
        entry = k["specs"].get(key)
        if entry is None:
            entry = k["specs"][key] = dict(s, count=0, keys=[], samples=[])
            del entry["sample"], entry["key"]
        entry["count"] += 1
        if s["key"] is not None:
            for seen in entry["keys"]:
                if seen["values"] == s["key"]:
                    seen["count"] += 1
                    break
            else:
                entry["keys"].append({"values": s["key"], "count": 1})
        if len(entry["samples"]) < SAMPLES and s["sample"] not in entry["samples"]:
            entry["samples"].append(s["sample"])

    def to_json(self, program, status):
        with self.lock:
            kernels = []
            for ident in self.order:
                k = dict(self.kernels[ident])
                k["specs"] = list(k["specs"].values())
                kernels.append(k)
            return {"tile_capture": VERSION, "program": list(program), "status": status, "kernels": kernels,
                    "failures": [{"message": m, "count": n} for m, n in self.failures.items()]}


def load(path):
    with open(path) as f:
        rec = json.load(f)
    if rec.get("tile_capture") != VERSION:
        raise ValueError("%s is not a tile-capture record of version %d" % (path, VERSION))
    return rec


def save(rec, path):
    with open(path, "w") as f:
        json.dump(rec, f, indent=1)  # key order is parameter order
        f.write("\n")
