"""numpy <-> xffi tensors through DLPack 1.x, both ways, zero copy.

Driven through ctypes against the shared library named by the XFFI_LIB
environment variable (the path of libxffi.so), which is required:

    XFFI_LIB=/path/to/build/libxffi.so python3 -m pytest -q tests/python/test_numpy_dlpack.py

What it proves:
- a numpy array becomes an xffi Tensor with the same data pointer (versioned
  "dltensor_versioned" capsule and legacy "dltensor" capsule), the read-only
  flag comes across, and numpy's deleter runs exactly once, when xffi lets go;
- an xffi Tensor becomes a numpy array through numpy.from_dlpack sharing its
  memory (writes are seen both ways), read-only tensors become read-only
  arrays, and the Tensor stays alive until numpy lets go, then is freed;
- a refused import leaves the capsule's ownership alone (its deleter still
  runs once, through the capsule).
"""
import ctypes
import gc
import os
import sys

import numpy as np
import pytest

# ---- ctypes mirror of the DLPack 1.x structs and the xffi entry points ----


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
READ_ONLY = 1
XFFI_OBJECT_HEADER = 24  # the DLTensor cell follows the 24-byte object header

VERSIONED = b"dltensor_versioned"
USED_VERSIONED = b"used_dltensor_versioned"
LEGACY = b"dltensor"
USED_LEGACY = b"used_dltensor"
# PyCapsule_SetName keeps the name pointer: keep the buffers alive forever.
_NAMES = {n: ctypes.create_string_buffer(n) for n in (VERSIONED, USED_VERSIONED, LEGACY, USED_LEGACY)}

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
# The destructor gets a capsule whose reference count is already zero: it
# must only be touched through raw pointers, never as a py_object.
_capsule_name_raw = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_GetName", _api))
_capsule_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api)
)


def load_xffi():
    path = os.environ.get("XFFI_LIB")
    if not path:
        pytest.fail(
            "XFFI_LIB is not set: set it to the path of the built shared library, e.g. "
            "XFFI_LIB=/path/to/build/libxffi.so python3 -m pytest tests/python/test_numpy_dlpack.py",
            pytrace=False,
        )
    if not os.path.exists(path):
        pytest.fail(f"XFFI_LIB={path} does not exist", pytrace=False)
    lib = ctypes.CDLL(path)
    vp, pvp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    sigs = {
        "xffi_tensor_new": [pvp, ctypes.POINTER(ctypes.c_int64), ctypes.c_int32, DLDataType],
        "xffi_tensor_from_dlpack": [pvp, vp],
        "xffi_tensor_from_dlpack_legacy": [pvp, vp],
        "xffi_tensor_to_dlpack": [ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)), vp],
        "xffi_tensor_to_dlpack_legacy": [ctypes.POINTER(ctypes.POINTER(DLManagedTensor)), vp],
        "xffi_tensor_is_read_only": [ctypes.POINTER(ctypes.c_int), vp],
        "xffi_tensor_set_read_only": [vp],
        "xffi_weak_new": [pvp, vp],
        "xffi_weak_lock": [pvp, vp],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = ctypes.c_int
    for name in ("xffi_object_dec_ref", "xffi_object_inc_ref", "xffi_weak_release"):
        getattr(lib, name).argtypes = [vp]
        getattr(lib, name).restype = None
    lib.xffi_error_move_raised.argtypes = []
    lib.xffi_error_move_raised.restype = vp
    return lib


@pytest.fixture(scope="module")
def xffi():
    return load_xffi()


def dltensor_of(tensor):
    return DLTensor.from_address(tensor.value + XFFI_OBJECT_HEADER)


def strong_count(tensor):
    return ctypes.c_uint64.from_address(tensor.value).value & 0xFFFFFFFF


def raised_message(lib):
    """Moves the raised xffi error out and returns (kind, message)."""
    err = lib.xffi_error_move_raised()
    assert err, "expected an xffi error to be raised"

    class ByteArray(ctypes.Structure):
        _fields_ = [("data", ctypes.c_char_p), ("size", ctypes.c_size_t)]

    kind = ByteArray.from_address(err + XFFI_OBJECT_HEADER).data.decode()
    message = ByteArray.from_address(err + XFFI_OBJECT_HEADER + 16).data.decode()
    lib.xffi_object_dec_ref(err)
    return kind, message


