"""`torchada run`: --verify and its options reach the program, and the summary lists the
operators that ran on the CPU and what verify found."""
import json

import pytest
import torch

from tests._fresh import SRC, clean_env, run_argv
from tests._releases import MM_OUT_DTYPE_WRONG, runnable_or_skip


def broken_release():
    """A release with the modelled float64 log_ defect this torch runs."""
    return runnable_or_skip(">2.7.1,<2.11.0.post2", module=False)


def mm_broken_release():
    """The release whose out_dtype matmul is modelled wrong (a skip below torch 2.11)."""
    return runnable_or_skip(MM_OUT_DTYPE_WRONG, module=False)

HAS_OUT_DTYPE = any(s.overload_name == "dtype"
                    for s in torch._C._jit_get_schemas_for_operator("aten::mm"))

PROGRAM = """\
import torch
x = torch.linspace(-1, 1, 5, device="cuda")
for _ in range(3):
    y = torch.histogram(x, 4)
a = torch.ones(2, 3, dtype=torch.bfloat16, device="cuda")
b = torch.ones(3, 2, dtype=torch.bfloat16, device="cuda")
z = torch.mm(a, b, out_dtype=torch.float32) if hasattr(torch.ops.aten.mm, "dtype") else None
print("ran")
"""


def _run(tmp_path, *options, **env):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    return run_argv(["-m", "torchada", "run", "--simulate", *options, str(prog)], check=False,
                    env=clean_env(PYTHONPATH=SRC, **env)), str(prog)


def test_summary_lists_cpu_fallbacks_and_verify_findings(tmp_path):
    pytest.importorskip("torchada.testing.optable")
    release = runnable_or_skip(MM_OUT_DTYPE_WRONG, module=False) if HAS_OUT_DTYPE \
        else broken_release()
    proc, prog = _run(tmp_path, "--verify=all", "--report", str(tmp_path / "rep"),
                      TORCHADA_SIM_TORCH_MUSA_VERSION=release,
                      TORCHADA_DISABLE_AREAS="operator_fixes")
    assert proc.returncode == 0 and proc.stdout.strip() == "ran", proc.stderr[-3000:]
    [row] = [l for l in proc.stderr.splitlines() if "aten::histogram.bin_ct" in l
             and " x3 " in l]
    assert row.rstrip().endswith("first at %s:4" % prog) and " ms " in row
    [report] = list((tmp_path / "rep").iterdir())
    data = json.loads(report.read_text())
    assert data["cpu_fallback"]["aten::histogram.bin_ct"]["count"] == 3
    if HAS_OUT_DTYPE:
        assert "1 mismatch" in proc.stderr
        assert "aten::mm.dtype in no module at %s:7" % prog in proc.stderr
        assert [r["op"] for r in data["verify"]["mismatches"]] == ["aten::mm.dtype"]


def test_first_mismatch_stops_the_program_and_options_are_checked(tmp_path):
    proc, prog = _run(tmp_path, "--verify", "--verify-first", "1",
                      TORCHADA_SIM_TORCH_MUSA_VERSION=mm_broken_release() if HAS_OUT_DTYPE
                      else broken_release(),
                      TORCHADA_DISABLE_AREAS="operator_fixes")
    if HAS_OUT_DTYPE:
        assert proc.returncode == 1 and "VerifyMismatch" in proc.stderr
        assert "(stopped at the first)" in proc.stderr
    bad, _ = _run(tmp_path, "--verify=some")
    assert bad.returncode == 2 and "--verify takes =first or =all" in bad.stderr
    bad, _ = _run(tmp_path, "--verify-every", "x")
    assert bad.returncode == 2 and "--verify-every needs a whole number" in bad.stderr
