"""A stand-in for the few torch pieces tile-capture's tests touch: dtypes,
tensors that are only an address, a shape and strides (no data; fresh
tensors are 256-byte aligned, x[1:] is not 16-byte aligned), and Inductor's
runtime modules (torch/_inductor/runtime)."""


class dtype:
    def __init__(self, name, itemsize):
        self.name = name
        self.itemsize = itemsize

    def __repr__(self):
        return "torch." + self.name


float32, float16, bfloat16, float64 = dtype("float32", 4), dtype("float16", 2), dtype("bfloat16", 2), \
    dtype("float64", 8)
int32, int64, int8, uint8 = dtype("int32", 4), dtype("int64", 8), dtype("int8", 1), dtype("uint8", 1)
bool = dtype("bool", 1)
complex64 = dtype("complex64", 8)

_next = [1 << 32]


class Tensor:
    def __init__(self, shape, dtype=float32, strides=None, ptr=None):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        if strides is None:
            strides, n = [], 1
            for s in reversed(self.shape):
                strides.insert(0, n)
                n *= s
        self._strides = tuple(strides)
        if ptr is None:
            ptr = _next[0]
            _next[0] += (self.numel() * dtype.itemsize + 255) // 256 * 256 + 256
        self._ptr = ptr

    def data_ptr(self):
        return self._ptr

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def element_size(self):
        return self.dtype.itemsize

    def dim(self):
        return len(self.shape)

    def __getitem__(self, index):
        """x[k:] of a 1-D tensor: a view k elements further."""
        assert isinstance(index, slice) and index.stop is None and len(self.shape) == 1
        k = index.start or 0
        return Tensor((self.shape[0] - k,), self.dtype, self._strides, self._ptr + k * self.dtype.itemsize)


def _shape(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def empty(*size, dtype=float32, device=None):
    return Tensor(_shape(size), dtype)


def empty_like(t):
    return Tensor(t.shape, t.dtype)


zeros = randn = empty
