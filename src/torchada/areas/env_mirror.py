"""CUDA environment variables mirrored to their MUSA names.

CUDA names made to work: ``CUDA_VISIBLE_DEVICES`` -> ``MUSA_VISIBLE_DEVICES``,
``PYTORCH_CUDA_ALLOC_CONF`` -> ``PYTORCH_MUSA_ALLOC_CONF``, ``CUDA_LAUNCH_BLOCKING`` ->
``MUSA_LAUNCH_BLOCKING``, ``PYTORCH_NO_CUDA_MEMORY_CACHING`` ->
``PYTORCH_NO_MUSA_MEMORY_CACHING``, ``CUBLAS_WORKSPACE_CONFIG`` -> ``MUBLAS_WORKSPACE_CONFIG``,
``PYTORCH_USE_CUDA_DSA`` / ``PYTORCH_CUDA_DSA_STACKTRACING`` -> their MUSA spellings,
and every ``TORCH_NCCL_*`` / ``NCCL_*`` variable whose MCCL twin torch_musa 2.7.1's
ProcessGroupMCCL reads (``_cuda_env_names.MCCL_NAMES``: the recorded API, ``distributed.
env_vars_read_by_ProcessGroupMCCL``; the twin of ``TORCH_MCCL_MUSA_EVENT_CACHE`` is
``TORCH_NCCL_CUDA_EVENT_CACHE``). ProcessGroupMCCL reads them when a process group is made,
long after this area ran at ``import torch``.

CUDA variables that change nothing on MUSA (``NVIDIA_TF32_OVERRIDE``,
``CUDA_DEVICE_MAX_CONNECTIONS``, ``TORCH_NCCL_*`` names without an MCCL twin; the table is
``_env_without_effect.NAMED``) get one warning each at activation, naming the MUSA twin or
saying none exists; ``TORCHADA_CUDA_ENV_WARNINGS=0`` turns these warnings off.

Rules (docs/devices.md, "Environment variables"):
* Only in this area's apply step, on MUSA, right after ``import torch`` and before any device
  call. The MUSA runtime and torch_musa's allocator read these variables when the device is
  first used, through the C environment, so ``os.environ`` is the only channel; this is the one
  deliberate exception to "torchada sets no environment variable" (the start-up hook still sets
  none, and nothing is set off MUSA). Child processes inherit the MUSA names, as they inherit
  the CUDA ones.
* When both names are set, the MUSA one wins; if the values differ, one warning says so.
  Except for a MUSA value torchada itself mirrored in a parent process (recorded in
  ``TORCHADA_MIRRORED_ENV``): a child whose CUDA value was changed since (Inductor's autotune
  workers, Ray or vLLM workers narrowing ``CUDA_VISIBLE_DEVICES`` per process) gets the new
  CUDA value mirrored, as it would on CUDA. A user who sets the MUSA name by hand keeps it.
* ``CUDA_VISIBLE_DEVICES`` is mirrored only when it lists device ordinals (``0,2``, ``""``,
  ``-1``); UUIDs (``GPU-...``, ``MIG-...``) mean nothing to MUSA: one warning, no mirror.
* If the MUSA runtime was already initialised (torch imported before torchada activated and a
  device used), mirroring would come too late: one warning, nothing set.
* ``torchada.revert()`` removes what was set (the running runtime keeps what it read).

torch_musa APIs relied on: ``torch.musa.is_initialized`` (to detect a late activation).
"""

import re

from torchada.areas._cuda_env_names import MIRRORED_CUDA_NAMES, PAIRS

MARKER = "TORCHADA_MIRRORED_ENV"  # JSON {musa name: value torchada set}, for child processes
_ORDINALS = re.compile(r"^\s*(-?\d+\s*(,\s*-?\d+\s*)*)?,?\s*$")


def _mirrored_by_parent(environ):
    from torchada._core.settings import read

    return read(MARKER, environ)


def plan(environ):
    """(what to set: [(name, value)], warnings: [str]) for an environment mapping. Pure."""
    sets, warnings = [], []
    ours = _mirrored_by_parent(environ)
    for cuda_name, musa_name in PAIRS:
        value = environ.get(cuda_name)
        if value is None:
            continue
        if cuda_name == "CUDA_VISIBLE_DEVICES" and not _ORDINALS.match(value):
            warnings.append(
                "%s=%r is not a list of device ordinals (UUIDs are CUDA-only); it is not "
                "mirrored to %s" % (cuda_name, value, musa_name))
            continue
        current = environ.get(musa_name)
        if current is not None and ours.get(musa_name) == current:
            current = None  # set by torchada from the CUDA name: it follows that name
        if current is not None:
            if current != value:
                warnings.append("%s=%r and %s=%r are both set; %s wins" % (
                    musa_name, current, cuda_name, value, musa_name))
            continue
        sets.append((musa_name, value))
    return sets, warnings


def apply(ctx):
    import logging
    import os

    import torch

    logger = logging.getLogger("torchada")
    _warn_without_effect(logger, os.environ)
    sets, warnings = plan(os.environ)
    if sets:
        # Before torch_musa is imported (the normal case) there is no runtime to be late for.
        is_initialized = getattr(getattr(torch, "musa", None), "is_initialized", None)
        if is_initialized is not None and is_initialized():
            warnings.append(
                "the MUSA runtime was initialised before torchada activated; %s not mirrored "
                "(set the MUSA names yourself)" % ", ".join(n for n, _ in sets))
            sets = []
    if warnings:
        logger.warning("torchada: %s", "; ".join(warnings))
    for name, value in sets:
        ctx.setitem(os.environ, name, value)
    if sets:
        import json

        recorded = dict(_mirrored_by_parent(os.environ), **dict(sets))
        ctx.setitem(os.environ, MARKER, json.dumps(recorded, sort_keys=True))


def _warn_without_effect(logger, environ):
    from torchada._core.settings import read
    from torchada._core.warn_once import warn_once
    from torchada.areas import _env_without_effect as table

    rows = table.found(environ, MIRRORED_CUDA_NAMES)  # usually none: the switch is not read
    if not rows or not read("TORCHADA_CUDA_ENV_WARNINGS", environ):
        return
    for row in rows:  # one warning per variable per process, even if the area applies again
        warn_once("cuda env:" + row.name, "%s", table.message(row))
