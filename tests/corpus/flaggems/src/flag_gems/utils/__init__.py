from flag_gems.utils.libentry import libentry, libtuner
from flag_gems.utils.pointwise_dynamic import pointwise_dynamic
from flag_gems.utils.shape_utils import (
    broadcastable,
    broadcastable_to,
    dim_compress,
    offsetCalculator,
    restride_dim,
)
from flag_gems.utils.triton_driver_helper import get_device_properties
from flag_gems.utils.triton_lang_helper import tl_extra_shim

__all__ = [
    "libentry",
    "libtuner",
    "pointwise_dynamic",
    "dim_compress",
    "restride_dim",
    "offsetCalculator",
    "broadcastable_to",
    "broadcastable",
    "get_device_properties",
    "tl_extra_shim",
]
