"""torch.cuda names on the simulated torch_musa, each in a fresh interpreter."""
from tests._fresh import run_sim


def sim_stdout(code, **overrides):
    return run_sim(code, **overrides).stdout


def test_areas_apply_and_table_targets_exist_on_the_simulator():
    out = sim_stdout("""
        from torchada.areas import cuda_namespace as cn
        s = torchada.status()
        states = {a.name: a.state for a in s.areas}
        for name in ("cuda_namespace", "amp", "cudart", "backends"):
            assert states[name] == "applied", (name, s)
        cov = cn.coverage()
        missing = {k for k, v in cov.items() if "missing" in v[1]}
        # In the torch_musa 2.7.1 manifest but not (yet) in the simulator; they become
        # NotImplementedError stubs there, which is the behaviour for an older torch_musa.
        sim_gaps = {"memory._snapshot", "memory._get_current_allocator"}
        # rows whose target a later torch_musa release added (the row's ``since``): absent
        # from an older simulated release, as from the real one
        from packaging.version import Version
        from torchada.areas.cuda_api_table import all_rows
        import torch_musa
        here = Version(torch_musa.__version__.split("+")[0])
        later = {name for name, row in all_rows() if row.since and Version(row.since) > here}
        later |= {"memory." + name for name in later}
        assert missing <= sim_gaps | later, sorted(missing - sim_gaps - later)
        assert torch.cuda.device_count is torch.musa.device_count
        assert torch.cuda.streams.Stream is torch.musa.Stream
        assert torch.cuda.is_available is not torch.musa.is_available
        import torch.cuda.comm, torch.cuda.nccl, torch.cuda.amp, torch.cuda.graphs
        import torch.cuda.memory, torch.cuda.streams
        from torch.cuda.streams import Stream, Event
        from torch.cuda.amp import GradScaler, autocast
        from torch.cuda.graphs import CUDAGraph, graph
        assert Stream is torch.musa.Stream and Event is torch.musa.Event
        assert GradScaler is torch.musa.amp.GradScaler and autocast is torch.musa.amp.autocast
        assert CUDAGraph is torch.cuda.CUDAGraph and graph is torch.cuda.graph
        assert torch.cuda.nccl.version is torch.musa.mccl.version
        print("rule", cn.rule_handled())
        assert "by rule: none" in str(s), str(s)
    """)
    assert "rule []" in out


def test_memory_stats_through_cuda_names():
    sim_stdout("""
        import warnings
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        x = torch.empty(1 << 20, dtype=torch.uint8, device="musa")
        assert torch.cuda.memory_allocated() >= base + (1 << 20)
        assert torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated()
        assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
        stats = torch.cuda.memory_stats()
        assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated()
        assert torch.cuda.memory.memory_stats is torch.cuda.memory_stats
        free, total = torch.cuda.mem_get_info()
        assert 0 <= free <= total
        assert isinstance(torch.cuda.memory_summary(), str)
        del x
        torch.cuda.empty_cache()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            torch.cuda.reset_max_memory_allocated()   # NameError in torch_musa 2.7.1
        assert any(issubclass(i.category, FutureWarning) for i in w)
        assert torch.cuda.max_memory_allocated() == torch.cuda.memory_allocated()
        pool = torch.cuda.MemPool()
        assert isinstance(pool, torch.cuda.memory.MemPool)
        with torch.cuda.use_mem_pool(pool):
            t = torch.empty(4096, device="musa")
        assert t.device.type == "musa" and pool.id is not None
        torch.cuda.memory._record_memory_history()
        assert isinstance(torch.cuda.memory_snapshot(), list)
    """)


def test_streams_and_events_with_timing():
    sim_stdout("""
        s = torch.cuda.Stream()
        assert isinstance(s, torch.cuda.streams.Stream)
        assert s.cuda_stream == s.musa_stream
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        x = torch.ones(256, 256, device="musa")
        with torch.cuda.stream(s):
            assert torch.cuda.current_stream() == s
            start.record()
            y = x @ x
            end.record()
        assert torch.cuda.current_stream() == torch.cuda.default_stream()
        torch.cuda.synchronize()
        end.synchronize()
        assert start.elapsed_time(end) >= 0
        assert end.query()
        torch.cuda.current_stream().wait_stream(s)
        assert float(y[0, 0]) == 256.0
        with torch.cuda.StreamContext(s):
            assert torch.cuda.current_stream() == s
        try:
            torch.cuda.Event(external=True)   # torch >= 2.9 CUDA keyword; torch_musa lacks it
        except TypeError as e:
            assert "external" in str(e)
        else:
            raise AssertionError("no error")
        prev = torch.cuda.current_stream()
        torch.cuda.set_stream(s)
        assert torch.cuda.current_stream() == s
        torch.cuda.set_stream(prev)
    """)


