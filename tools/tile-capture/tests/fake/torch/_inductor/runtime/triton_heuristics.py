"""Inductor's CachingAutotuner as generated kernel files use it: the
decorators (pointwise, reduction, persistent_reduction) wrap the
JITFunction in a CachingAutotuner with a few configs; run() picks one
(the first, where Inductor would benchmark) and launches through a
launcher, never through JITFunction.run; _interpret_args_grid gives the
grid of the Grid1D/2D grids Inductor names in inductor_meta."""
import triton


class Launcher:
    def __init__(self, config):
        self.config = config

    def __call__(self, *args, stream):
        pass


class CachingAutotuner:
    def __init__(self, fn, triton_meta, configs, inductor_meta, filename):
        self.fn = fn
        self.filename = filename
        self.triton_meta = triton_meta
        self.configs = configs
        self.inductor_meta = inductor_meta
        self.launchers = []

    def precompile(self):
        self.launchers = [Launcher(c) for c in self.configs]

    def autotune_to_one_config(self, *args):
        self.launchers = self.launchers[-1:]

    def run(self, *args, stream, benchmark_run=False, **kwargs):
        if len(self.launchers) != 1:
            if not self.launchers:
                self.precompile()
            if len(self.launchers) > 1:
                self.autotune_to_one_config(*args)
        (launcher,) = self.launchers
        return launcher(*args, **kwargs, stream=stream)

    def _interpret_args_grid(self, args, cfg):
        names = [p.name for p in self.fn.params if not p.is_constexpr]
        env = dict(zip(names, args))
        dims = {"Grid1D": "x", "Grid2D": "xy"}[self.inductor_meta["grid_type"]]
        grid = [triton.cdiv(env[d + "numel"], cfg.kwargs.get(d.upper() + "BLOCK", 1)) for d in dims]
        return args, tuple(grid) + (1,) * (3 - len(grid))


def _cached(configs, triton_meta, inductor_meta, filename):
    return lambda fn: CachingAutotuner(fn, triton_meta, configs, inductor_meta, filename)


def pointwise(size_hints, triton_meta, tile_hint=None, filename=None, min_elem_per_thread=0, inductor_meta=None):
    block = min(1024, max(size_hints.values()))
    return _cached([triton.Config({"XBLOCK": block}, num_warps=4, num_stages=1)], triton_meta, inductor_meta,
                   filename)


def reduction(size_hints, reduction_hint=False, triton_meta=None, filename=None, inductor_meta=None):
    return _cached([triton.Config({"XBLOCK": 1, "R0_BLOCK": 128}, num_warps=4, num_stages=1),
                    triton.Config({"XBLOCK": 8, "R0_BLOCK": 64}, num_warps=2, num_stages=1)],
                   triton_meta, inductor_meta, filename)


def persistent_reduction(size_hints, reduction_hint=False, triton_meta=None, filename=None, inductor_meta=None):
    return _cached([triton.Config({"XBLOCK": 8}, num_warps=2, num_stages=1)], triton_meta, inductor_meta, filename)
