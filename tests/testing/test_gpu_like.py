"""The simulated device behaves like a GPU: inventory, errors, memory, streams, RNG, AMP."""
import pytest

CORE = r'''
import time, torch, torch_musa
def raises(exc, fn, text):
    try:
        fn()
    except exc as e:
        assert text in str(e), "%r not in %r" % (text, str(e))
        return
    raise AssertionError("no %s (%s)" % (exc.__name__, text))

# inventory (defaults)
assert torch.musa.is_available() and torch.musa.device_count() == 2
assert torch.musa.get_device_name(0) == "MTT S5000"  # the product the seed's tuned data target
assert torch.musa.get_device_capability(0) == (3, 1)
assert torch.musa.get_device_properties(1).total_memory == 48 << 30
raises(TypeError, lambda: torch.musa.get_device_properties(), "device")  # no default: real quirk
assert not hasattr(torch.musa, "init"), "torch.musa.init must not exist"
assert torch.musa.device_count.cache_info().hits >= 1  # lru_cached

# mixing devices raises like a GPU
a, b = torch.ones(3, device="musa:0"), torch.ones(3, device="musa:1")
raises(RuntimeError, lambda: a + b, "Expected all tensors to be on the same device")
raises(RuntimeError, lambda: a + torch.ones(3), "musa:0 and cpu")
raises(RuntimeError, lambda: torch.ones(3, device="musa:5"), "invalid device ordinal")

# current device and device context
with torch.musa.device(1):
    assert torch.musa.current_device() == 1
    assert torch.empty(1, device="musa").device.index == 1
assert torch.musa.current_device() == 0
torch.musa.set_device(1); assert torch.tensor([1.], device="musa").device.index == 1; torch.musa.set_device(0)

# memory statistics, empty_cache, OOM
torch.musa.empty_cache(); base = torch.musa.memory_allocated()
x = torch.empty(1 << 20, dtype=torch.uint8, device="musa")
assert torch.musa.memory_allocated() == base + (1 << 20), torch.musa.memory_allocated()
assert torch.musa.max_memory_allocated() >= base + (1 << 20)
del x
assert torch.musa.memory_allocated() == base
assert torch.musa.memory_reserved() >= base + (1 << 20), "freed memory stays reserved"
reserved_before = torch.musa.memory_reserved()
# empty_cache returns only whole free segments (CUDACachingAllocator release_cached_blocks):
# what stays reserved is exactly the 2 MiB small-pool segments that still hold a live block.
torch.musa.empty_cache()
st = torch.musa.memory_stats()
assert torch.musa.memory_reserved() <= reserved_before
assert torch.musa.memory_reserved() == st["segment.small_pool.current"] * (2 << 20) + st["reserved_bytes.large_pool.current"]
assert st["reserved_bytes.large_pool.current"] == 0 and st["segment.small_pool.current"] >= 1
torch.musa.reset_peak_memory_stats(); assert torch.musa.max_memory_allocated() == base
raises(NameError, lambda: torch.musa.reset_max_memory_allocated(), "warnings")  # real quirk
free, total = torch.musa.mem_get_info(0); assert total == 48 << 30 and free <= total
s = torch.musa.memory_stats(); assert "allocated_bytes.all.current" in s and "num_ooms" in s
torch.musa.set_per_process_memory_fraction(1e-6, 0)
raises(torch.OutOfMemoryError, lambda: torch.empty(1 << 20, device="musa:0"), "MUSA out of memory")
assert torch.musa.memory_stats()["num_ooms"] == 1, torch.musa.memory_stats()["num_ooms"]
torch.musa.set_per_process_memory_fraction(1.0, 0)
torch.empty(1 << 20, device="musa:0")

# streams and events
s1 = torch.musa.Stream()
assert torch.musa.current_stream() == torch.musa.default_stream()
with torch.musa.stream(s1):
    assert torch.musa.current_stream() == s1
    y = torch.ones(4, device="musa") * 3
assert torch.musa.current_stream() != s1
torch.musa.current_stream().wait_stream(s1)
e0, e1 = torch.musa.Event(enable_timing=True), torch.musa.Event(enable_timing=True)
e0.record(); time.sleep(0.02); e1.record(); e1.synchronize()
ms = e0.elapsed_time(e1); assert 15 <= ms < 2000, ms
assert e1.query() and s1.query()
# ValueError, as TORCH_CHECK_VALUE in c10/cuda/CUDAEvent.h elapsed_time
raises(ValueError, lambda: torch.musa.Event().elapsed_time(torch.musa.Event()), "enable_timing")
torch.musa.synchronize()

# per-device RNG
torch.musa.manual_seed(123); r1 = torch.rand(5, device="musa")
torch.musa.manual_seed(123); r2 = torch.rand(5, device="musa")
assert torch.equal(r1.cpu(), r2.cpu()), "seeding repeats"
st = torch.musa.get_rng_state(); r3 = torch.rand(5, device="musa"); torch.musa.set_rng_state(st)
assert torch.equal(torch.rand(5, device="musa").cpu(), r3.cpu()), "rng state restores"
torch.musa.manual_seed_all(7); p0 = torch.rand(3, device="musa:0"); p1 = torch.rand(3, device="musa:1")
assert torch.equal(p0.cpu(), p1.cpu()), "same seed on both devices"
torch.manual_seed(5); c1 = torch.rand(3, device="musa:1"); torch.rand(3, device="musa:0")
torch.manual_seed(5); torch.rand(3, device="musa:0"); c2 = torch.rand(3, device="musa:1")
assert torch.equal(c1.cpu(), c2.cpu()), "devices have independent generators"
g = torch.Generator(device="musa"); g.manual_seed(3)
assert torch.randn(2, device="musa", generator=g).device.type == "musa"
assert len(torch.musa.default_generators) == 2 and torch.musa.has_half

# autocast and GradScaler
lin = torch.nn.Linear(8, 4).musa(); inp = torch.randn(2, 8, device="musa")
with torch.autocast("musa", dtype=torch.float16):
    out = lin(inp); sm = torch.softmax(out, 1)
assert out.dtype == torch.float16 and sm.dtype == torch.float32, (out.dtype, sm.dtype)
with torch.musa.amp.autocast(dtype=torch.bfloat16):
    assert torch.is_autocast_enabled() and lin(inp).dtype == torch.bfloat16
assert lin(inp).dtype == torch.float32
scaler = torch.amp.GradScaler("musa"); opt = torch.optim.SGD(lin.parameters(), lr=0.1)
for _ in range(2):
    with torch.autocast("musa"):
        loss = lin(inp).float().pow(2).mean()
    scaler.scale(loss).backward(); scaler.step(opt); scaler.update(); opt.zero_grad()
assert scaler.get_scale() == 65536.0, scaler.get_scale()
lin.weight.grad = None
with torch.autocast("musa"):
    loss = lin(inp).float().sum() * float("inf")
scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
assert scaler.get_scale() == 32768.0, "inf grads back off the scale"
ms2 = torch.musa.GradScaler() if hasattr(torch.musa, "GradScaler") else torch.musa.amp.GradScaler()
print("OK")
'''


