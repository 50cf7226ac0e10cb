"""Writing a batch as .safetensors (the format `lossfuzz repro` reads): an
8-byte header length, a JSON header naming each tensor's dtype, shape and
byte range, then the bytes. Plain data, never pickle."""
import json
import struct

_NAMES = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16", "int64": "I64", "int32": "I32",
          "uint8": "U8", "bool": "BOOL"}


def _bytes(t):
    import torch
    t = t.detach().to("cpu").contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: its bits as int16
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def write(path, tensors, metadata):
    """tensors: {name: torch.Tensor}; metadata: {name: str}."""
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        blob = _bytes(t)
        header[name] = {"dtype": _NAMES[str(t.dtype).replace("torch.", "")], "shape": list(t.shape),
                        "data_offsets": [at, at + len(blob)]}
        blobs.append(blob)
        at += len(blob)
    header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
