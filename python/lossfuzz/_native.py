"""The guard library (liblossfuzz_guard.so, include/lossfuzz/guard.h) through
ctypes, and torch tensors as DLPack's DLTensor structs it reads."""
import ctypes
import os

ABI = 3


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class Call(ctypes.Structure):
    _fields_ = [("loss", ctypes.c_char_p), ("input", ctypes.POINTER(DLTensor)), ("target", ctypes.POINTER(DLTensor)),
                ("weight", ctypes.POINTER(DLTensor)), ("pos_weight", ctypes.POINTER(DLTensor)),
                ("ignore_index", ctypes.c_int64), ("reduction", ctypes.c_char_p), ("label_smoothing", ctypes.c_double)]


class Verdict(ctypes.Structure):
    _fields_ = [("accepted", ctypes.c_int), ("error", ctypes.c_char * 48),
                ("message", ctypes.c_char * 512), ("hint", ctypes.c_char * 512), ("hint_id", ctypes.c_char * 32),
                ("warning", ctypes.c_char * 512), ("warning_id", ctypes.c_char * 32), ("index", ctypes.c_int64),
                ("value", ctypes.c_int64)]


# DLPack's codes: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6
_DTYPES = {"float64": (2, 64), "float32": (2, 32), "float16": (2, 16), "bfloat16": (4, 16), "int64": (0, 64),
           "int32": (0, 32), "uint8": (1, 8), "bool": (6, 8)}


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("LOSSFUZZ_GUARD_LIB")
    if env:
        yield env
    yield os.path.join(here, "liblossfuzz_guard.so")  # installed by `pip install .`
    yield os.path.join(here, "..", "..", "build", "harness", "liblossfuzz_guard.so")  # the source tree's build


def load():
    tried = []
    for path in _candidates():
        if not os.path.exists(path):
            tried.append(path)
            continue
        lib = ctypes.CDLL(path)
        lib.lossfuzz_guard_check.argtypes = [ctypes.POINTER(Call), ctypes.POINTER(Verdict)]
        lib.lossfuzz_guard_check.restype = ctypes.c_int
        lib.lossfuzz_guard_abi.restype = ctypes.c_uint
        lib.lossfuzz_guard_devices.restype = ctypes.c_uint
        lib.lossfuzz_guard_loss.argtypes = [ctypes.c_uint]
        lib.lossfuzz_guard_loss.restype = ctypes.c_char_p
        if lib.lossfuzz_guard_abi() != ABI:
            raise ImportError("%s has guard ABI %d, this package speaks %d" % (path, lib.lossfuzz_guard_abi(), ABI))
        return lib
    raise ImportError("liblossfuzz_guard.so not found (`pip install .` in lossfuzz's clone builds it into this package, "
                      "or set LOSSFUZZ_GUARD_LIB); tried: %s" % ", ".join(tried))


CPU, CUDA = 1, 2  # lossfuzz_guard_devices' bits, and DLPack's device types kDLCPU, kDLCUDA


def dltensor(t, with_data=True):
    """A DLTensor over tensor t (kept alive by the caller), its shape and
    strides in ctypes arrays held on the struct; without data, its shape,
    dtype and strides alone (a tensor whose values the guard does not read)."""
    name = str(t.dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise TypeError("lossfuzz.check: a %s tensor: no loss takes one" % name)
    code, bits = _DTYPES[name]
    shape = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
    strides = (ctypes.c_int64 * max(t.dim(), 1))(*t.stride())
    device = DLDevice(CUDA, t.device.index or 0) if with_data and t.device.type == "cuda" else DLDevice(CPU, 0)
    d = DLTensor(ctypes.c_void_p(t.data_ptr() if with_data else 0), device, t.dim(), DLDataType(code, bits, 1),
                 shape, strides, 0)
    d._keep = (shape, strides)
    return d
