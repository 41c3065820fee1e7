"""CUDA names that later torch_musa releases added (raw caching-allocator calls, get_stream_from_external,
the memory-fraction getter, pinned host-memory statistics, MemPool's 2.11 keywords), on the
simulated releases that have them and on 2.7.1, which does not; each in a fresh interpreter.

Sources: torch_musa/core/memory.py at 5e25af7 (2.9.1.post1) and e205050 (2.11.0.post2);
absent at v2.7.1 (tests/data/torch_musa_2.7.1_api.json)."""
import json

import pytest

from tests._fresh import last_json, run_sim
from tests._releases import importable_or_skip

LATER = ("2.9.1.post1", "2.11.0.post2")


def sim_json(code, release):
    return last_json(run_sim(code, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip(release)))


@pytest.mark.parametrize("release", LATER)
def test_raw_allocator_blocks_are_counted_by_memory_stats(release):
    # The independent measure: the allocator's own statistics, before and after, against
    # the byte counts asked for (3 MiB and 5000 B round to 3 MiB and 5120 B: the caching
    # allocator rounds to 512 B, CUDACachingAllocator.cpp round_size).
    out = sim_json("""
        import json
        torch.cuda.init()
        assert torch.cuda.caching_allocator_alloc is torch.musa.caching_allocator_alloc
        base = torch.cuda.memory_stats()
        p1 = torch.cuda.caching_allocator_alloc(3 << 20)
        p2 = torch.cuda.caching_allocator_alloc(5000, stream=torch.cuda.current_stream())
        mid = torch.cuda.memory_stats()
        torch.cuda.caching_allocator_delete(p1)
        torch.cuda.caching_allocator_delete(p2)
        end = torch.cuda.memory_stats()
        try:
            torch.cuda.caching_allocator_delete(p1)
            twice = None
        except RuntimeError as exc:
            twice = str(exc)
        k = "allocated_bytes.all.current"
        print(json.dumps({"grew": mid[k] - base[k], "left": end[k] - base[k],
                          "count": mid["allocation.all.current"] - base["allocation.all.current"],
                          "twice": twice, "distinct": p1 != p2 and p1 > 0 and p2 > 0}))
    """, release)
    assert out["grew"] == (3 << 20) + 5120
    assert out["left"] == 0
    assert out["count"] == 2
    assert out["distinct"]
    assert "invalid device pointer" in out["twice"]


@pytest.mark.parametrize("release", LATER)
def test_memory_fraction_round_trip(release):
    out = sim_json("""
        import json
        before = torch.cuda.get_per_process_memory_fraction()
        torch.cuda.set_per_process_memory_fraction(0.25)
        print(json.dumps({"before": before, "after": torch.cuda.get_per_process_memory_fraction(0)}))
    """, release)
    assert out == {"before": 1.0, "after": 0.25}


@pytest.mark.parametrize("release", LATER)
def test_host_memory_stats_after_pinned_allocations(release):
    # Two pinned tensors of known sizes, one freed: counts and bytes follow exactly (the
    # simulator's pinned allocator does not cache, see docs/simulator.md).
    out = sim_json("""
        import json
        torch.cuda.init()
        assert torch.cuda.memory.host_memory_stats is torch.musa.host_memory_stats
        torch.cuda.reset_accumulated_host_memory_stats()
        a = torch.ones(1000, dtype=torch.float32).pin_memory()        # 4000 B
        b = torch.empty(300, dtype=torch.float64, pin_memory=True)    # 2400 B
        s1 = dict(torch.cuda.host_memory_stats())
        del a
        s2 = dict(torch.cuda.host_memory_stats())
        torch.cuda.reset_peak_host_memory_stats()
        s3 = dict(torch.cuda.host_memory_stats())
        nested = torch.cuda.host_memory_stats_as_nested_dict()
        print(json.dumps({"s1": s1, "s2": s2, "s3": s3, "pinned": b.is_pinned(),
                          "nested": nested["allocated_bytes"]["current"]}))
    """, release)
    s1, s2, s3 = out["s1"], out["s2"], out["s3"]
    assert out["pinned"]
    assert s1["allocations.current"] == 2 and s1["num_host_alloc"] == 2
    assert s1["allocated_bytes.current"] == 6400 and s1["active_bytes.current"] == 6400
    assert s2["allocated_bytes.current"] == 2400 and s2["allocated_bytes.peak"] == 6400
    assert s2["allocated_bytes.freed"] == 4000 and s2["num_host_free"] == 1
    assert s3["allocated_bytes.peak"] == 2400
    assert out["nested"] == 2400


