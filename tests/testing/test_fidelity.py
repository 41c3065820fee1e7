"""Issue 06: behaviours of the real torch_musa 2.7.1 (ported from torch's CUDA code) that the
simulator reproduces.  Expected values come from the CUDA sources named beside each check
or from CPU reference numbers, never from the simulator itself."""
import sys

import pytest

STREAMS_EVENTS = r'''
import torch, torch_musa
s1 = torch.musa.Stream(device="musa:1")
assert s1.device_index == 1
with torch.musa.stream(s1):                      # set_stream makes the stream's device current
    assert torch.musa.current_device() == 1
    assert torch.empty(1, device="musa").device.index == 1
assert torch.musa.current_device() == 0
assert torch.Stream(device="musa:1").device_index == 1 and torch.Stream(device="musa").device_index == 0
e = torch.musa.Event()
assert isinstance(e, torch.Event) and issubclass(torch.musa.Event, torch.Event)
assert e.device is None                          # unrecorded, as THCPEvent_get_device
e.record(s1); assert e.device == torch.device("musa", 1)
torch.Stream(device="musa:0").wait_event(e)      # generic torch.Stream API takes it
try:
    e.record(torch.musa.current_stream(0)); raise SystemExit("recorded on another device")
except RuntimeError as exc:
    assert "does not match recording stream's device index" in str(exc), exc
x = torch.ones(4, device="musa:1")
x.record_stream(s1)                              # was: CPU fallback raised
print("OK")
'''

ALLOCATOR = r'''
import torch, torch_musa
MiB = 1 << 20
def st(): return torch.musa.memory_stats()
a = torch.empty(100, dtype=torch.uint8, device="musa")            # 100 B -> 512 B, small pool
s = st()
assert s["allocated_bytes.small_pool.current"] == 512 and s["requested_bytes.all.current"] == 100
assert s["segment.small_pool.current"] == 1 and s["reserved_bytes.small_pool.current"] == 2 * MiB
b = torch.empty(3 * MiB, dtype=torch.uint8, device="musa")        # < 10 MiB -> one 20 MiB segment
s = st()
assert s["reserved_bytes.large_pool.current"] == 20 * MiB and s["allocated_bytes.large_pool.current"] == 3 * MiB
assert s["inactive_split.large_pool.current"] == 1                # the 17 MiB remainder
c = torch.empty(11 * MiB, dtype=torch.uint8, device="musa")       # best fit: the 17 MiB remainder, split
assert st()["reserved_bytes.large_pool.current"] == 20 * MiB
d = torch.empty(17 * MiB + 1, dtype=torch.uint8, device="musa")   # fits nowhere: 2 MiB rounding, 18 MiB
assert st()["reserved_bytes.large_pool.current"] == 38 * MiB
# should_split: a large remainder under 1 MiB stays in the block, so d holds all 18 MiB
assert st()["allocated_bytes.large_pool.current"] == 14 * MiB + 18 * MiB
assert st()["requested_bytes.large_pool.current"] == 14 * MiB + 17 * MiB + 1
del c, d
torch.musa.empty_cache()                                          # the free 18 MiB segment goes back
assert st()["reserved_bytes.large_pool.current"] == 20 * MiB
del b
torch.musa.empty_cache()
s = st()
assert s["reserved_bytes.large_pool.current"] == 0 and s["reserved_bytes.small_pool.current"] == 2 * MiB
assert s["num_device_alloc"] == 3 and s["num_device_free"] == 2
snap = torch.musa.memory._snapshot()
seg = [g for g in snap["segments"] if g["device"] == 0]
assert len(seg) == 1 and seg[0]["segment_type"] == "small" and seg[0]["total_size"] == 2 * MiB
assert [blk["state"] for blk in seg[0]["blocks"]] == ["active_allocated", "inactive"]
assert torch.musa.memory_snapshot() == snap["segments"]
assert callable(torch.musa.memory._get_current_allocator().allocator)
summary = torch.musa.memory_summary()
assert "PyTorch MUSA memory summary, device ID 0" in summary and "GPU reserved segments" in summary
assert "from small pool" in summary and "Non-releasable memory" in summary
# A fraction lowered below what is already reserved: the OOM message reports 0 MiB free
# (CUDA reads it from cudaMemGetInfo, which cannot be negative), never a negative number.
torch.musa.set_per_process_memory_fraction(1e-9)
try:
    torch.empty(4 * MiB, dtype=torch.uint8, device="musa"); raise SystemExit("no OOM")
except torch.OutOfMemoryError as exc:
    assert " of which 0 MiB is free" in str(exc), exc
torch.musa.set_per_process_memory_fraction(1.0)
print("OK")
'''

