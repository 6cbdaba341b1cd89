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
