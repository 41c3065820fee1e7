"""Fused-MoE kernel configurations tuned on the MTT S5000, for vLLM and SGLang.

CUDA API made to work: vLLM's and SGLang's Triton fused-MoE layers finding tuned tables for
the device they run on (``device_name=MTT_S5000``) instead of falling back to their untuned
defaults. The area points ``VLLM_TUNED_CONFIG_FOLDER`` (read through vllm.envs at lookup
time) at the bundled folder for the installed triton version, else the newest bundled one,
and ``SGLANG_MOE_CONFIG_DIR`` (read with os.environ at lookup time) at the folder holding
``configs/``: SGLang picks the triton version itself. A value the user set, even empty, is
never replaced; off MUSA nothing is set (the area only runs on MUSA).

Both read the variables only when a MoE layer first looks its table up, after their import.
torch_musa APIs relied on: none.
"""
import os

from torchada._core.gate import dist_version
from torchada.moe import tables


def apply(ctx):
    folder = tables.folder_for(dist_version("triton"))
    if folder is None:
        ctx.note("no bundled tables found under %s; nothing set" % tables.CONFIGS)
        return
    for var, value in (("VLLM_TUNED_CONFIG_FOLDER", str(folder)),
                       ("SGLANG_MOE_CONFIG_DIR", str(tables.ROOT))):
        if var in os.environ:
            ctx.note("%s kept (set by the user: %s)" % (var, os.environ[var] or "empty"))
        else:
            ctx.setitem(os.environ, var, value)
            ctx.note("%s=%s" % (var, value))