class CountingDeleter:
    """Replaces a managed tensor's deleter by one that counts, then calls the original."""

    def __init__(self, managed):
        self.calls = 0
        original = DELETER(managed.deleter)

        def run(self_ptr):
            self.calls += 1
            original(self_ptr)

        self._callback = DELETER(run)  # kept alive by self
        managed.deleter = ctypes.cast(self._callback, ctypes.c_void_p).value


def is_destroyed(lib, weak):
    obj = ctypes.c_void_p()
    assert lib.xffi_weak_lock(ctypes.byref(obj), weak) == 0
    if not obj.value:
        return True
    lib.xffi_object_dec_ref(obj)
    return False


# ---- numpy -> xffi ----


def test_numpy_array_becomes_xffi_tensor_with_same_data(xffi):
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    refs_before = sys.getrefcount(arr)
    capsule = arr.__dlpack__(max_version=(1, 0))
    managed_ptr = _api.PyCapsule_GetPointer(capsule, VERSIONED)
    managed = DLManagedTensorVersioned.from_address(managed_ptr)
    assert managed.version.major == 1
    counter = CountingDeleter(managed)

    tensor = ctypes.c_void_p()
    assert xffi.xffi_tensor_from_dlpack(ctypes.byref(tensor), managed_ptr) == 0
    # xffi owns it now: rename the capsule so its destructor leaves it alone.
    assert _api.PyCapsule_SetName(capsule, ctypes.addressof(_NAMES[USED_VERSIONED])) == 0
    del capsule

    dl = dltensor_of(tensor)
    assert dl.data == arr.ctypes.data  # zero copy
    assert dl.device.device_type == 1
    assert dl.ndim == 2
    assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (2, 32, 1)
    assert [dl.shape[i] for i in range(2)] == [3, 4]
    assert [dl.strides[i] for i in range(2)] == [4, 1]  # elements, always filled in
    read_only = ctypes.c_int(-1)
    assert xffi.xffi_tensor_is_read_only(ctypes.byref(read_only), tensor) == 0
    assert read_only.value == 0

    # The same memory: a write through xffi is seen by numpy.
    ctypes.c_float.from_address(dl.data + 5 * 4).value = -7.5
    assert arr[1, 1] == -7.5

    assert counter.calls == 0
    assert sys.getrefcount(arr) == refs_before + 1  # numpy's manager holds the array
    xffi.xffi_object_dec_ref(tensor)
    assert counter.calls == 1  # numpy's deleter ran exactly once, when xffi let go
    assert sys.getrefcount(arr) == refs_before


def test_read_only_numpy_array_becomes_read_only_tensor(xffi):
    arr = np.ones((2, 2), dtype=np.int64)
    arr.flags.writeable = False
    capsule = arr.__dlpack__(max_version=(1, 0))
    managed_ptr = _api.PyCapsule_GetPointer(capsule, VERSIONED)
    managed = DLManagedTensorVersioned.from_address(managed_ptr)
    assert managed.flags & READ_ONLY
    counter = CountingDeleter(managed)
    tensor = ctypes.c_void_p()
    assert xffi.xffi_tensor_from_dlpack(ctypes.byref(tensor), managed_ptr) == 0
    assert _api.PyCapsule_SetName(capsule, ctypes.addressof(_NAMES[USED_VERSIONED])) == 0
    del capsule
    read_only = ctypes.c_int(-1)
    assert xffi.xffi_tensor_is_read_only(ctypes.byref(read_only), tensor) == 0
    assert read_only.value == 1
    assert dltensor_of(tensor).data == arr.ctypes.data
    xffi.xffi_object_dec_ref(tensor)
    assert counter.calls == 1


