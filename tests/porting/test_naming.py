import subprocess
import sys

from torchada.naming import (cublas_to_mublas_name, cuda_to_musa_name, curand_to_murand_name,
                             nccl_to_mccl_name)


def test_converters_use_the_porting_tables():
    assert cuda_to_musa_name("cudaMalloc") == "musaMalloc"
    assert cuda_to_musa_name("cudaStream_t") == "musaStream_t"
    assert cuda_to_musa_name("cublasHandle_t") == "mublasHandle_t"
    assert cuda_to_musa_name("at::cuda") == "at::musa"
    assert cuda_to_musa_name("nvjpegDecode") == "mtjpegDecode"
    assert cuda_to_musa_name("cuda_runtime.h") == "musa_runtime.h"
    assert cuda_to_musa_name("not_a_cuda_name") == "not_a_cuda_name"
    assert nccl_to_mccl_name("ncclAllReduce") == "mcclAllReduce"
    assert nccl_to_mccl_name("nccl.h") == "mccl.h"
    assert nccl_to_mccl_name("cudaMalloc") == "cudaMalloc"  # other domain: unchanged
    assert cublas_to_mublas_name("cublasGemmEx") == "mublasGemmEx"
    assert cublas_to_mublas_name("CUBLAS_OP_N") == "MUBLAS_OP_N"
    assert curand_to_murand_name("curand_init") == "murand_init"
    assert curand_to_murand_name("curandStatePhilox4_32_10_t") == "murand_state_philox4x32_10"


def test_converters_are_idempotent():
    for name in ("cudaMalloc", "ncclSend", "cublasCreate", "curand_normal"):
        once = cuda_to_musa_name(name)
        assert cuda_to_musa_name(once) == once


def test_naming_import_is_cheap():
    code = ("import sys; import torchada.naming as n; n.cuda_to_musa_name('cudaFree');"
            "assert 'torch' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
