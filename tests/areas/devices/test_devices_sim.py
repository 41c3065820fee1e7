"""The devices area on the simulated MUSA device: real tensors, checkpoints from CUDA hosts,
errors in CUDA words, graph capture."""
import textwrap

from tests._fresh import clean_env, last_json, run_python, sim_env


MAKE_CUDA_CKPT = textwrap.dedent("""
    import sys, torch, torch.serialization as s
    # tag CPU storages the way a CUDA host does ("cuda:N"), without a CUDA device
    loc = sys.argv[2]
    s.register_package(0, lambda obj: loc if obj.device.type == "cpu" else None,
                       lambda obj, location: None)
    torch.save({"w": torch.arange(6.0)}, sys.argv[1])
""")


def test_cuda_checkpoint_loads_on_musa(tmp_path):
    for loc in ("cuda:0", "cuda:1", "cuda:7"):
        run_python(MAKE_CUDA_CKPT, env=clean_env(TORCHADA_PLATFORM="off"), script_args=[str(tmp_path / (loc[-1] + ".pt")), loc])
    code = textwrap.dedent("""
        import json, torch
        d = %r
        out = {}
        for label, kw in [("none", {}), ("str", {"map_location": "cuda"}),
                          ("dev", {"map_location": torch.device("cuda:1")}),
                          ("dict", {"map_location": {"cuda:0": "cuda:1"}}),
                          ("call", {"map_location": lambda s, l: s.cuda(1)}),
                          ("cpu", {"map_location": "cpu"})]:
            w = torch.load(d + "/0.pt", **kw)["w"]
            out[label] = [str(w.device), w.sum().item()]
        out["from1"] = str(torch.load(d + "/1.pt")["w"].device)
        try:
            torch.load(d + "/7.pt")
        except RuntimeError as exc:
            out["bad"] = str(exc)
        print(json.dumps(out))
    """ % str(tmp_path))
    out = last_json(run_python(code, env=sim_env()))
    assert out["none"] == ["musa:0", 15.0] and out["str"] == ["musa:0", 15.0]
    assert out["dev"][0] == out["dict"][0] == out["call"][0] == "musa:1"
    assert out["cpu"] == ["cpu", 15.0] and out["from1"] == "musa:1"
    assert out["bad"].startswith("Attempting to deserialize object on CUDA device 7 but "
                                 "torch.cuda.device_count() is 2")


def test_tensor_paths_and_errors():
    code = textwrap.dedent("""
        import json, torch
        x = torch.ones(3)
        out = {
          "to": str(x.to("cuda:1").device), "to_kw": str(x.to(device="cuda").device),
          "to_dtype": str(x.to("cuda", torch.float16).dtype),
          "cuda": str(x.cuda().device), "cuda1": str(x.cuda(1).device),
          "cuda_str": str(x.cuda("cuda:1").device), "cuda_dev": str(x.cuda(torch.device("cuda", 1)).device),
          "new": str(x.new_zeros(2, device="cuda").device),
          "like": str(torch.ones_like(x, device="cuda:1").device),
          "randint": str(torch.randint(0, 5, (3,), device="cuda").device),
          "module": str(torch.nn.Linear(2, 2).to("cuda:1").weight.device),
          "module_cuda": str(torch.nn.Linear(2, 2).cuda(1).weight.device),
          "gen": str(torch.Generator(device="cuda").device),
          "is_cuda": [x.cuda().is_cuda, x.is_cuda, torch.ones(1, device="meta").is_cuda],
          "storage": str(torch.UntypedStorage(4).cuda(1).device),
        }
        for label, call in [("ord99", lambda: torch.zeros(2, device="cuda:99")),
                            ("to99", lambda: x.to("cuda:99")),
                            ("cuda99", lambda: x.cuda(99)),
                            ("cuda_cpu", lambda: x.cuda("cpu"))]:
            try:
                call(); out[label] = "no error"
            except Exception as exc:
                out[label] = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0])
        print(json.dumps(out))
    """)
    out = last_json(run_python(code, env=sim_env()))
    assert out["to"] == "musa:1" and out["to_kw"] == "musa:0" and out["to_dtype"] == "torch.float16"
    assert out["cuda"] == "musa:0" and out["cuda1"] == out["cuda_str"] == out["cuda_dev"] == "musa:1"
    assert out["new"] == "musa:0" and out["like"] == "musa:1" and out["randint"] == "musa:0"
    assert out["module"] == out["module_cuda"] == "musa:1" and out["gen"] == "musa:0"
    assert out["is_cuda"] == [True, False, False] and out["storage"] == "musa:1"
    for label in ("ord99", "to99", "cuda99"):
        assert "musa" not in out[label].lower().replace("torch_musa", ""), out[label]
        assert out[label] != "no error"
    assert out["cuda_cpu"] == "RuntimeError: Invalid device, must be cuda device"


