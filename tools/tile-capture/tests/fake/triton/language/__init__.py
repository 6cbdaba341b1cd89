"""triton.language for kernels that are decorated but never run here:
constexpr for annotations, the dtypes, and a stand-in for anything else."""


class constexpr:
    def __init__(self, value):
        self.value = value


class dtype:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "triton.language." + self.name


float16, bfloat16, float32, float64 = dtype("fp16"), dtype("bf16"), dtype("fp32"), dtype("fp64")
float8e4nv, float8e5 = dtype("fp8e4nv"), dtype("fp8e5")
int1, int8, int16, int32, int64 = (dtype(n) for n in ("int1", "int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (dtype(n) for n in ("uint8", "uint16", "uint32", "uint64"))


from . import extra, math  # noqa: E402  (tl.math, tl.extra.libdevice as Triton has them)
from .extra import libdevice  # noqa: E402,F401


def __getattr__(name):  # tl.program_id, tl.where, ...: only kernel bodies use them
    return lambda *args, **kwargs: None