def test_legacy_numpy_capsule_becomes_xffi_tensor(xffi):
    arr = np.arange(6, dtype=np.int32)[::2]  # strided: 3 elements, stride 2
    capsule = arr.__dlpack__()  # no max_version: the legacy "dltensor" capsule
    managed_ptr = _api.PyCapsule_GetPointer(capsule, LEGACY)
    managed = DLManagedTensor.from_address(managed_ptr)
    counter = CountingDeleter(managed)
    tensor = ctypes.c_void_p()
    assert xffi.xffi_tensor_from_dlpack_legacy(ctypes.byref(tensor), managed_ptr) == 0
    assert _api.PyCapsule_SetName(capsule, ctypes.addressof(_NAMES[USED_LEGACY])) == 0
    del capsule
    dl = dltensor_of(tensor)
    assert dl.data + dl.byte_offset == arr.ctypes.data
    assert dl.shape[0] == 3 and dl.strides[0] == 2
    xffi.xffi_object_dec_ref(tensor)
    assert counter.calls == 1


def test_refused_import_leaves_the_capsule_in_charge(xffi):
    arr = np.zeros(4, dtype=np.float64)
    capsule = arr.__dlpack__(max_version=(1, 0))
    managed_ptr = _api.PyCapsule_GetPointer(capsule, VERSIONED)
    managed = DLManagedTensorVersioned.from_address(managed_ptr)
    counter = CountingDeleter(managed)
    managed.version.major = 2
    tensor = ctypes.c_void_p(1)
    assert xffi.xffi_tensor_from_dlpack(ctypes.byref(tensor), managed_ptr) == -1
    assert not tensor.value
    assert raised_message(xffi) == (
        "ValueError",
        "xffi_tensor_from_dlpack: managed->version is 2.0, xffi supports DLPack 1.x",
    )
    assert counter.calls == 0
    del capsule  # still named "dltensor_versioned": its destructor calls the deleter
    gc.collect()
    assert counter.calls == 1


# ---- xffi -> numpy ----


def _capsule_destructor(capsule_ptr):
    """Runs the deleter of a capsule no consumer took (name still unused)."""
    name = _capsule_name_raw(capsule_ptr)
    if name == VERSIONED:
        managed = DLManagedTensorVersioned.from_address(_capsule_pointer_raw(capsule_ptr, VERSIONED))
        DELETER(managed.deleter)(ctypes.addressof(managed))
    elif name == LEGACY:
        managed = DLManagedTensor.from_address(_capsule_pointer_raw(capsule_ptr, LEGACY))
        DELETER(managed.deleter)(ctypes.addressof(managed))


_CAPSULE_DESTRUCTOR = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(_capsule_destructor)


class XffiArray:
    """A Python object exposing an xffi Tensor through the DLPack protocol."""

    def __init__(self, lib, tensor, legacy_only=False):
        self.lib = lib
        self.tensor = tensor  # borrowed: the test keeps its own reference
        self.legacy_only = legacy_only
        self.counters = []

    def __dlpack_device__(self):
        dl = dltensor_of(self.tensor)
        return (dl.device.device_type, dl.device.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("XffiArray does not copy")
        if max_version is not None and max_version[0] >= 1 and not self.legacy_only:
            managed = ctypes.POINTER(DLManagedTensorVersioned)()
            assert self.lib.xffi_tensor_to_dlpack(ctypes.byref(managed), self.tensor) == 0
            self.counters.append(CountingDeleter(managed.contents))
            return _api.PyCapsule_New(
                ctypes.cast(managed, ctypes.c_void_p),
                ctypes.addressof(_NAMES[VERSIONED]),
                ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p),
            )
        managed = ctypes.POINTER(DLManagedTensor)()
        if self.lib.xffi_tensor_to_dlpack_legacy(ctypes.byref(managed), self.tensor) != 0:
            kind, message = raised_message(self.lib)
            raise BufferError(f"{kind}: {message}")
        self.counters.append(CountingDeleter(managed.contents))
        return _api.PyCapsule_New(
            ctypes.cast(managed, ctypes.c_void_p),
            ctypes.addressof(_NAMES[LEGACY]),
            ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p),
        )


def new_tensor(lib, shape, dtype=(2, 32, 1)):
    dims = (ctypes.c_int64 * len(shape))(*shape)
    tensor = ctypes.c_void_p()
    assert lib.xffi_tensor_new(ctypes.byref(tensor), dims, len(shape), DLDataType(*dtype)) == 0
    return tensor


