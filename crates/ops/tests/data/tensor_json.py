"""The JSON encoding of tensors shared by the make_*.py scripts whose tests read tensors bit
for bit (binary_dtypes, nn_dtypes): half and float elements as their IEEE bit patterns
(unsigned integers), complex elements as [re, im] pairs of bit patterns, integers and bools as
they are."""
import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16
BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def encode(a):
    a = np.asarray(a)
    dt = a.dtype
    name = "bfloat16" if dt == BF16 else dt.name
    flat = a.reshape(-1)
    if name in BITS:
        vals = [int(v) for v in flat.view(BITS[name])]
    elif name == "complex64":
        vals = [[int(r), int(i)] for r, i in zip(flat.real.astype(np.float32).view(np.uint32), flat.imag.astype(np.float32).view(np.uint32))]
    elif name == "complex128":
        vals = [[int(r), int(i)] for r, i in zip(flat.real.view(np.uint64), flat.imag.view(np.uint64))]
    elif name == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": name, "shape": list(a.shape), "values": vals}
