"""The ctypes_libs area on the simulated torch_musa, whose libmusart.so / libmccl.so are real
shared libraries answering from torch.musa (fresh interpreters)."""
import json

import pytest

from tests._fresh import run_sim
from torchada.areas import ctypes_libs

CODE = """
import ctypes, ctypes.util, json
rt = ctypes.CDLL("libcudart.so.12")
n = ctypes.c_int()
free, total = ctypes.c_size_t(), ctypes.c_size_t()
x = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")  # reserve something
rc = [rt.cudaGetDeviceCount(ctypes.byref(n)), rt["cudaMemGetInfo"](ctypes.byref(free), ctypes.byref(total)),
      rt.cudaDeviceSynchronize()]
nccl = ctypes.cdll.LoadLibrary("/usr/local/cuda/lib64/libnccl.so.2")
version = ctypes.c_int()
rc.append(nccl.ncclGetVersion(ctypes.byref(version)))
mfree, mtotal = torch.cuda.mem_get_info()
try:
    rt.cudaGraphicsMapResources
    missing = None
except AttributeError as exc:
    missing = str(exc)
print(json.dumps({"rc": rc, "count": n.value, "same_mem": [free.value, total.value] == [mfree, mtotal],
                  "cdll": isinstance(rt, ctypes.CDLL) and isinstance(nccl, ctypes.CDLL),
                  "names": [rt._name, nccl._name], "version": version.value,
                  "cached": rt.cudaGetDeviceCount is rt.cudaGetDeviceCount,
                  "missing": missing, "found": (ctypes.util.find_library("cudart") or "").rsplit("/", 1)[-1],
                  "plain_libm": ctypes.util.find_library("m")}))
"""


def test_cuda_runtime_through_ctypes_answers_like_torch_cuda():
    out = json.loads(run_sim(CODE).stdout.strip().splitlines()[-1])
    assert out.pop("rc") == [0, 0, 0, 0]
    assert out.pop("count") == 2  # the simulator's default device count
    assert out.pop("same_mem") is True
    assert out.pop("cdll") is True and out.pop("cached") is True
    assert out.pop("names") == ["libmusart.so", "libmccl.so"]
    assert out.pop("version") == 21600  # MCCL 2.16.0 in NCCL's encoding
    assert out.pop("missing") == ("libmusart.so (loaded for libcudart.so.12) has no "
                                  "musaGraphicsMapResources, the MUSA twin of "
                                  "cudaGraphicsMapResources")
    assert out.pop("found") == "libmusart.so"
    assert out.pop("plain_libm")  # non-CUDA names are the loader's own answer


def test_a_missing_musa_twin_names_both_libraries():
    proc = run_sim("import ctypes; ctypes.CDLL('libcufft.so.11')", check=False)
    assert proc.returncode != 0
    assert "libcufft.so.11 is a CUDA library; on MUSA its twin libmufft.so could not be " \
           "loaded" in proc.stderr


@pytest.mark.parametrize("cuda, musa", [
    ("libcudart.so", "libmusart.so"), ("libcudart.so.12", "libmusart.so"),
    ("/usr/local/cuda/lib64/libcublasLt.so.12.4.5", "libmublasLt.so"),
    ("libcublas.so", "libmublas.so"), ("libnccl.so.2", "libmccl.so"),
    ("libcuda.so.1", "libmusa.so"), ("libcudnn.so.9", "libmudnn.so"),
    ("libc.so.6", None), ("libcudaext.so", None), ("mylibcudart.so", None)])
def test_library_names(cuda, musa):
    assert ctypes_libs.musa_library(cuda) == musa


@pytest.mark.parametrize("cuda, musa", [
    ("cudaMalloc", "musaMalloc"), ("ncclAllReduce", "mcclAllReduce"),
    ("cublasSgemm_v2", "mublasSgemm_v2"), ("cublasLtMatmul", "mublasLtMatmul"),
    ("curandCreateGenerator", "murandCreateGenerator"), ("cuInit", "muInit"),
    ("cudnnCreate", "mudnnCreate"), ("my_helper", "my_helper")])
def test_symbol_names(cuda, musa):
    assert ctypes_libs.musa_symbol(cuda) == musa
