"""The CPU fallback serves the sparse keys on the simulated device, which runs exactly the
release's SparsePrivateUse1 / SparseCsrPrivateUse1 rows (the rest raise as on a card:
tests/testing/test_sim_sparse_opset.py, with TORCHADA_CPU_FALLBACK=0 too). Every number is
compared with the same op on CPU tensors, computed in the same child."""
import pytest

from tests._fresh import clean_env, last_json, run_python, run_sim

pytest.importorskip("torchada.testing.optable")

PROGRAM = r"""
import json, warnings

def coo(dev):
    i = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
    v = torch.tensor([3.0, 4.0, 5.0, 1.5])
    return torch.sparse_coo_tensor(i, v, (2, 3), device=dev, check_invariants=False).coalesce()

def csr(dev):
    return torch.sparse_csr_tensor(torch.tensor([0, 2, 4]), torch.tensor([1, 3, 0, 2]),
                                   torch.tensor([2.0, 1.0, 1.0, 3.0]), (2, 4), device=dev)

def dense(t):
    return t.to_dense().cpu().tolist()

def registered(dev):  # rows torch_musa 2.7.1 registers: no fallback, no warning
    s, c = coo(dev), csr(dev)
    return [s.indices().tolist(), s.values().tolist(), s._nnz(), s.is_coalesced(),
            c.crow_indices().tolist(), c.col_indices().tolist(), c.values().tolist()]

def missing(dev):  # overloads it lacks for the sparse keys
    s, c = coo(dev), csr(dev)
    w = torch.arange(8.0, device=dev).reshape(4, 2)
    s2 = s.clone()
    r = s2.mul_(0.5)
    c2 = csr(dev)
    rc = c2.mul_(2.0)
    csc = torch.tensor([[0.0, 2.0, 0.0, 1.0], [1.0, 0.0, 3.0, 0.0]], device=dev).to_sparse_csc()
    # in place with more elements than before: the members are replaced (resized for CSR)
    a = torch.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]], device=dev)
    b = torch.tensor([[5.0, 0.0, 0.0], [0.0, 0.0, 3.0]], device=dev)
    grown_csr, grown_coo = a.to_sparse_csr(), a.to_sparse()
    grew = [grown_csr.add_(b.to_sparse_csr()) is grown_csr,
            grown_coo.add_(b.to_sparse()) is grown_coo]
    return {
        "grown": grew + [grown_csr._nnz(), dense(grown_csr), grown_coo._nnz(), dense(grown_coo),
                         grown_csr.crow_indices().device == grown_csr.device],
        "coo_dense": dense(s), "coo_add": dense(s + s), "coo_dense_dim": s.dense_dim(),
        "coo_mm": torch.sparse.mm(s, torch.ones(3, 2, device=dev)).cpu().tolist(),
        "coo_mul_": [r is s2, dense(s2), s2.is_sparse, s2.device.type], "coo_t": dense(s.t()),
        "csr_mm": (c @ w).cpu().tolist(), "csr_add": dense(c + c), "csr_dense": dense(c),
        "csr_mul_": [rc is c2, dense(c2), c2.layout == torch.sparse_csr, c2.device.type],
        "csc": [dense(csc), csc.ccol_indices().tolist(), csc.row_indices().tolist(),
                csc.layout == torch.sparse_csc],
    }

def torchada_warnings(caught):
    return [str(w.message) for w in caught if str(w.message).startswith("torchada:")]

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    quiet = registered("cuda")
quiet_warnings = torchada_warnings(caught)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    on_device = missing("cuda")
    again = missing("cuda")
    csc = torch.tensor([[0.0, 2.0], [1.0, 0.0]], device="cuda").to_sparse_csc()
    alias = csc.ccol_indices().data_ptr() == csc.ccol_indices().data_ptr()
fallback_warnings = torchada_warnings(caught)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    cpu_missing = missing("cpu")
    cpu_registered = registered("cpu")
for cpu_side in (cpu_missing["coo_mul_"], cpu_missing["csr_mul_"]):
    cpu_side[3] = "musa"  # the device type is the one field the CPU run cannot share
print(json.dumps({
    "registered": quiet, "cpu_registered": cpu_registered, "quiet_warnings": quiet_warnings,
    "missing": on_device, "again": again, "cpu_missing": cpu_missing, "alias": alias,
    "warnings": fallback_warnings,
    "report": torchada._core.trace.snapshot().get("cpu_fallback"),
    # whose kernel sits on each key: the file that registered it (dispatch table's own words)
    "kernels": {"%s@%s" % (n, k): [l.split(" registered at ", 1)[1].rsplit(":", 1)[0]
                                   for l in torch._C._dispatch_dump_table(n).splitlines()
                                   if l.startswith(k + ":")]
                for n, k in (("aten::_coalesce", "SparsePrivateUse1"),
                             ("aten::_to_sparse", "SparseCsrPrivateUse1"),
                             ("aten::_to_dense", "SparsePrivateUse1"),
                             ("aten::_to_dense", "SparseCsrPrivateUse1"))},
}))
"""


