"""The simulated device's sparse keys follow the release's operator table: torch_musa 2.7.1
registers 13 SparsePrivateUse1 and 6 SparseCsrPrivateUse1 overloads (musa_functions.yaml
4142-4219); those run (on the CPU kernels), any other overload that reaches a sparse key's
fallback raises torch's NotImplementedError naming the key as torch names it ('Sparsemusa',
'SparseCsrmusa'), as on a card, where torch_musa registers no fallback for either key."""
import pytest

from tests._fresh import bare_sim_env as _bare_sim_env, last_json, run_python
from tests._fresh import sim_env as _sim_env

# The rows these tests name are torch_musa 2.7.1's; 2.9.1.post1 registers many more for the
# sparse keys (its CSC accessors: test_later_csc_accessors_read_the_members below).
RELEASE = "2.7.1"


def bare_sim_env(**overrides):
    return _bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=RELEASE, **overrides)


def sim_env(**overrides):
    return _sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=RELEASE, **overrides)

pytest.importorskip("torchada.testing.optable")

# Calls whose overload has no row for its sparse key and no composite kernel taking the slot.
UNREGISTERED = r'''
import json, warnings
warnings.simplefilter("ignore")
import torch, torch_musa
dev = "musa"
i = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
v = torch.tensor([3.0, 4.0, 5.0, 1.5])
coo = torch.sparse_coo_tensor(i, v, (2, 3), device=dev).coalesce()
csr = torch.sparse_csr_tensor(torch.tensor([0, 2, 4]), torch.tensor([1, 3, 0, 2]),
                              torch.tensor([2.0, 1.0, 1.0, 3.0]), (2, 4), device=dev)
calls = {
    "coo_to_dense": lambda: coo.to_dense(),
    "coo_add": lambda: coo + coo,
    "coo_sparse_mm": lambda: torch.sparse.mm(coo, torch.ones(3, 2, device=dev)),
    "coo_mul": lambda: coo * coo,
    "csr_to_dense": lambda: csr.to_dense(),
    "csr_ccol_on_coo_path": lambda: csr.to_sparse_csc(),
}
out = {}
for name, call in calls.items():
    try:
        call()
        out[name] = "ran"
    except NotImplementedError as exc:
        out[name] = str(exc).splitlines()[0]
print(json.dumps(out))
'''

EXPECTED = {
    "coo_to_dense": ("aten::_to_dense", "Sparsemusa"),
    "coo_add": ("aten::add.Tensor", "Sparsemusa"),
    "coo_sparse_mm": ("aten::addmm", "Sparsemusa"),
    "coo_mul": ("aten::mul.Tensor", "Sparsemusa"),
    "csr_to_dense": ("aten::_to_dense", "SparseCsrmusa"),
    "csr_ccol_on_coo_path": ("aten::_to_sparse_csc", "SparseCsrmusa"),
}


def _assert_refused(out):
    assert set(out) == set(EXPECTED)
    for call, (op, key) in EXPECTED.items():
        assert out[call].startswith("Could not run '%s' with arguments from the '%s' backend."
                                    % (op, key)), (call, out[call])


def test_unregistered_sparse_ops_raise_on_the_bare_simulator():
    _assert_refused(last_json(run_python(UNREGISTERED, env=bare_sim_env())))


def test_unregistered_sparse_ops_raise_with_the_cpu_fallback_off():
    _assert_refused(last_json(run_python("import torchada\n" + UNREGISTERED,
                                         env=sim_env(TORCHADA_CPU_FALLBACK="0"))))


