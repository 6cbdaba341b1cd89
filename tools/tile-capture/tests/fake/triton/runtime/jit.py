"""JITFunction as Triton 3.6 has it, less the compiler: the parameters
(KernelParam), the binder, the grid evaluated with the bound arguments."""
import inspect

OPTIONS = {"num_warps", "num_stages", "num_ctas", "maxnreg", "debug", "enable_fp_fusion",
           "launch_cooperative_grid", "launch_pdl"}


class KernelParam:
    def __init__(self, num, param, do_not_specialize, do_not_specialize_on_alignment):
        self.num = num
        self.name = param.name
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment
        ann = param.annotation
        if ann is inspect.Parameter.empty:
            text = ""
        elif isinstance(ann, str):
            text = ann
        else:
            text = getattr(ann, "name", None) or getattr(ann, "__name__", str(ann))
        self.is_constexpr = "constexpr" in text
        # an annotated runtime type (n: tl.int64, x: "fp32"): Triton keeps it
        self.annotation_type = "" if self.is_constexpr else {"int64": "i64", "int32": "i32", "float32": "fp32",
                                                             "int1": "u1"}.get(text, text)
        self.default = param.default


class KernelInterface:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)


class JITFunction(KernelInterface):
    def __init__(self, fn, do_not_specialize=None, do_not_specialize_on_alignment=None, **_):
        self.fn = fn
        self.signature = inspect.signature(fn)
        inspect.getsourcelines(fn)  # Triton reads a kernel's source when it is decorated
        dns = do_not_specialize or []
        dnsoa = do_not_specialize_on_alignment or []
        self.params = [KernelParam(i, p, i in dns or p.name in dns, i in dnsoa or p.name in dnsoa)
                       for i, p in enumerate(self.signature.parameters.values())]
        self.arg_names = [p.name for p in self.params]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self.__name__ = fn.__name__
        self.launches = 0

    def run(self, *args, grid, warmup, **kwargs):
        for k in kwargs:
            if k not in OPTIONS and k not in self.arg_names:
                raise KeyError("Keyword argument %s was specified but unrecognised" % k)
        bound = self.signature.bind(*args, **{k: v for k, v in kwargs.items() if k in self.arg_names})
        bound.apply_defaults()
        if not warmup:
            g = grid(dict(bound.arguments)) if callable(grid) else grid
            assert 1 <= len(g) <= 3, g
            self.launches += 1


def jit(fn=None, **kwargs):
    if fn is not None:
        return JITFunction(fn, **kwargs)
    return lambda f: JITFunction(f, **kwargs)
