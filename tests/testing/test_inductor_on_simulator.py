"""torch.compile on the simulated device: the default backend stops with an error naming what
works (the simulator has no MUSA code generator; real torch_musa registers one), aot_eager
computes the CPU's numbers, and Inductor on CPU tensors is untouched."""
from tests._fresh import last_json, run_sim


def test_default_backend_says_what_works_and_aot_eager_runs():
    out = last_json(run_sim("""
        import json
        def f(x):
            return torch.sin(x) * 2 + 1
        x = torch.arange(4.0)
        out = {"ref": f(x).tolist()}
        try:
            torch.compile(f)(x.cuda())
            out["default"] = "ran"
        except Exception as exc:
            out["default"] = "%s: %s" % (type(exc).__name__, exc)
        out["aot_eager"] = torch.compile(f, backend="aot_eager")(x.cuda()).cpu().tolist()
        torch._dynamo.reset()
        out["cpu_inductor"] = torch.compile(f)(x).tolist()
        print(json.dumps(out))
    """))
    assert "KeyError" not in out["default"]
    assert "no Inductor code generator for the MUSA device" in out["default"]
    assert 'backend="aot_eager"' in out["default"] and "real Moore Threads hardware" in out["default"]
    assert out["aot_eager"] == out["ref"]
    assert max(abs(a - b) for a, b in zip(out["cpu_inductor"], out["ref"])) < 1e-6
