"""Public CUDA -> MUSA name converters, backed by the porter's rule tables.

Cheap to import: stdlib only, no torch. Each function returns the MUSA spelling of one
name, or the name unchanged when no rule applies (so the functions are idempotent).
"""

__all__ = ["cuda_to_musa_name", "nccl_to_mccl_name", "cublas_to_mublas_name",
           "curand_to_murand_name"]


def _porter():
    from torchada.porting.engine import default_porter

    return default_porter()


def _convert(name, domains=None):
    if not isinstance(name, str):
        raise TypeError("expected a str name, got %s" % type(name).__name__)
    porter = _porter()
    hit = porter.ident.get(name)
    if hit is not None:
        return hit[0] if domains is None or hit[1] in domains else name
    for prefix, (value, domain) in porter.prefixes.items():
        if name.startswith(prefix) and (domains is None or domain in domains):
            return value + name[len(prefix):]
    include = porter.map_include(name)
    if include is not None and (domains is None or include[1] in domains):
        return include[0]
    return name


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