# The rows torch_musa 2.7.1 registers, each compared with the same op on CPU tensors.
REGISTERED = r'''
import json, warnings
warnings.simplefilter("ignore")
import torch, torch_musa

def coo(dev):
    i = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
    v = torch.tensor([3.0, 4.0, 5.0, 1.5])
    return torch.sparse_coo_tensor(i, v, (2, 3), device=dev)

def csr(dev):
    return torch.sparse_csr_tensor(torch.tensor([0, 2, 4]), torch.tensor([1, 3, 0, 2]),
                                   torch.tensor([2.0, 1.0, 1.0, 3.0]), (2, 4), device=dev)

def rows(dev):
    s = coo(dev).coalesce()                                      # _coalesce (yaml:4193)
    c = csr(dev)
    from_dense = torch.tensor([[0.0, 2.5], [1.0, 0.0]], device=dev).to_sparse()
    as_csr = s.to_sparse_csr()                                   # _to_sparse_csr (4166)
    back = c.to_sparse()                                         # _to_sparse (4157)
    return {
        "indices": s.indices().tolist(), "values": s.values().tolist(),   # 4203 / 4207
        "_indices": s._indices().tolist(), "_values": s._values().tolist(),
        "nnz": [s._nnz(), c._nnz()], "sparse_dim": s.sparse_dim(),
        "is_coalesced": [coo(dev).is_coalesced(), s.is_coalesced()],
        "from_dense": [from_dense._indices().tolist(), from_dense._values().tolist()],
        "csr": [as_csr.crow_indices().tolist(), as_csr.col_indices().tolist(),
                as_csr.values().tolist()],
        "coo_of_csr": [back._indices().tolist(), back._values().tolist()],
        "devices": sorted({str(t.device.type) for t in (s, c, as_csr, back, from_dense,
                                                        s.values(), as_csr.crow_indices())}),
    }

cpu = rows("cpu")
cpu["devices"] = ["musa"]
print(json.dumps({"musa": rows("musa"), "cpu": cpu}))
'''


def test_registered_sparse_rows_run_with_the_cpu_numbers():
    out = last_json(run_python(REGISTERED, env=bare_sim_env()))
    assert out["musa"] == out["cpu"]


DIRECT = r'''
import json, torch, torch_musa
from torchada.testing import optable
table = optable.load(optable.table_for(torch_musa.__version__))
out = {}
for key in ("SparsePrivateUse1", "SparseCsrPrivateUse1"):
    direct = {n for n in torch._C._dispatch_get_registrations_for_dispatch_key(key)
              if n.startswith("aten::")}
    out[key] = {"extra": sorted(direct - optable.registered(table, key)),
                "rows": len(optable.registered(table, key))}
print(json.dumps(out))
'''


def test_the_simulators_own_sparse_kernels_are_table_rows():
    out = last_json(run_python(DIRECT, env=bare_sim_env()))
    assert out == {"SparsePrivateUse1": {"extra": [], "rows": 13},
                   "SparseCsrPrivateUse1": {"extra": [], "rows": 6}}


LATER_CSC = r"""
import json, warnings
warnings.simplefilter("ignore")
import torch, torch_musa
d = torch.tensor([[0.0, 2.0, 0.0, 1.0], [1.0, 0.0, 3.0, 0.0]])
out = {}
for layout in ("csc", "bsc"):
    make = (lambda t: t.to_sparse_csc()) if layout == "csc" else (lambda t: t.to_sparse_bsc((1, 1)))
    m, c = make(d.to("musa")), make(d)
    out[layout] = [m.ccol_indices().cpu().tolist() == c.ccol_indices().tolist(),
                   m.row_indices().cpu().tolist() == c.row_indices().tolist(),
                   m.ccol_indices().device.type, torch.equal(m.to_dense().cpu(), d)]
print(json.dumps(out))
"""


def test_later_csc_accessors_read_the_members():
    """2.9.1.post1 registers ccol_indices / row_indices for SparseCsrPrivateUse1 (5e25af7's
    yaml); they read the tensor's members (they crashed the CPU-copy runner before)."""
    from tests._releases import importable_or_skip

    env = _bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.9.1.post1"))
    out = last_json(run_python(LATER_CSC, env=env))
    assert out == {"csc": [True, True, "musa", True], "bsc": [True, True, "musa", True]}, out