@pytest.fixture(scope="module")
def out():
    # the rows and gaps named here are torch_musa 2.7.1's (2.9.1.post1 registers most of them)
    return last_json(run_sim(PROGRAM, TORCHADA_TRACE="1", TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1"))


def test_registered_sparse_rows_run_as_they_are_without_a_warning(out):
    assert out["registered"] == out["cpu_registered"]
    assert out["quiet_warnings"] == []


def test_registered_rows_get_no_kernel_of_ours(out):
    # the simulator registers its rows one by one, as torch_musa does; ours sit on the
    # missing ones only
    import os

    sim = os.path.join("torchada", "testing", "_backend", "musa_sim.cpp")
    # torch 2.7 names a Python kernel's place /dev/null, later ones the registering file:
    # the simulator's C++ file (torch_musa's stand-in) on the rows, another one elsewhere
    got = {op: [path.endswith(sim) for path in paths] for op, paths in out["kernels"].items()}
    assert got == {"aten::_coalesce@SparsePrivateUse1": [True],
                   "aten::_to_sparse@SparseCsrPrivateUse1": [True],
                   "aten::_to_dense@SparsePrivateUse1": [False],
                   "aten::_to_dense@SparseCsrPrivateUse1": [False]}


def test_missing_sparse_ops_give_the_cpu_numbers(out):
    assert out["missing"] == out["cpu_missing"]
    assert out["again"] == out["cpu_missing"]
    # in place: the very device tensor, still sparse on the device
    assert out["missing"]["coo_mul_"][0] is True and out["missing"]["csr_mul_"][0] is True
    assert out["missing"]["grown"][:3] == [True, True, 4] and out["missing"]["grown"][-1] is True


def test_one_warning_per_op_naming_it_and_the_switch_and_report_rows(out):
    named = [w.split()[1] for w in out["warnings"]]
    assert len(named) == len(set(named)), "one warning per operator"
    assert {"aten::_to_dense", "aten::add.Tensor", "aten::addmm", "aten::mm", "aten::clone",
            "aten::mul_.Tensor", "aten::add_.Tensor", "aten::dense_dim",
            "aten::ccol_indices"} <= set(named)
    assert all(w.endswith("TORCHADA_CPU_FALLBACK=0 makes it raise as torch_musa does")
               for w in out["warnings"])
    by_name = dict(zip(named, out["warnings"]))
    assert "has no SparsePrivateUse1 kernel in torch_musa" in by_name["aten::add.Tensor"]
    assert "it ran on the CPU" in by_name["aten::addmm"]
    assert "has no SparseCsrPrivateUse1 kernel" in by_name["aten::ccol_indices"]
    assert "accessor ran on the device tensor itself" in by_name["aten::ccol_indices"]
    # counted like dense ops: per program run of missing(), sparse.mm's addmm once
    assert out["report"]["aten::addmm"]["count"] == 2
    assert set(named) == set(out["report"])


def test_a_missing_field_accessor_returns_the_tensors_own_member(out):
    assert out["alias"] is True


def test_no_composite_implicit_op_has_a_cpu_sparse_kernel():
    # opset.needs_sparse_kernel subtracts no composite: a CompositeImplicitAutograd op with a
    # sparse kernel would lose its composite on the device's autograd key once ours is in
    code = """
        import json, torch
        regs = lambda k: set(torch._C._dispatch_get_registrations_for_dispatch_key(k))
        implicit = regs("CompositeImplicitAutograd")
        print(json.dumps({k: sorted(regs(k) & implicit) for k in ("SparseCPU", "SparseCsrCPU")}))
    """
    assert last_json(run_python(code, env=clean_env())) == {"SparseCPU": [], "SparseCsrCPU": []}
