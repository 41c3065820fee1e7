"""tl.extra.cuda on MUSA: the MUSA Triton namespace (stubs for what it lacks), and nothing
changed off MUSA or on a Triton without a MUSA namespace.

The MUSA Triton fork is tests/fixtures/musa_triton (see its README for what is known of
the real one); the upstream case is the real triton package from PyPI."""
import shutil

import pytest

from tests._fresh import FIXTURES, clean_env, last_json, run_python, sim_env

MUSA_TRITON = FIXTURES / "musa_triton"

PROGRAM = """
import json, sys
{order}
import triton.language as tl
from triton.language.extra.cuda import libdevice
import triton.language.extra.cuda.libdevice as libdevice_by_path
musa = sys.modules.get("triton.language.extra.musa")
out = {{"cuda_is_musa": musa is not None and tl.extra.cuda is musa,
        "sys_modules_is_attr": sys.modules["triton.language.extra.cuda"] is tl.extra.cuda,
        "libdevice": libdevice.exp(1.0), "libdevice_by_path": libdevice_by_path.exp(1.0),
        "num_warps": tl.extra.cuda.num_warps(), "names": sorted(tl.extra.cuda.__all__)}}
for name in ("gdc_wait", "gdc_launch_dependents", "smid", "globaltimer"):
    try:
        out[name] = "returned " + str(getattr(tl.extra.cuda, name)())
    except NotImplementedError as exc:
        out[name] = "NotImplementedError: " + str(exc)
    except AttributeError as exc:
        out[name] = "AttributeError"
import torchada
area = [a for a in torchada.status().areas if a.name == "triton_extra"]
out["area"] = [area[0].state, area[0].reason, area[0].note] if area else None
print(json.dumps(out))
"""

TORCH_FIRST = "import torch, torchada"
TRITON_FIRST = "import triton\nimport torch, torchada"


def run(env, order=TORCH_FIRST):
    return last_json(run_python(PROGRAM.format(order=order), env=env))


@pytest.mark.parametrize("order", [TORCH_FIRST, TRITON_FIRST], ids=["torch-first", "triton-first"])
def test_partial_musa_namespace_gets_stubs_for_what_it_lacks(order):
    out = run(sim_env(PYTHONPATH=MUSA_TRITON), order)
    assert out["area"][0] == "applied", out["area"]
    assert out["cuda_is_musa"] is False and out["sys_modules_is_attr"] is True
    # the MUSA implementations, whichever way the program reaches them
    assert out["libdevice"] == out["libdevice_by_path"] == "musa.libdevice.exp"
    assert out["num_warps"] == "musa.num_warps"
    # every public name of the fork's CUDA namespace (upstream 3.2) plus the gdc pair
    assert out["names"] == sorted(["libdevice", "globaltimer", "num_threads", "num_warps", "smid",
                                   "convert_custom_float8_sm70", "convert_custom_float8_sm80",
                                   "gdc_wait", "gdc_launch_dependents"])
    assert out["smid"] == ("NotImplementedError: tl.extra.cuda.smid is not available on MUSA: "
                           "triton.language.extra.musa has no smid")
    for name in ("gdc_wait", "gdc_launch_dependents"):
        assert out[name].startswith("NotImplementedError: tl.extra.cuda.%s is not available on "
                                    "MUSA: programmatic dependent launch" % name), out[name]
    assert "stubs: convert_custom_float8_sm70" in out["area"][2]


def test_complete_musa_namespace_is_used_as_it_is():
    out = run(sim_env(PYTHONPATH=MUSA_TRITON, FAKE_MUSA_TRITON_COMPLETE=1))
    assert out["cuda_is_musa"] is True and out["sys_modules_is_attr"] is True
    assert out["gdc_wait"] == "returned musa.gdc_wait"  # the fork's own, not a stub
    assert out["libdevice_by_path"] == "musa.libdevice.exp"


def test_off_musa_nothing_changes():
    out = run(clean_env(PYTHONPATH=MUSA_TRITON))
    assert out["area"][0] == "skipped"
    assert out["cuda_is_musa"] is False and out["libdevice"] == "cuda.libdevice.exp"
    assert out["smid"] == "returned cuda.smid" and out["gdc_wait"] == "AttributeError"


def test_disabled_area_leaves_the_cuda_namespace():
    out = run(sim_env(PYTHONPATH=MUSA_TRITON, TORCHADA_DISABLE_AREAS="triton_extra"))
    assert out["area"][:2] == ["skipped", "disabled by TORCHADA_DISABLE_AREAS"]
    assert out["libdevice"] == "cuda.libdevice.exp"


def test_triton_older_than_3_is_skipped_by_its_metadata(tmp_path):
    old = tmp_path / "old_triton"
    shutil.copytree(MUSA_TRITON, old)
    (old / "triton-3.2.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: triton\nVersion: 2.3.1\n")
    (old / "triton" / "__init__.py").write_text("from . import language\n")  # no __version__
    out = run(sim_env(PYTHONPATH=old))
    assert out["area"][:2] == ["skipped", "triton 2.3.1 not in >=3.0"]
    assert out["libdevice"] == "cuda.libdevice.exp"


UPSTREAM = """
import json, sys
import torch, torchada
import triton.language as tl
before = (tl.extra.cuda, sys.modules["triton.language.extra.cuda"], tl.extra.cuda.libdevice,
          getattr(tl.extra.cuda, "gdc_wait", None))
import torchada
area = [a for a in torchada.status().areas if a.name == "triton_extra"][0]
after = (tl.extra.cuda, sys.modules["triton.language.extra.cuda"], tl.extra.cuda.libdevice,
         getattr(tl.extra.cuda, "gdc_wait", None))
print(json.dumps({"same": all(a is b for a, b in zip(before, after)), "state": area.state,
                  "note": area.note, "cuda_mod": tl.extra.cuda.__name__}))
"""


def test_upstream_triton_without_a_musa_namespace_is_left_alone():
    pytest.importorskip("triton")
    out = last_json(run_python(UPSTREAM, env=sim_env()))
    assert out["same"] is True and out["cuda_mod"] == "triton.language.extra.cuda"
    assert out["state"] == "applied" and "no triton.language.extra.musa" in out["note"]
