"""The simulator alone (torchada inactive): torch_musa's legacy tensor types and the comm
bindings, checked against what torch_musa 2.7.1's source says (file:line in
_sim/legacy_tensors.py, _sim/comm.py, _sim/patched_parallel.py)."""
import torch

from tests._fresh import bare_sim_env, last_json, run_python

TYPES = ["Bool", "Byte", "Char", "Double", "Float", "Int", "Long", "Short", "Half", "BFloat16"]


def test_legacy_types_as_torch_musa_makes_them():
    got = last_json(run_python("""
        import json, warnings
        import torch, torch_musa
        names = %r
        types = [getattr(torch_musa, n + "Tensor") for n in names]
        T = torch_musa.FloatTensor
        x = torch.randn(2, 3, device="musa")
        r = {"names": [repr(t) for t in types],
             "classes_set": set(types) == torch_musa._tensor_classes,
             "same_on_torch_musa": torch.musa.HalfTensor is torch_musa.HalfTensor,
             "metaclass": [type(T).__module__, type(T).__name__, type(T) is type(torch.FloatTensor)],
             "dtypes": [str(t.dtype) for t in types], "layout": str(T.layout),
             "tensor_methods": T.add is torch.Tensor.add,
             "isinstance": [isinstance(x, T), isinstance(x.double(), T), isinstance(x.cpu(), T),
                            isinstance(x.to_sparse(), T)],
             "has_complex": hasattr(torch_musa, "ComplexFloatTensor")}
        try:
            class Sub(T):
                pass
            r["subclass"] = "allowed"
        except TypeError as exc:
            r["subclass"] = str(exc)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            a, b = T(2, 3), torch_musa.LongTensor([1, 2])
            T(1)
        r["ctor"] = [list(a.shape), str(a.device), str(b.dtype), b.tolist(),
                     sum("no longer recommended" in str(w.message) for w in caught)]
        r["alias"] = T(x).data_ptr() == x.data_ptr()
        r["type_names"] = [x.type(), str(x.type("torch_musa.HalfTensor").dtype),
                           str(x.type(torch_musa.HalfTensor).dtype),
                           str(x.cpu().type("torch.musa.ShortTensor").device)]
        try:
            torch.set_default_tensor_type(T)
            r["default_type"] = "accepted"
        except TypeError as exc:
            r["default_type"] = str(exc)
        print(json.dumps(r))
    """ % TYPES, env=bare_sim_env()))
    assert got["names"] == ["<class 'torch_musa.%sTensor'>" % n for n in TYPES]
    assert got["classes_set"] and got["same_on_torch_musa"] and not got["has_complex"]
    # torch_musa's own metaclass named torch.tensortype, not torch's (PythonTensor.cpp:204)
    assert got["metaclass"] == ["torch", "tensortype", False]
    assert got["dtypes"] == [str(getattr(torch, d)) for d in (
        "bool", "uint8", "int8", "float64", "float32", "int32", "int64", "int16", "float16",
        "bfloat16")]
    assert got["layout"] == "torch.strided" and got["tensor_methods"]
    assert got["isinstance"] == [True, False, False, False]
    assert got["subclass"] == "type 'torch_musa.FloatTensor' is not an acceptable base type"
    assert got["ctor"] == [[2, 3], "musa:0", "torch.int64", [1, 2], 1]
    assert got["alias"]
    # printed names stay torch.musa.*; the patched parser takes torch_musa.* too
    assert got["type_names"] == ["torch.musa.FloatTensor", "torch.float16", "torch.float16", "musa:0"]
    # torch accepts only its own type objects as the default type (python_tensor.cpp)
    assert "only floating-point types are supported" in got["default_type"]


def test_comm_bindings_and_patched_nn_parallel():
    got = last_json(run_python("""
        import json
        import torch, torch_musa
        import torch.cuda.comm as cuda_comm
        from torch.nn.parallel import comm
        m = torch_musa._MUSAC
        x = torch.arange(6.).reshape(3, 2).to("musa")
        b = m._broadcast(x, [0, 1])
        s = m._scatter(x, [0, 1], None, 0, [None, torch.Stream(1), torch_musa.Stream(1)])
        g = m._gather([x, x.to("musa:1")], 0, None)
        bc = m._broadcast_coalesced([x], [0, 1], 1 << 20)
        r = {"bound": [hasattr(m, n) for n in ("_broadcast", "_scatter", "_gather",
                       "_broadcast_coalesced", "_broadcast_out", "_scatter_out", "_gather_out")],
             "broadcast": [b[0] is x, str(b[1].device), b[1].tolist()],
             "scatter": [[str(t.device), t.tolist()] for t in s],
             "gather": [str(g.device), g.tolist()],
             "coalesced": [bc[0][0] is x, str(bc[1][0].device), bc[1][0].requires_grad],
             "same_functions": cuda_comm.broadcast is comm.broadcast,
             "comm_via_musac": [str(t.device) for t in cuda_comm.broadcast(x, [1])]}
        try:
            comm.gather([x, x.to("musa:1")], out=torch.empty(6, 2, device="musa:1"))
        except AttributeError as exc:
            r["gather_out"] = str(exc)
        print(json.dumps(r))
    """, env=bare_sim_env()))
    x = torch.arange(6.).reshape(3, 2)
    assert got["bound"] == [True, True, True, True, False, False, False]
    assert got["broadcast"] == [True, "musa:1", x.tolist()]
    assert got["scatter"] == [["musa:0", x[:2].tolist()], ["musa:1", x[2:].tolist()]]
    assert got["gather"] == ["musa:0", torch.cat([x, x]).tolist()]
    assert got["coalesced"] == [True, "musa:1", False]
    assert got["same_functions"] and got["comm_via_musac"] == ["musa:1"]
    assert got["gather_out"] == "module 'torch_musa._MUSAC' has no attribute '_gather_out'"


def test_data_parallel_on_the_bare_simulator():
    """A MUSA-written DataParallel program runs on the simulated torch_musa alone."""
    got = last_json(run_python("""
        import json
        import torch, torch_musa
        torch.manual_seed(0)
        m = torch.nn.Linear(4, 2).double()
        x = torch.randn(8, 4, dtype=torch.float64)
        ref = m(x).sum()
        ref.backward()
        ref_grad = m.weight.grad.clone()
        m.weight.grad = None
        m.to("musa")
        y = torch.nn.DataParallel(m, device_ids=[0, 1])(x.to("musa")).sum()
        y.backward()
        print(json.dumps({"diff": (m.weight.grad.cpu() - ref_grad).abs().max().item(),
                          "device": str(m.weight.grad.device)}))
    """, env=bare_sim_env()))
    assert got["device"] == "musa:0"
    assert got["diff"] <= 1e-13  # float64, two half-batch sums added (see the area's tests)
