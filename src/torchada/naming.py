"""Public CUDA -> MUSA name converters, backed by the porter's rule tables.

Cheap to import: stdlib only, no torch. Each function returns the MUSA spelling of one
name, or the name unchanged when no rule applies (so the functions are idempotent).
"""

__all__ = ["cuda_to_musa_name", "nccl_to_mccl_name", "cublas_to_mublas_name",
           "curand_to_murand_name"]


def _convert(name, domains=None):
    from torchada.porting.names import convert

    return convert(name, domains)


def cuda_to_musa_name(name):
    """Any CUDA API name (runtime, driver, libraries, ATen/c10, headers) -> MUSA name."""
    return _convert(name)


def nccl_to_mccl_name(name):
    """``ncclAllReduce`` -> ``mcclAllReduce``; ``nccl.h`` -> ``mccl.h``."""
    return _convert(name, ("nccl",))


def cublas_to_mublas_name(name):
    """``cublasHandle_t`` -> ``mublasHandle_t``; ``cublasLt.h`` -> ``mublasLt.h``."""
    return _convert(name, ("cublas",))


def curand_to_murand_name(name):
    """``curand_init`` -> ``murand_init``; ``curand_kernel.h`` -> ``murand_kernel.h``."""
    return _convert(name, ("curand",))
