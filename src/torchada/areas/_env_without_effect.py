"""CUDA / NCCL environment variables that change nothing on MUSA, and what to set instead.

Used by the env_mirror area: at activation, one warning per such variable that is set (a
program's launch script tuned for NVIDIA keeps working, silently without the tuning). A
variable with a MUSA twin torch_musa reads is mirrored instead (_cuda_env_names.PAIRS) and is not
listed here. Opt out with TORCHADA_CUDA_ENV_WARNINGS=0.

Each row says who reads the CUDA name, why nothing on MUSA does, and the MUSA twin: a name
(not mirrored: the reader's source is not public, so only its documented use is known) or
None ("none exists"). Sources: torch_musa v2.7.1 (tag) unless said otherwise.
"""

import os
from collections import namedtuple

Inert = namedtuple("Inert", "name twin why")

# Named variables. Reading cost at activation: one dict lookup each.
NAMED = (
    # cuBLAS / cuDNN read it (NVIDIA's libraries). torch_musa reads no TF32 variable (no
    # getenv of one in torch_musa/); muBLAS has no TF32 path (csrc/aten/musa/
    # MublasHandlePool.cpp:103 "TF32 is not supported by MUBLAS now"); muDNN's TF32 is the
    # Python flag torch.backends.mudnn.allow_tf32 (core/mudnn.py:39).
    Inert("NVIDIA_TF32_OVERRIDE", None,
          "read by NVIDIA's cuBLAS / cuDNN; on MUSA use torch.backends.mudnn.allow_tf32"),
    # The CUDA driver reads it. torch_musa's source reads no *_DEVICE_MAX_CONNECTIONS; Moore
    # Threads' published training launch scripts set MUSA_DEVICE_MAX_CONNECTIONS where CUDA
    # scripts set CUDA_DEVICE_MAX_CONNECTIONS (the MUSA driver's source is not public: that it
    # reads this name is known from those scripts only, so torchada does not set it).
    Inert("CUDA_DEVICE_MAX_CONNECTIONS", "MUSA_DEVICE_MAX_CONNECTIONS",
          "read by the CUDA driver"),
    # torch.cuda's device count (torch/cuda/__init__.py _nvml_based_avail); on MUSA the count
    # comes from torch_musa (torch.musa.device_count), which reads no NVML variable.
    Inert("PYTORCH_NVML_BASED_CUDA_CHECK", None,
          "read by torch.cuda's NVML device check; torch_musa counts devices itself"),
)

# Every TORCH_NCCL_* variable is read by torch's ProcessGroupNCCL only; ProcessGroupMCCL reads
# the TORCH_MCCL_* names of the recorded API (distributed.env_vars_read_by_ProcessGroupMCCL,
# csrc/distributed/ProcessGroupMCCL.cpp): those are mirrored, every other TORCH_NCCL_* name
# has no twin. NCCL_* library variables (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, ...) are not
# listed: whether the MCCL library (closed source) reads NCCL_ names is unknown.
TORCH_NCCL_PREFIX = "TORCH_NCCL_"
TORCH_NCCL_WHY = ("read by torch's ProcessGroupNCCL only; ProcessGroupMCCL reads no MCCL twin "
                  "of it")


_NAMED = {row.name: row for row in NAMED}
_PREFIXES = (TORCH_NCCL_PREFIX,) + tuple(_NAMED)
_PREFIXES_BYTES = tuple(p.encode() for p in _PREFIXES)


def _keys_starting(environ, prefixes):
    """Names of ``environ`` starting with one of ``prefixes``: one pass. For os.environ the
    pass runs over its own bytes-keyed store (os.environ._data on POSIX), which spares
    decoding every name: the check runs in every activation, where nothing is usually set."""
    raw = getattr(environ, "_data", None)
    if isinstance(raw, dict) and os.name == "posix" and prefixes is _PREFIXES:
        return [k.decode("utf-8", "surrogateescape") for k in raw
                if k.startswith(_PREFIXES_BYTES)]
    return [k for k in environ if k.startswith(prefixes)]


def found(environ, mirrored):
    """[Inert] for the set variables of ``environ`` that have no effect on MUSA, in a stable
    order; ``mirrored`` is the set of CUDA names env_mirror mirrors (never reported). Pure."""
    hits = _keys_starting(environ, _PREFIXES)
    if not hits:
        return []
    rows = [row for row in NAMED if row.name in hits]
    nccl = [k for k in hits if k.startswith(TORCH_NCCL_PREFIX) and k not in mirrored]
    return rows + [Inert(key, None, TORCH_NCCL_WHY) for key in sorted(nccl)]


def message(row):
    twin = ("%s (set it instead)" % row.twin) if row.twin else "none exists"
    return ("torchada: %s has no effect on MUSA (%s); MUSA twin: %s. "
            "TORCHADA_CUDA_ENV_WARNINGS=0 silences this" % (row.name, row.why, twin))
