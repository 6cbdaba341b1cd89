"""The names Inductor's generated kernel files import from hints."""
import enum


class ReductionHint(enum.Enum):
    INNER = 0
    OUTER = 1
    DEFAULT = 2


class TileHint(enum.Enum):
    SQUARE = 0
    DEFAULT = 1


class AutotuneHint(enum.Enum):
    ONE_ELEMENT_PER_THREAD = 0


class DeviceProperties:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