def test_xffi_tensor_becomes_numpy_array_sharing_memory(xffi):
    tensor = new_tensor(xffi, (2, 3))
    dl = dltensor_of(tensor)
    for i in range(6):
        ctypes.c_float.from_address(dl.data + 4 * i).value = float(i) + 0.5
    weak = ctypes.c_void_p()
    assert xffi.xffi_weak_new(ctypes.byref(weak), tensor) == 0

    source = XffiArray(xffi, tensor)
    arr = np.from_dlpack(source)
    assert len(source.counters) == 1  # the versioned protocol was used
    assert arr.ctypes.data == dl.data  # zero copy
    assert arr.shape == (2, 3) and arr.dtype == np.float32
    assert arr.flags.writeable
    np.testing.assert_array_equal(arr, np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5)
    arr[1, 2] = 100.0  # numpy writes, xffi sees it
    assert ctypes.c_float.from_address(dl.data + 4 * 5).value == 100.0
    assert strong_count(tensor) == 2  # the export holds the tensor

    xffi.xffi_object_dec_ref(tensor)  # xffi's own reference goes first
    assert not is_destroyed(xffi, weak)
    assert arr[1, 2] == 100.0  # still valid memory
    assert source.counters[0].calls == 0
    del arr
    gc.collect()
    assert source.counters[0].calls == 1  # numpy called the deleter exactly once
    assert is_destroyed(xffi, weak)  # and that freed the tensor
    xffi.xffi_weak_release(weak)


def test_read_only_xffi_tensor_becomes_read_only_numpy_array(xffi):
    tensor = new_tensor(xffi, (4,), dtype=(0, 16, 1))  # int16
    assert xffi.xffi_tensor_set_read_only(tensor) == 0
    source = XffiArray(xffi, tensor)
    arr = np.from_dlpack(source)
    assert arr.dtype == np.int16
    assert not arr.flags.writeable
    with pytest.raises(ValueError):
        arr[0] = 1
    del arr
    gc.collect()
    assert source.counters[0].calls == 1
    assert strong_count(tensor) == 1
    xffi.xffi_object_dec_ref(tensor)


def test_legacy_export_to_numpy_and_refusal_when_read_only(xffi):
    tensor = new_tensor(xffi, (3,), dtype=(2, 64, 1))
    source = XffiArray(xffi, tensor, legacy_only=True)
    arr = np.from_dlpack(source)
    assert arr.ctypes.data == dltensor_of(tensor).data
    assert arr.dtype == np.float64
    del arr
    gc.collect()
    assert source.counters[0].calls == 1
    assert strong_count(tensor) == 1

    assert xffi.xffi_tensor_set_read_only(tensor) == 0
    with pytest.raises(BufferError, match="the tensor is read-only and a legacy DLManagedTensor cannot say so"):
        source.__dlpack__()
    assert strong_count(tensor) == 1
    xffi.xffi_object_dec_ref(tensor)


def test_unconsumed_export_capsule_releases_the_tensor(xffi):
    tensor = new_tensor(xffi, (2,))
    source = XffiArray(xffi, tensor)
    capsule = source.__dlpack__(max_version=(1, 0))
    assert strong_count(tensor) == 2
    del capsule
    gc.collect()
    assert source.counters[0].calls == 1
    assert strong_count(tensor) == 1
    xffi.xffi_object_dec_ref(tensor)


def test_round_trip_numpy_xffi_numpy(xffi):
    arr = np.linspace(0.0, 1.0, 8, dtype=np.float64).reshape(2, 4)
    capsule = arr.__dlpack__(max_version=(1, 0))
    managed_ptr = _api.PyCapsule_GetPointer(capsule, VERSIONED)
    counter = CountingDeleter(DLManagedTensorVersioned.from_address(managed_ptr))
    tensor = ctypes.c_void_p()
    assert xffi.xffi_tensor_from_dlpack(ctypes.byref(tensor), managed_ptr) == 0
    assert _api.PyCapsule_SetName(capsule, ctypes.addressof(_NAMES[USED_VERSIONED])) == 0
    del capsule
    back = np.from_dlpack(XffiArray(xffi, tensor))
    assert back.ctypes.data == arr.ctypes.data
    np.testing.assert_array_equal(back, arr)
    xffi.xffi_object_dec_ref(tensor)
    assert counter.calls == 0  # numpy's second array still holds the xffi tensor
    del back
    gc.collect()
    assert counter.calls == 1