def _release_for_this_torch():
    # The documented rule (docs/simulator.md, Profiles): the newest profile whose torch
    # minimum the installed torch meets: 2.7.1 below torch 2.9.1, 2.9.1.post1 up to 2.10,
    # 2.11.0.post2 from 2.11 on.
    import torch
    from packaging.version import Version

    v = Version(Version(torch.__version__).base_version)
    if v >= Version("2.11.0"):
        return "2.11.0.post2"
    return "2.9.1.post1" if v >= Version("2.9.1") else "2.7.1"


def test_gpu_like_behaviour(sim):
    assert sim(CORE).stdout.strip().endswith("OK")


INVENTORY = r'''
import torch, torch_musa
print(torch.musa.device_count(), torch.musa.get_device_name(0), torch.musa.get_device_capability(0),
      torch.musa.get_device_properties(0).total_memory)
'''


@pytest.mark.parametrize("env, expected", [
    ({"TORCHADA_SIM_DEVICE_COUNT": "4"}, "4 MTT S5000 (3, 1) 51539607552"),
    ({"TORCHADA_SIM_DEVICE_COUNT": "4", "MUSA_VISIBLE_DEVICES": "2,0"}, "2 MTT S5000"),
    ({"MUSA_VISIBLE_DEVICES": "1,7,0"}, "1 MTT S5000"),
    ({"TORCHADA_SIM_DEVICE_NAME": "MTT S4000", "TORCHADA_SIM_CAPABILITY": "2.2",
      "TORCHADA_SIM_TOTAL_MEMORY": "80GiB"}, "2 MTT S4000 (2, 2) 85899345920"),
])
def test_inventory_from_environment(sim, env, expected):
    assert sim(INVENTORY, env).stdout.strip().startswith(expected)


def test_no_visible_devices(sim):
    out = sim("import torch, torch_musa; print(torch.musa.device_count(), torch.musa.is_available())",
              {"MUSA_VISIBLE_DEVICES": ""}).stdout
    assert out.strip() == "0 False"


@pytest.mark.parametrize("var, value", [
    ("TORCHADA_SIM_DEVICE_COUNT", "two"),
    ("TORCHADA_SIM_TOTAL_MEMORY", "lots"),
    ("TORCHADA_SIM_CAPABILITY", "22"),
    ("TORCHADA_SIM_TORCH_MUSA_VERSION", "not-a-version"),
    ("TORCHADA_SIM_DEFECTS", "+nonsense"),
])
def test_malformed_knob_warns_once_and_uses_default(sim, var, value):
    proc = sim("import torch, torch_musa; torch.musa.device_count(); torch.ones(1, device='musa'); "
               "print(torch.musa.device_count(), torch_musa.__version__)",
               {var: value, "PYTHONWARNINGS": "default::RuntimeWarning"})
    assert proc.stderr.count(f"ignoring {var}=") == 1, proc.stderr
    assert "accepted values" in proc.stderr
    assert proc.stdout.strip() == f"2 {_release_for_this_torch()}"
