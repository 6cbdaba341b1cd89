"""Autotuner, Config and Heuristics as Triton 3.6 has them, with a fake
benchmark (the Autotuner's fake_time(config, args), else the config's index)."""
import builtins

from .jit import KernelInterface


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        return {**self.kwargs, **{k: v for k, v in (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                                                   ("num_stages", self.num_stages), ("maxnreg", self.maxnreg))
                                  if v is not None}}

    def __hash__(self):
        return hash((*self.all_kwargs().items(), self.pre_hook))

    def __eq__(self, other):
        return (*self.all_kwargs().items(), self.pre_hook) == (*other.all_kwargs().items(), other.pre_hook)


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, **_):
        self.fn = fn
        self.arg_names = arg_names
        self.configs = configs or [Config({})]
        self.keys = key
        self.cache = {}

    def _bench(self, *args, config, **meta):
        current = dict(meta, **config.all_kwargs())
        self.fn.run(*args, **current)
        fake_time = getattr(self, "fake_time", None)
        return fake_time(config, {**self.nargs, **current}) if fake_time else self.configs.index(config)

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            named = {k: v for k, v in all_args.items() if k in self.arg_names}
            key = [named[k] for k in self.keys if k in named]
            key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
            key = tuple(key)
            if key not in self.cache:
                timings = {c: self._bench(*args, config=c, **kwargs) for c in self.configs}
                self.cache[key] = builtins.min(timings, key=timings.get)
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, **_):
    return lambda fn: Autotuner(fn, fn.arg_names, configs, key)


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = values
        self.arg_names = arg_names

    def run(self, *args, **kwargs):
        for v, heur in self.values.items():
            kwargs[v] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    return lambda fn: Heuristics(fn, fn.arg_names, values)