def test_rng_reproducible_through_cuda_names():
    sim_stdout("""
        torch.cuda.manual_seed(1234)
        a = torch.randn(8, device="musa")
        torch.cuda.manual_seed_all(1234)
        b = torch.randn(8, device="musa")
        assert torch.equal(a.cpu(), b.cpu())
        assert torch.cuda.initial_seed() == 1234
        state = torch.cuda.get_rng_state()
        c = torch.randn(8, device="musa")
        torch.cuda.set_rng_state(state)
        d = torch.randn(8, device="musa")
        assert torch.equal(c.cpu(), d.cpu())
        states = torch.cuda.get_rng_state_all()
        torch.cuda.set_rng_state_all(states)
        assert len(torch.cuda.default_generators) == torch.cuda.device_count()
        assert torch.cuda.default_generators[0].initial_seed() == 1234
    """)


def test_device_management_and_bad_ordinal():
    sim_stdout("""
        n = torch.cuda.device_count()
        assert n >= 1
        torch.cuda.set_device(n - 1)
        assert torch.cuda.current_device() == n - 1
        torch.cuda.set_device(0)
        with torch.cuda.device(n - 1):
            assert torch.cuda.current_device() == n - 1
        assert isinstance(torch.cuda.get_device_name(), str)
        assert len(torch.cuda.get_device_capability()) == 2
        assert torch.cuda.get_device_properties().total_memory > 0
        error = getattr(torch, "AcceleratorError", RuntimeError)
        try:
            torch.cuda.set_device(99)
        except error as e:
            assert "CUDA" in str(e) and "invalid device ordinal" in str(e)
        else:
            raise AssertionError("no error")
        assert torch.cuda.current_device() == 0
    """)


def test_unsupported_and_nothing_half_patched():
    sim_stdout("""
        v = torch.musa.__version__.split("+")[0]
        try:
            torch.cuda.jiterator._create_jit_fn("x")
        except NotImplementedError as e:
            assert str(e) == ("torch.cuda.jiterator._create_jit_fn is not supported on MUSA "
                              "(torch_musa %s has no equivalent)" % v), str(e)
        else:
            raise AssertionError("no error")
        for fn in (torch.cuda.temperature, torch.cuda.caching_allocator_alloc):
            try:
                fn(1)
            except NotImplementedError as e:
                assert fn.__name__ in str(e)
    """)


def test_revert_restores_every_original_object():
    sim_stdout("""
        import sys, types
        names = ("cuda_namespace", "amp", "cudart", "backends")
        mods = ["torch.cuda", "torch.cuda.memory", "torch.cuda.streams", "torch.cuda.graphs",
                "torch.cuda.random", "torch.cuda.nvtx", "torch.cuda.nccl", "torch.cuda.amp",
                "torch.cuda.profiler", "torch.amp", "torch.amp.autocast_mode",
                "torch.backends.cuda", "torch.backends.cudnn", "torch"]
        def snap():
            out = {m: dict(vars(sys.modules[m])) for m in mods}
            out["autocast.__init__"] = torch.amp.autocast_mode.autocast.__dict__["__init__"]
            out["GradScaler.__init__"] = torch.amp.GradScaler.__dict__["__init__"]
            out["Stream.cuda_stream"] = torch.musa.Stream.__dict__.get("cuda_stream")
            return out
        torchada.revert(*names)
        original = snap()
        assert torch.cuda.device_count.__module__ == "torch.cuda"
        torchada.reapply(*names)
        assert torch.cuda.device_count is torch.musa.device_count
        torchada.revert(*names)
        now = snap()
        for key, value in original.items():
            if isinstance(value, dict):
                changed = [k for k, v in value.items() if now[key].get(k, object()) is not v]
                added = [k for k in set(now[key]) - set(value)
                         if not isinstance(now[key][k], types.ModuleType)]
                assert not changed and not added, (key, changed, added)
            else:
                assert now[key] is value, key
    """)
