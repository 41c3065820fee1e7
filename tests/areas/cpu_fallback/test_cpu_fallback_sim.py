"""The CPU fallback on the simulated device, which runs exactly the release's operator table
(ops outside it raise as on a card). Every number is compared with the CPU's."""
import pytest

from tests._fresh import last_json
from tests._fresh import run_sim as _run_sim

# The missing operators these tests use are torch_musa 2.7.1's (its operator table); 2.9.1.post1
# registers most of them (tests/testing/test_optable.py), so the tests run that release.
RELEASE = "2.7.1"


def run_sim(code, **overrides):
    return _run_sim(code, TORCHADA_SIM_TORCH_MUSA_VERSION=RELEASE, **overrides)


pytest.importorskip("torchada.testing.optable")

# linalg_matrix_exp, nonzero_static and the out= overload behind
# special.chebyshev_polynomial_t are not in torch_musa 2.7.1's table (issue 21).
PROGRAM = """
import json, warnings
warnings.simplefilter("always")
out = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x = torch.linspace(-1, 1, 7, device="cuda", dtype=torch.float64)
    n = torch.tensor(3.0, device="cuda", dtype=torch.float64)
    try:
        y = torch.special.chebyshev_polynomial_t(x, n)
        y2 = torch.special.chebyshev_polynomial_t(x, n)
        out["cheb"] = {"device": str(y.device), "values": y.cpu().tolist(),
                       "again": y2.cpu().tolist()}
        o = torch.empty(2, device="cuda", dtype=torch.float64)
        r = torch.special.chebyshev_polynomial_t(x, n, out=o)
        out["out"] = {"same": r is o, "values": o.cpu().tolist(), "shape": list(o.shape)}
    except NotImplementedError as exc:
        out["cheb_error"] = str(exc).splitlines()[0]
    try:
        m = torch.tensor([[0.0, 1.0], [-1.0, 0.5]], device="cuda", requires_grad=True)
        e = torch.linalg.matrix_exp(m)
        e.pow(2).sum().backward()
        out["mexp"] = {"value": e.detach().cpu().tolist(), "grad": m.grad.cpu().tolist()}
    except NotImplementedError as exc:
        out["mexp_error"] = str(exc).splitlines()[0]
out["warnings"] = [str(w.message) for w in caught if "torchada" in str(w.message)]
out["report"] = torchada._core.trace.snapshot().get("cpu_fallback")
out["status"] = [l for l in str(torchada.status()).splitlines() if "cpu_fallback" in l]
print(json.dumps(out))
"""


def cpu_reference():
    import torch

    x = torch.linspace(-1, 1, 7, dtype=torch.float64)
    cheb = torch.special.chebyshev_polynomial_t(x, torch.tensor(3.0, dtype=torch.float64))
    m = torch.tensor([[0.0, 1.0], [-1.0, 0.5]], requires_grad=True)
    e = torch.linalg.matrix_exp(m)
    e.pow(2).sum().backward()
    return cheb.tolist(), e.detach().tolist(), m.grad.tolist()


def test_missing_ops_raise_with_the_fallback_off():
    out = last_json(run_sim(PROGRAM, TORCHADA_CPU_FALLBACK="0"))
    assert "special_chebyshev_polynomial_t" in out["cheb_error"] and "musa" in out["cheb_error"]
    assert "linalg_matrix_exp" in out["mexp_error"]
    assert out["warnings"] == [] and "TORCHADA_CPU_FALLBACK=0" in out["status"][0]


def test_missing_ops_give_the_cpu_numbers_with_one_warning_each_and_report_rows():
    out = last_json(run_sim(PROGRAM, TORCHADA_TRACE="1"))
    cheb, mexp, grad = cpu_reference()
    assert out["cheb"] == {"device": "musa:0", "values": cheb, "again": cheb}
    # out=: the very tensor, resized as the CPU kernel resizes it
    assert out["out"] == {"same": True, "values": cheb, "shape": [7]}
    flat = lambda rows: [v for row in rows for v in row]  # noqa: E731
    assert flat(out["mexp"]["value"]) == pytest.approx(flat(mexp), rel=1e-6)
    assert flat(out["mexp"]["grad"]) == pytest.approx(flat(grad), rel=1e-5)  # autograd
    named = sorted(w.split()[1] for w in out["warnings"])
    assert named == sorted(set(named)), "one warning per operator"
    assert "aten::special_chebyshev_polynomial_t.out" in named
    assert "aten::linalg_matrix_exp" in named
    assert all("TORCHADA_CPU_FALLBACK=0" in w for w in out["warnings"])
    row = out["report"]["aten::special_chebyshev_polynomial_t.out"]
    assert row["count"] == 3 and row["seconds"] > 0 and row["first_site"] == "<string>:11"  # the program line (run_sim adds one)
    assert "operator table of torch_musa" in out["status"][0]


def test_ops_with_a_kernel_are_not_touched():
    code = """
        import json
        names = ("aten::add.Tensor", "aten::mm", "aten::sum", "aten::relu",
                 "aten::special_chebyshev_polynomial_t.out")
        print(json.dumps({n: torch._C._dispatch_has_kernel_for_dispatch_key(n, "PrivateUse1")
                          for n in names}))
    """
    # the simulator serves covered ops by its backend fallback: no kernel of ours on them
    covered = {"aten::add.Tensor": False, "aten::mm": False, "aten::sum": False,
               "aten::relu": False}
    assert last_json(run_sim(code)) == dict(covered, **{
        "aten::special_chebyshev_polynomial_t.out": True})
    assert last_json(run_sim(code, TORCHADA_CPU_FALLBACK="0")) == dict(covered, **{
        "aten::special_chebyshev_polynomial_t.out": False})


def test_bad_switch_value_warns_once_naming_it_and_keeps_the_default():
    proc = run_sim("print(torch.special.chebyshev_polynomial_t(torch.ones(2, device='cuda'), "
                   "2).cpu().tolist())", TORCHADA_CPU_FALLBACK="maybe")
    assert proc.stderr.count("TORCHADA_CPU_FALLBACK='maybe'") == 1
    assert "1 or 0" in proc.stderr and proc.stdout.strip() == "[1.0, 1.0]"


def test_a_failure_inside_the_fallback_raises_what_the_op_would():
    out = last_json(run_sim("""
        import json
        from torchada.areas._cpu_fallback import kernel
        def broken(self, value, keep_storage=False):
            raise MemoryError("injected")
        kernel.CpuKernel._to_cpu = broken
        try:
            torch.linalg.matrix_exp(torch.eye(2, device="cuda"))
        except NotImplementedError as exc:
            print(json.dumps({"error": str(exc)}))
    """))
    assert out["error"].startswith("aten::linalg_matrix_exp has no kernel in torch_musa")
    assert "MemoryError: injected" in out["error"] and "TORCHADA_CPU_FALLBACK=0" in out["error"]
