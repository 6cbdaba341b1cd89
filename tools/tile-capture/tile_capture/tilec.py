"""tilec.py - asking tilec what it makes of each launch function.

Design: a tuning file must carry the identity tilec gives the autotuned
kernel in the blob it is applied to (docs/TUNING.md): a hash over the
kernel's variants, configs and constexprs, which only a compile gives, and
the blob's config numbers, which differ from the source's where a config
does not fit in shared memory. check() compiles each launch function alone
(its lines as a manifest of their own, for the --arch the blob will be
built for: left-out configs depend on it), marks the functions tilec
refuses with its first error, so that the manifest leaves them out instead
of failing whole, and reads `tilec inspect` of the others: identity,
config count, dispatch key and each config's index in the source's list.
"""
import os
import re
import subprocess
import tempfile

CONFIGS = re.compile(r"^  configs (\d+); tuning key (.*?); default config \d+; \d+ entr(?:y|ies); "
                     r"identity ([0-9a-f]{16})$")
VARIANT = re.compile(r", config (\d+) \(autotune config (\d+)\)")


def _first_error(text, tmp, where):
    """tilec's first error, its paths relative to where (the manifest's folder)."""
    for line in text.splitlines():
        if "error:" in line:
            return line.replace(tmp + os.sep, "").replace(where + os.sep, "").strip()
    lines = [x for x in text.splitlines() if x.strip()]
    return lines[-1].strip() if lines else "tilec failed without a message"


def inspect_text(text):
    """{identity, nconfigs, key, configs: {source config: blob config}} of
    the first kernel in `tilec inspect` output (nconfigs 1 without a table)."""
    out = {"identity": None, "nconfigs": 1, "key": [], "configs": {}}
    for line in text.splitlines():
        m = CONFIGS.match(line)
        if m:
            out["nconfigs"] = int(m.group(1))
            key = m.group(2).strip()
            out["key"] = [] if key == "(none)" else key.split(",")
            out["identity"] = m.group(3)
        m = VARIANT.search(line)
        if m:
            out["configs"][int(m.group(2))] = int(m.group(1))
    return out


def check(plan, tilec, arch=None, log=None):
    """Compiles each launch function of plan; sets f.refused or f.blob."""
    if log and plan.functions:
        log("compiling each of %d launch functions with %s" % (len(plan.functions), tilec))
    with tempfile.TemporaryDirectory(prefix="tile-capture-") as tmp:
        for i, f in enumerate(plan.functions):
            manifest = os.path.join(tmp, "f%d.manifest" % i)
            base = os.path.join(tmp, "f%d" % i)
            with open(manifest, "w") as m:
                m.write("\n".join(f.lines(f.source)) + "\n")
            cmd = [tilec, "compile", "-m", manifest, "-o", base, "-q"] + (["--arch", arch] if arch else [])
            try:
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            except OSError as e:  # no such tilec: written as without --tilec
                if log:
                    log("cannot run %s (%s): identities left unknown" % (tilec, e))
                return
            if r.returncode != 0:
                f.refused = _first_error(r.stdout, tmp, plan.dir)
                continue
            if f.tune:
                r = subprocess.run([tilec, "inspect", base + ".c"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, universal_newlines=True)
                if r.returncode != 0:
                    f.refused = "tilec inspect: " + _first_error(r.stdout, tmp, plan.dir)
                    continue
                f.blob = inspect_text(r.stdout)
