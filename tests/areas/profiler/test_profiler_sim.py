"""The profiler area on the simulated torch_musa: ProfilerActivity.CUDA and use_device="cuda"
profile the musa device; unknown activities get torch's own error."""
import json

from tests._fresh import run_sim

PROFILE = """
import json
from torch.profiler import ProfilerActivity, profile, record_function, supported_activities
x = torch.randn(32, 32, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    with record_function("my_block"):
        y = x @ x
    torch.cuda.synchronize()
names = {e.key for e in prof.key_averages()}
prof.export_chrome_trace(%(trace)r)
with torch.autograd.profiler.profile(use_device="cuda") as legacy:
    z = x @ x
table = legacy.key_averages().table(row_limit=3)
mm = [e for e in legacy.key_averages() if e.key == "aten::mm"][0]
native = ProfilerActivity.PrivateUse1 in torch._C._autograd._supported_activities()
print(json.dumps({"names": sorted(n for n in names if n in ("my_block", "aten::mm")),
                  "cuda_in_supported": ProfilerActivity.CUDA in supported_activities(),
                  "pu1_supported": native, "use_device": legacy.use_device,
                  "musa_columns": "MUSA total" in table,
                  "device_time": mm.device_time_total > 0,
                  "torch": torch.__version__}))
"""


def test_cuda_activity_and_legacy_use_device_profile_musa(tmp_path):
    trace = tmp_path / "trace.json"
    proc = run_sim(PROFILE % {"trace": str(trace)})
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["names"] == ["aten::mm", "my_block"] and out["use_device"] == "musa"
    # CUDA is listed exactly where torch lists PrivateUse1
    assert out["cuda_in_supported"] is out["pu1_supported"]
    # Stock torch 2.7 attaches PrivateUse1 device time to legacy-profiler events only for an
    # unnamed backend (use_device == "privateuseone", torch/autograd/profiler.py); Moore
    # Threads' patched torch uses the backend name (cuda_vs_musa.md, torch_patches/kineto)
    # and stock torch 2.13 does (the first stock release that does is unknown: 2.8 is assumed,
    # only 2.7.1 and 2.13 are run here). The simulator runs on stock torch.
    named = tuple(int(p) for p in out["torch"].split(".")[:2]) >= (2, 8)
    assert out["musa_columns"] is named and out["device_time"] is named
    assert "used in profiler but not enabled" not in proc.stderr  # what CUDA gave before
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "my_block" for e in events)


BOGUS = """
from torch.profiler import profile
try:
    with profile(activities=["not an activity"]):
        pass
except Exception as exc:
    print("ERR", type(exc).__name__, exc)
"""


def test_unknown_activity_gets_torchs_own_error():
    ours = run_sim(BOGUS).stdout.strip().splitlines()[-1]
    torchs = run_sim(BOGUS, TORCHADA_DISABLE_AREAS="profiler").stdout.strip().splitlines()[-1]
    assert ours.startswith("ERR") and ours == torchs
