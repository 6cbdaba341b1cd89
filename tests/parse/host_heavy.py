#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""A host-code-heavy module: everything around the kernels must parse
(or be skipped) without being evaluated. It "quotes" 'things' \"here\"."""
from __future__ import annotations

import os, sys as system
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice
from triton.language import core
import triton.language.extra.libdevice
from . import sibling
from ..pkg.mod import (alpha as a1,
                       beta,)
from typing import *

BLOCK = tl.constexpr(128)
X = 3
SCALE: float = 0.5
HEX, OCT = 0xFF_FF, 0o17
BIN = 0b1010_0101
BIG = 123_456_789_012_345_678_901_234_567_890
FLOATS = [1.5, 1., .5, 1e10, 1E-3, 1_0.0_1e+1_0, 3.14j, 10J, 0j, 00, 0_0]
STRINGS = ('a' "b" r'\n' R"\d" u'uni' f'{X}' F"{X!r:>10}" rf'{X}\n' fR"{X}")
BYTES = b'\x00\xff' Rb'raw' bR"raw" B'\101'
TRIPLE = '''it's "quoted"
across lines''' + """and \"\"\" this"""
ESCAPES = "\a\b\f\n\r\t\v\\\'\"\101\x41\u00e9\U0001F600\N{BULLET}\q"
CONT = 1 + \
    2 + \
  3
WIDE = (1,
            2,
    3)
ws = {'a': 1, **{'b': 2}}
st = {1, 2, *[3]}
empty = {}
sl = ws and [1, 2, 3][::2][1:][:-1:1]
chained = 1 < X <= 10 != 11
walrus = [y for x in range(10) if (y := x * 2) > 4]
gen = sum(x for x in range(10))
dc = {k: v for k, v in ws.items() if v}
sc = {x for x in range(3)}
nested = [[i * j for j in range(i)] for i in range(4) if i if i % 2]
lam = lambda a, b=2, *c, d, e=5, **f: (a, b, c, d, e, f)
lam2 = lambda: 0
lam3 = lambda *, k: k
cond = 1 if X else 2 if SCALE else 3
unpack = [*range(3), *[4]]
first, *rest = [1, 2, 3]
(p, q), r = (1, 2), 3
power = -2 ** -1
bits = ~X & 0xF | X ^ 3 << 2 >> 1
mat = None
x = y = z = 0
x += 1; y -= 1; z *= 2
x //= 2; x **= 2; x %= 3; x <<= 1; x >>= 1; x &= 1; x |= 1; x ^= 1
not_in = 1 not in [2] and 3 is not None or not x
ell = ...
subs = ws['a'] if 'a' in ws else None
anno: dict[str, int]
sys_path = system.path[0:1]


def gen_fn(n):
    yield n
    yield from range(n)
    x = yield
    return x


async def async_fn(session, *urls, timeout: float = 1.0, **kw) -> list[str]:
    async with session.get(urls[0]) as resp, session.lock:
        data = await resp.text()
    async for chunk in resp.content:
        await chunk
    result = [await f for f in urls]
    return [d async for d in data]


def outer():
    count = 0

    def inner():
        nonlocal count
        global X
        count += 1
        return count
    return inner


def positional(a, b, /, c, *, d=4):
    return a, b, c, d


class Base:
    pass


class Config(Base, metaclass=type):
    """Docstring."""
    attr: int = 1
    other = [i for i in range(attr)] if False else []

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.kwargs = kwargs

    @property
    def value(self):
        return self.kwargs.get("value", None)

    @staticmethod
    def make(*a, **k):
        return Config(*a, **k)

    @classmethod
    def from_env(cls):
        return cls(**{k: v for k, v in os.environ.items() if k.startswith("TILE_")})

    async def run(self):
        pass


@triton.jit
def helper(x, y):
    return x * y, x + y


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_M': 64, 'BLOCK_N': 32}, num_warps=4, num_stages=2),
        triton.Config({'BLOCK_M': 128, 'BLOCK_N': 64}, num_warps=8, num_stages=3),
    ],
    key=['M', 'N'],
)
@triton.heuristics({'EVEN_M': lambda args: args['M'] % args['BLOCK_M'] == 0})
@triton.jit(do_not_specialize=["M"], noinline=False)
def kernel(x_ptr, y_ptr, M, N: tl.int32, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr = 32,
           EVEN_M: "tl.constexpr" = False):
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    ptrs = x_ptr + rm[:, None] * stride + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, N, BLOCK_N):
        if EVEN_M:
            a = tl.load(ptrs)
        elif k > 0:
            a = tl.load(ptrs, mask=rm[:, None] < M, other=0.0)
        else:
            a = tl.full((BLOCK_M, BLOCK_N), float('-inf'), tl.float32)
        acc += a
        ptrs += BLOCK_N
    i = 0
    while i < 4:
        i += 1
    lo, hi = helper(acc, acc)
    m: tl.constexpr = 3
    out = tl.where(acc > 0, acc, -acc) if m > 2 else acc
    assert BLOCK_M >= 16, "block too small"
    tl.static_assert(BLOCK_N % 16 == 0)
    x = libdevice.exp(acc) + cuda_libdevice.log(acc) + core.abs(acc)
    tl.store(y_ptr + rm[:, None] * stride + rn[None, :], out.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))
    return


def decorated_host(fn=lambda x: x):
    @fn
    def deco():
        pass
    return deco


try:
    import numpy as np
except ImportError as e:
    np = None
except (ValueError, TypeError):
    pass
else:
    pass
finally:
    pass

try:
    pass
except* ValueError:
    pass

with open(__file__) as f1, open(__file__) as f2:
    pass

with (open(__file__) as f3,
      open(__file__) as f4):
    pass

with (open(__file__)):
    pass

while False:
    break
else:
    pass

for i, (j, k) in enumerate([(1, 2)]):
    continue
else:
    del i, j

if X > 2: Y = 1
elif X: Y = 2
else: Y = 3

match sys_path:
    case [first, *others]:
        pass
    case {"key": value, **rest}:
        pass
    case Config(attr=1) | None:
        pass
    case _:
        pass

match = 1
type = 2
case = match + type

def tabs():
	if True:
		return 1
	return 0

raise_it = False
if raise_it:
    raise ValueError("x") from None
assert X, f"{X=}"
print(*[1], sep="", **{"end": "\n"})
print(f"nested {ws['a']:>{X}} {'x' if X else 'y'} {{literal}} {X!r}")
print(f'''multi
{X}
line''')

if __name__ == "__main__":
    grid = lambda meta: (triton.cdiv(1024, meta["BLOCK_M"]),)
    kernel[grid](None, None, 1024, 1024, 1)