def test_release_2_7_1_names_the_release_and_the_fix():
    out = sim_json("""
        import json
        msgs = {}
        for name in ("caching_allocator_alloc", "host_memory_stats",
                     "get_per_process_memory_fraction"):
            try:
                getattr(torch.cuda, name)(1) if name == "caching_allocator_alloc" else \\
                    getattr(torch.cuda, name)()
            except NotImplementedError as exc:
                msgs[name] = str(exc)
        try:
            torch.cuda.memory.reset_peak_host_memory_stats()
        except NotImplementedError as exc:
            msgs["memory.reset_peak_host_memory_stats"] = str(exc)
        print(json.dumps(msgs))
    """, "2.7.1")
    assert len(out) == 4, out
    for name, msg in out.items():
        api = "torch.cuda." + name.split(".")[-1]
        assert api in msg, msg
        assert "torch_musa 2.7.1 has no torch.musa." in msg, msg
        assert "torch_musa 2.9.1.post1 added it: upgrade torch_musa" in msg, msg


def test_mempool_keywords_of_2_11():
    # no_split exists from 2.11.0.post2 (core/memory.py at e205050); 2.9.1.post1 takes
    # allocator and use_on_oom (at 5e25af7) and still has MemPoolContext; 2.7.1 the allocator.
    new = sim_json("""
        import json
        pool = torch.cuda.MemPool(use_on_oom=True, no_split=True)
        with torch.cuda.use_mem_pool(pool):
            x = torch.ones(4, device="cuda")
        print(json.dumps({"id": list(pool.id), "ctx": hasattr(torch.musa, "MemPoolContext"),
                          "sum": x.sum().item()}))
    """, "2.11.0.post2")
    assert new["id"][0] == 0 and new["id"][1] > 0
    assert new["ctx"] is False and new["sum"] == 4.0
    code = """
        import json
        def refused(**kw):
            try:
                torch.cuda.MemPool(**kw)
            except TypeError as exc:
                return str(exc)
        print(json.dumps({"on_oom": refused(use_on_oom=True), "split": refused(no_split=True),
                          "ctx": hasattr(torch.musa, "MemPoolContext")}))
    """
    mid = sim_json(code, "2.9.1.post1")
    assert mid["on_oom"] is None and "no_split" in mid["split"] and mid["ctx"] is True
    old = sim_json(code, "2.7.1")
    assert "use_on_oom" in old["on_oom"] and "no_split" in old["split"] and old["ctx"] is True


@pytest.mark.parametrize("release", ("2.7.1",) + LATER)
def test_get_stream_from_external_wraps_the_handle(release):
    # torch_musa has its own from 2.9.1.post1 (torch_musa/__init__.py at 5e25af7); 2.7.1
    # gets torchada's on ExternalStream. Either way: work queued on the wrapped stream is
    # ordered on the stream the handle came from.
    out = sim_json("""
        import json
        side = torch.cuda.Stream()
        wrapped = torch.cuda.get_stream_from_external(side.cuda_stream)
        with torch.cuda.stream(wrapped):
            x = torch.full((4,), 3.0, device="cuda") * 2
        wrapped.synchronize()
        print(json.dumps({"same": wrapped.cuda_stream == side.cuda_stream,
                          "own": torch.cuda.get_stream_from_external
                                 is getattr(torch.musa, "get_stream_from_external", None),
                          "sum": x.sum().item(), "device": wrapped.device.type}))
    """, release)
    assert out["same"] and out["sum"] == 24.0 and out["device"] == "musa"
    assert out["own"] is (release != "2.7.1")