RNG = r'''
import torch, torch_musa
torch.manual_seed(0)
cpu_state = torch.get_rng_state()
torch.rand(8, device="musa")
torch.nn.functional.dropout(torch.ones(64, device="musa"), 0.5, training=True)
assert torch.equal(cpu_state, torch.get_rng_state()), "musa ops advanced the CPU generator"
state = torch.musa.get_rng_state()
assert state.dtype == torch.uint8 and state.numel() == 16          # CUDAGeneratorImpl::get_state
seed, offset = state[:8].view(torch.int64).item(), state[8:].view(torch.int64).item()
assert seed == 0 and offset > 0 and offset % 4 == 0
a = torch.randn(5, device="musa").cpu()
torch.musa.set_rng_state(state)
assert torch.equal(torch.randn(5, device="musa").cpu(), a)
# A state saved on a CUDA machine: 16 bytes, seed 1234, offset 0.
cuda_state = torch.zeros(16, dtype=torch.uint8); cuda_state[:8] = torch.tensor([1234], dtype=torch.int64).view(torch.uint8)
torch.musa.set_rng_state(cuda_state)
assert torch.musa.initial_seed() == 1234
first = torch.rand(3, device="musa").cpu()
torch.musa.manual_seed(1234)
assert torch.equal(torch.rand(3, device="musa").cpu(), first)
try:
    torch.rand(3, device="musa", generator=torch.Generator()); raise SystemExit("CPU generator accepted")
except RuntimeError as exc:
    assert "device type for generator" in str(exc), exc
d = torch.nn.functional.dropout(torch.ones(1000, device="musa"), 0.25, training=True).cpu()
kept = d[d != 0]
assert torch.allclose(kept, torch.full_like(kept, 1 / 0.75)) and 600 < kept.numel() < 900
print("OK")
'''

AUTOCAST = r'''
import torch, torch_musa
x = torch.randn(8, 8, device="musa"); h = x.half(); idx = torch.tensor([0, 1], device="musa")
with torch.autocast("musa", dtype=torch.float16):
    got = {
        "mm": (x @ x).dtype,                                  # lower_precision_fp
        "pow": h.pow(2).dtype, "log": h.log().dtype,          # fp32
        "sum": h.sum().dtype, "cumsum": h.cumsum(0).dtype,    # fp32_set_opt_dtype
        "norm": h.norm().dtype,                               # fp32_append_dtype
        "dot": torch.dot(x[0], h[0]).dtype,                   # promote
        "index_put": h.index_put((idx,), x[:2]).dtype,
        "grid": torch.nn.functional.grid_sample(h.view(1, 1, 8, 8), torch.zeros(1, 2, 2, 2, device="musa"),
                                                align_corners=False).dtype,
        "add": (h + h).dtype,                                 # not listed: untouched
    }
    try:
        torch.nn.functional.binary_cross_entropy(torch.rand(3, device="musa"), torch.rand(3, device="musa"))
        got["bce"] = "allowed"
    except RuntimeError as exc:
        got["bce"] = "banned" if "unsafe to autocast" in str(exc) else str(exc)
f16, f32 = torch.float16, torch.float32
assert got == {"mm": f16, "pow": f32, "log": f32, "sum": f32, "cumsum": f32, "norm": f32, "dot": f32,
               "index_put": f32, "grid": f32, "add": f16, "bce": "banned"}, got
# Numbers: the fp32 sum of fp16 inputs equals the CPU float32 sum of the same values.
with torch.autocast("musa", dtype=torch.float16):
    s = h.sum()
assert torch.allclose(s.cpu(), h.cpu().float().sum(), rtol=1e-6, atol=1e-5)
print("OK")
'''

