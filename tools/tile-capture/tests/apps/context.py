"""tile_capture.capture() inside a program: only the block's launches are
recorded. Arguments: the manifest and the JSON record to write."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path += [os.path.join(HERE, "..", "..", "..", "..", "tests", "kernels")]

import torch  # noqa: E402

import tile_capture  # noqa: E402
import vector_add  # noqa: E402

x, y = torch.empty(4096), torch.empty(4096)
with tile_capture.capture(sys.argv[1], json=sys.argv[2]):
    vector_add.add(x, y)
vector_add.add(torch.empty(1000), torch.empty(1000))
