"""The legacy_types area on the simulated torch_musa: every legacy CUDA type name, as a string
and as a class, in Tensor.type / Module.type / set_default_tensor_type.

Expected values come from this process's own CPU torch (the same data converted on the CPU)
and from this file's table of type names, not from the child's answers."""
import pytest
import torch

from tests._fresh import last_json, run_sim, sim_env

# torch's legacy type names and their dtypes (torch/csrc/tensor/python_tensor.cpp's list,
# less the complex types, which torch_musa does not have).
NAMES = {"Bool": torch.bool, "Byte": torch.uint8, "Char": torch.int8, "Double": torch.float64,
         "Float": torch.float32, "Int": torch.int32, "Long": torch.int64, "Short": torch.int16,
         "Half": torch.float16, "BFloat16": torch.bfloat16}
DATA = [[-2.75, 0.0, 1.5], [3.25, -0.5, 7.0]]

CONVERT = """
    import json
    names = %r
    x = torch.tensor(%r, device="cuda")
    originals = {c.__name__: c for c in torch._tensor_classes if c.__module__ == "torch.cuda"}
    out = {}
    for n in names:
        t = n + "Tensor"
        forms = {"str": "torch.cuda." + t, "class": getattr(torch.cuda, t),
                 "torch_class": originals[t]}
        for form, arg in forms.items():
            for source in ("cuda", "cpu"):
                y = (x if source == "cuda" else x.cpu()).type(arg)
                others = [m for m in names if m != n and isinstance(y, getattr(torch.cuda, m + "Tensor"))]
                out["%%s/%%s/%%s" %% (n, form, source)] = {
                    "dtype": str(y.dtype), "device": y.device.type, "is_cuda": y.is_cuda,
                    "type": y.type(), "isinstance": isinstance(y, getattr(torch.cuda, t)),
                    "other_isinstance": others, "values": y.cpu().double().tolist()}
    out["cpu_type"] = x.cpu().type()
    out["dtype_arg"] = x.type(torch.float16).type()
    out["round_trip"] = str(x.half().type(x.type()).dtype)
    print(json.dumps(out))
"""


def test_every_legacy_cuda_type_name_string_and_class():
    got = last_json(run_sim(CONVERT % (list(NAMES), DATA)))
    src = torch.tensor(DATA)
    for name, dtype in NAMES.items():
        expected_values = src.to(dtype).double().tolist()
        for form in ("str", "class", "torch_class"):
            for source in ("cuda", "cpu"):
                row = got["%s/%s/%s" % (name, form, source)]
                where = "%s %s from %s" % (name, form, source)
                assert row["dtype"] == str(dtype), where
                assert row["device"] == "musa" and row["is_cuda"], where
                assert row["type"] == "torch.cuda.%sTensor" % name, where
                assert row["isinstance"] and row["other_isinstance"] == [], where
                assert row["values"] == expected_values, where
    assert got["cpu_type"] == "torch.FloatTensor"
    assert got["dtype_arg"] == "torch.cuda.HalfTensor"
    assert got["round_trip"] == "torch.float32"


def test_module_type_and_cuda_method():
    got = last_json(run_sim("""
        import json
        torch.manual_seed(0)
        m = torch.nn.Linear(3, 2)
        w = m.weight.detach().clone()
        m.type(torch.cuda.DoubleTensor)
        h = torch.ones(2, 3).cuda().type("torch.cuda.HalfTensor")
        print(json.dumps({"w": [str(m.weight.dtype), m.weight.device.type,
                                torch.equal(m.weight.cpu(), w.double())],
                          "h": [h.type(), h.device.type]}))
    """))
    assert got == {"w": ["torch.float64", "musa", True], "h": ["torch.cuda.HalfTensor", "musa"]}


@pytest.mark.parametrize("form", ["str", "class"])
def test_set_default_tensor_type(form):
    got = last_json(run_sim("""
        import json, warnings
        warnings.simplefilter("ignore", UserWarning)  # torch's own deprecation notice
        arg = "torch.cuda.DoubleTensor" if %r == "str" else torch.cuda.DoubleTensor
        torch.set_default_tensor_type(arg)
        a = torch.zeros(2); b = torch.randn(3)
        on = [str(a.dtype), a.device.type, str(torch.get_default_dtype()), b.device.type, a.type()]
        torch.set_default_tensor_type("torch.FloatTensor")
        c = torch.zeros(2)
        off = [str(c.dtype), c.device.type, str(torch.get_default_dtype())]
        try:
            torch.set_default_tensor_type(torch.cuda.LongTensor)
            bad = "accepted"
        except TypeError as exc:
            bad = str(exc)
        print(json.dumps({"on": on, "off": off, "bad": bad}))
    """ % form))
    assert got["on"] == ["torch.float64", "musa", "torch.float64", "musa", "torch.cuda.DoubleTensor"]
    assert got["off"] == ["torch.float32", "cpu", "torch.float32"]
    assert "only floating-point types" in got["bad"]


def test_without_the_area_cuda_names_fail():
    """What the area fixes: the same call with the area switched off."""
    proc = run_sim("""
        x = torch.ones(2, device="cuda")
        x.type("torch.cuda.HalfTensor")
    """, env=sim_env(TORCHADA_DISABLE_AREAS="legacy_types"), check=False)
    assert proc.returncode != 0
    # torch tries to start CUDA: a CPU build has no CUDA library, a CUDA build finds no driver
    assert ("Cannot initialize CUDA without ATen_cuda library" in proc.stderr
            or "Found no NVIDIA driver on your system" in proc.stderr), proc.stderr
