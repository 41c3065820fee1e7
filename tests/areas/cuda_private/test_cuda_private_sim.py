"""The cuda_private area on the simulated torch_musa (fresh interpreters)."""
import json

from tests._fresh import run_sim


def sim_json(code, **env):
    return json.loads(run_sim(code, **env).stdout.strip().splitlines()[-1])


def test_get_device_index_accepts_every_form_cuda_does():
    out = sim_json("""
        import json
        f = torch.cuda._get_device_index
        torch.cuda.set_device(1)
        out = {"int": f(0), "str": f("cuda:1"), "dev": f(torch.device("cuda", 0)),
               "musa": f("musa:1"), "none_opt": f(None, optional=True),
               "bare_opt": f("cuda", optional=True), "ctx": f(torch.cuda.device(0)),
               "cpu": f("cpu", allow_cpu=True),
               "same_everywhere": torch.cuda.memory._get_device_index is f
                                  and torch.cuda._utils._get_device_index is f}
        for bad, kw in (("cpu", {}), ("cuda", {})):
            try:
                f(bad, **kw)
                out["err_" + bad] = None
            except ValueError as exc:
                out["err_" + bad] = str(exc)
        print(json.dumps(out))
    """)
    assert out.pop("same_everywhere") is True
    assert out.pop("err_cpu") == "Expected a cuda device, but got: cpu"  # CUDA's own message
    assert out.pop("err_cuda").startswith("Expected a torch.device with a specified index")
    assert out == {"int": 0, "str": 1, "dev": 0, "musa": 1, "none_opt": 1, "bare_opt": 1,
                   "ctx": 0, "cpu": -1}


def test_device_context_inside_torch_compile_matches_eager():
    out = sim_json("""
        import json

        def f(x):
            with torch.cuda.device("cuda:1"):
                y = torch.ones(2, device="cuda") * x.sum().item()
            return y.device.index, y.tolist()

        x = torch.arange(3.0, device="cuda:1")
        eager = f(x)
        compiled = torch.compile(f, backend="eager")(x)
        print(json.dumps({"eager": eager, "compiled": compiled}))
    """)
    assert out["eager"] == out["compiled"] == [1, [3.0, 3.0]]


def test_cudagraph_trees_import_and_private_c_names():
    out = sim_json("""
        import json
        import torch._inductor.cudagraph_trees as trees
        torch.compiler.cudagraph_mark_step_begin()
        raw = torch._C._cuda_getCurrentRawStream
        s = torch.cuda.Stream(device=1)
        with torch.cuda.stream(s):
            inside = raw(1) == s.cuda_stream
        print(json.dumps({
            "state": trees.AllocatorState is torch.musa._MUSAC._musa_MUSAAllocator_AllocatorState,
            "raw0": raw(0) == torch.cuda.current_stream(0).cuda_stream, "inside": inside,
            "count": torch._C._cuda_getDeviceCount(), "nvml": torch.cuda._device_count_nvml(),
            "compiled": torch.cuda._is_compiled() == torch.backends.cuda.is_built() == True,
            "available": torch.cuda.is_available()}))
    """)
    # torch's is_available would now say True (its inputs answer for MUSA); the devices
    # area keeps it False unless TORCHADA_FORCE_CUDA_AVAILABLE
    assert out == {"state": True, "raw0": True, "inside": True, "count": 2, "nvml": 2,
                   "compiled": True, "available": False}


def test_revert_removes_the_c_names_and_restores_get_device_index():
    out = sim_json("""
        import json, torch.cuda.memory
        torchada.revert()
        f = torch.cuda._get_device_index
        mine = torch.musa._MUSAC._musa_getCurrentRawStream
        # a CUDA build of torch (the 2.7.1 run) has its own; a CPU build has none
        print(json.dumps({"c": getattr(torch._C, "_cuda_getCurrentRawStream", None) is mine,
                          "torch_own": not hasattr(f, "__wrapped__"),
                          "same": torch.cuda.memory._get_device_index is f
                                  and torch.cuda._utils._get_device_index is f}))
    """)
    assert out == {"c": False, "torch_own": True, "same": True}