def test_factories_under_graph_capture():
    code = textwrap.dedent("""
        import json, torch
        static = torch.zeros(4, device="cuda")
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            out = static + torch.ones(4, device="cuda")
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            out = static * 2 + torch.full((4,), 1.0, device="cuda:0") + torch.ones_like(static, device="cuda")
        static.fill_(3.0)
        g.replay()
        print(json.dumps({"out": out.tolist()}))
    """)
    assert last_json(run_python(code, env=sim_env()))["out"] == [8.0] * 4


def test_fallback_when_type_layout_unverified():
    code = textwrap.dedent("""
        import json
        import torchada.areas._devices.type_slots as slots
        slots.layout_problem = lambda cls: "forced by test"
        import torch
        import torchada
        d = torch.device("cuda:1")
        x = torch.ones(2)
        note = next(a.note for a in torchada.status().areas if a.name == "devices")
        mode = note.split("torch.device: ", 1)[1].split("; calls: ")[0]
        print(json.dumps({"mode": mode, "type": d.type,
                          "zeros": str(torch.zeros(2, device=d).device),
                          "to": str(x.to(d).device), "str": str(x.to("cuda").device),
                          "new_builtin": type(torch.device.__dict__["__new__"]).__name__}))
    """)
    out = last_json(run_python(code, env=sim_env()))
    assert out["mode"] == "fallback: forced by test" and out["type"] == "cuda"
    assert out["zeros"] == out["to"] == "musa:1" and out["str"] == "musa:0"
    assert out["new_builtin"] == "builtin_function_or_method"


def test_map_location_dict_with_cuda_keys_moves_what_the_program_saved(tmp_path):
    """A CUDA program saves on cuda:N and loads with {"cuda:N": ...}: under torchada its
    tensors were on musa:N (tagged so); the cuda keys must still match them."""
    code = textwrap.dedent("""
        import json, torch
        path = %r
        torch.save({"a": torch.arange(3.0, device="cuda:0"), "b": torch.ones(2, device="cuda:1")},
                   path)
        out = {}
        for label, ml in [("cpu", {"cuda:0": "cpu", "cuda:1": "cpu"}),
                          ("swap", {"cuda:0": "cuda:1", "cuda:1": "cuda:0"}),
                          ("bare", {"cuda": "cpu"}),
                          ("other", {"cuda:5": "cpu"})]:
            sd = torch.load(path, map_location=ml)
            out[label] = [str(sd["a"].device), str(sd["b"].device), sd["a"].tolist()]
        out["serialization"] = str(torch.serialization.load(path, map_location={"cuda:0": "cpu"})["a"].device)
        print(json.dumps(out))
    """ % str(tmp_path / "ck.pt"))
    out = last_json(run_python(code, env=sim_env()))
    assert out["cpu"] == ["cpu", "cpu", [0.0, 1.0, 2.0]]
    assert out["swap"] == ["musa:1", "musa:0", [0.0, 1.0, 2.0]]
    # "cuda" without an index names no saved tag (tags carry the index), as on CUDA
    assert out["bare"][:2] == ["musa:0", "musa:1"] and out["other"][:2] == ["musa:0", "musa:1"]
    assert out["serialization"] == "cpu"
