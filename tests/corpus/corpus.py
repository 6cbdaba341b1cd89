"""corpus.py - the public-kernel corpus's case table.

Every folder of tests/corpus/ is one public project: its kernel files kept
exactly as published, at their paths in the repository (so the project's own
absolute imports resolve with the folder as a search path, tilec's -I), a
SOURCE file (repository, commit, paths, license) and a cases.py. A project's
cases.py defines CASES with tests/gpu/cases.py's case(), T(), S() and tol():
what the project's own launcher passes to the kernel (signature, constexprs
after heuristics and autotune, num_warps, num_stages, grid, argument dtypes
and shapes), at two sizes or more, one of them odd. A case that Triton 3.6
itself refuses carries triton_refuses="Triton's message" and is only
compiled by tilec, never compared.

cases() returns every project's cases with tier 6 (the suite has 1 to 4, extra cases 5) and the project's folder
as an include directory; tests/gpu/cases.py adds them to the GPU suite and
tests/corpus/check.py compiles and interprets them on the CPU.
"""
import importlib.util
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS_TIER = 6


def projects():
    return sorted(d for d in os.listdir(HERE)
                  if os.path.isfile(os.path.join(HERE, d, "cases.py")))


def load_project(name):
    """The CASES of one project, each marked with its project and include dir."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
    path = os.path.join(HERE, name, "cases.py")
    spec = importlib.util.spec_from_file_location("corpus_cases_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = []
    for c in mod.CASES:
        c = dict(c)
        c["tier"] = CORPUS_TIER
        c["project"] = name
        c["include_dirs"] = ["tests/corpus/" + name] + list(c.get("include_dirs") or [])
        c.setdefault("triton_refuses", None)
        # the launch function takes the grid, as the launcher computes it
        # (a corpus grid may read sizes that are no parameter)
        c["grid_in_blob"] = False
        out.append(c)
    return out


def cases():
    out = []
    for p in projects():
        out.extend(load_project(p))
    return out