REFUSALS = r'''
import os, torch, torch_musa
x = torch.ones(3, device="musa"); torch.musa.current_stream()
pid = os.fork()
if pid == 0:
    try:
        torch.musa.current_stream(); os._exit(3)
    except RuntimeError as exc:
        os._exit(0 if "Cannot re-initialize MUSA in forked subprocess" in str(exc) else 4)
assert os.waitpid(pid, 0)[1] == 0, "forked child could use the device"
def refused(fn, text):
    try:
        fn()
    except RuntimeError as exc:
        assert text in str(exc), exc
        return
    raise AssertionError("not refused: " + text)
g = torch.musa.MUSAGraph()
with torch.musa.graph(g):
    y = x * 2
def recapture():
    with torch.musa.graph(g):
        x * 3
refused(recapture, "already owns a captured graph")
def nonzero_in_capture():
    with torch.musa.graph(torch.musa.MUSAGraph()):
        torch.nonzero(x)
refused(nonzero_in_capture, "operation not permitted when stream is capturing")
g2, s = torch.musa.MUSAGraph(), torch.musa.Stream()
with torch.musa.stream(s):
    g2.capture_begin()
refused(g2.capture_end, "Capture must end on the same stream it began on")
with torch.musa.stream(s):
    g2.capture_end()
# bare arch numbers (CMakeLists.txt:397 at v2.7.1), as musa_extension.py:816 int()s them
assert torch.musa.get_arch_list() == ["%d%d" % torch.musa.get_device_capability(0)]
print("OK")
'''


@pytest.mark.parametrize("name, code", [("streams_events", STREAMS_EVENTS), ("allocator", ALLOCATOR),
                                        ("rng", RNG), ("autocast", AUTOCAST)])
def test_behaviour(sim, name, code):
    assert sim(code).stdout.strip().endswith("OK")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_refusals(sim):
    assert sim(REFUSALS).stdout.strip().endswith("OK")


COLLECTIVES = r'''
import os, sys, torch, torch.multiprocessing as mp

def worker(rank, world, port):
    import torch_musa, torch.distributed as dist
    dist.init_process_group("mccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    torch.musa.set_device(rank)
    d = f"musa:{rank}"
    out = torch.empty(4, device=d); dist.all_gather_into_tensor(out, torch.full((2,), float(rank), device=d))
    assert out.cpu().tolist() == [0., 0., 1., 1.], out
    rs = torch.empty(2, device=d); dist.reduce_scatter_tensor(rs, torch.arange(4., device=d))
    assert rs.cpu().tolist() == ([0., 2.] if rank == 0 else [4., 6.]), rs
    a2a = torch.empty(2, device=d); dist.all_to_all_single(a2a, torch.tensor([rank * 10., rank * 10 + 1], device=d))
    assert a2a.cpu().tolist() == [0. + rank, 10. + rank], a2a
    b = torch.tensor([rank * 7.], device=d); dist.broadcast(b, src=1); assert b.item() == 7.
    objs = [None] * world; dist.all_gather_object(objs, {"r": rank}); assert objs == [{"r": 0}, {"r": 1}]
    dist.barrier()
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import distribute_tensor, Shard
    mesh = init_device_mesh("musa", (world,))
    dt = distribute_tensor(torch.arange(4., device=d), mesh, [Shard(0)])
    assert dt.to_local().device.type == "musa" and dt.full_tensor().cpu().tolist() == [0., 1., 2., 3.]
    dist.destroy_process_group()
    if rank == 0:
        print("OK", flush=True)

if __name__ == "__main__":
    mp.spawn(worker, args=(2, int(sys.argv[1])), nprocs=2)
'''


def test_mccl_collectives_two_processes(sim, tmp_path):
    from tests._fresh import free_port

    port = free_port()
    script = tmp_path / "coll.py"
    script.write_text(COLLECTIVES)
    code = f"import runpy, sys; sys.argv = ['coll', '{port}']; runpy.run_path({str(script)!r}, run_name='__main__')"
    assert "OK" in sim(code, timeout=600).stdout
