"""Where the bundled fused-MoE tables live and what their files are called.

vLLM and SGLang find a table by file name in a folder: vLLM in ``VLLM_TUNED_CONFIG_FOLDER``
(the triton-version folder itself: vllm/model_executor/layers/fused_moe/fused_moe.py,
get_moe_configs), SGLang under ``$SGLANG_MOE_CONFIG_DIR/configs/triton_<x_y_z>/`` (sglang
0.5.23 srt/layers/moe/moe_runner/triton_utils/fused_moe_triton_config.py, get_moe_configs).
vLLM strips the spaces of ``block_shape=[128, 128]``; SGLang keeps them; both files ship.
"""
import os
from pathlib import Path

# Imported when vLLM or SGLang is (area moe_configs): no regex compiled, no symlink resolved
# at import, so this module costs next to nothing there.
ROOT = Path(os.path.dirname(os.path.abspath(__file__)))  # SGLANG_MOE_CONFIG_DIR: holds configs/
CONFIGS = ROOT / "configs"
RECIPES = ROOT / "ci"
DEVICE = "MTT_S5000"
_PREFIX = "triton_"


def file_name(E, N, dtype=None, block_shape=None, down=False, device=DEVICE, spaces=True):
    """The table's file name as SGLang writes it (``spaces=False``: as vLLM looks it up)."""
    name = "E=%d,N=%d,device_name=%s" % (E, N, device)
    if dtype:
        name += ",dtype=%s" % dtype
    if block_shape:
        shape = "[%s]" % ", ".join(str(int(b)) for b in block_shape)
        name += ",block_shape=%s" % (shape if spaces else shape.replace(" ", ""))
    return name + ("_down" if down else "") + ".json"


_NAME = (r"^E=(\d+),N=(\d+),device_name=([^,]+?)(?:,dtype=([^,]+?))?"
         r"(?:,block_shape=\[(\d+), ?(\d+)\])?(_down)?\.json$")


def parse_name(name):
    """(E, N, dtype, block_shape, down, device) of a table file name; ValueError otherwise."""
    import re

    match = re.match(_NAME, name)
    if match is None:
        raise ValueError("%r is not a fused-MoE table name (E=<n>,N=<n>,device_name=<name>"
                         "[,dtype=<d>][,block_shape=[<n>, <n>]][_down].json)" % name)
    E, N, device, dtype, bn, bk, down = match.groups()
    block = [int(bn), int(bk)] if bn else None
    return int(E), int(N), dtype, block, bool(down), device


def version_dir_name(version):
    """``triton_3_2_0`` for "3.2.0" (also "3.2.0.post1", "3.2.0rc1", "3.2.0+musa": the
    leading numeric release segments only)."""
    parts = []
    for part in str(version or "").split("+")[0].split("."):
        digits = len(part) - len(part.lstrip("0123456789"))
        if digits:
            parts.append(part[:digits])
        if digits < len(part) or not digits:
            break
    return _PREFIX + "_".join(parts) if parts else None


def bundled_versions(root=CONFIGS):
    """Folder names of the bundled triton versions, oldest first."""
    try:
        names = [d for d in os.listdir(root)
                 if d.startswith(_PREFIX) and os.path.isdir(os.path.join(root, d))]
    except OSError:
        return []
    return sorted(names, key=_release)


def _release(folder):
    return tuple(int(p) if p.isdigit() else -1 for p in folder[len(_PREFIX):].split("_"))


def folder_for(triton_version, root=CONFIGS):
    """The folder for the installed triton version, else the newest bundled one not newer
    than it (a table tuned on a newer Triton may use settings an older one lacks), else the
    newest bundled one (None when nothing is bundled)."""
    names = bundled_versions(root)
    if not names:
        return None
    exact = version_dir_name(triton_version)
    if exact in names:
        return Path(root) / exact
    older = [n for n in names if exact and _release(n) < _release(exact)]
    return Path(root) / (older or names)[-1]
