"""A stand-in for Triton 3.6's Python API, for tile-capture's tests on
machines without Triton or a GPU: @triton.jit gives a JITFunction whose
run() binds the arguments and evaluates the grid as Triton's does and
launches nothing; triton.autotune benchmarks every config through
Autotuner._bench (a config's time is the kernel's fake_time(config, args)
where the program sets one, else its index) and triton.heuristics computes
its values, both calling the inner run as Triton 3.6's do."""
from . import language
from .runtime.autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .runtime.jit import JITFunction, KernelInterface, jit

__version__ = "3.6.0+fake"


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    p = 1
    while p < n:
        p *= 2
    return p
