"""The cuda_namespace area in-process over the manifest-built fake torch.musa: identities,
CUDA-only arguments, unsupported APIs, the rule for unknown names, clean revert."""
import pytest
import torch

from tests.areas.conftest import assert_restored, snapshot
from torchada._core import area_run
from torchada._core.journal import Journal
from torchada.areas import cuda_namespace as area


def test_mapped_names_are_the_musa_objects(applied):
    m = applied
    assert torch.cuda.device_count is m.device_count
    assert torch.cuda.current_stream is m.current_stream
    assert torch.cuda.Stream is m.Stream and torch.cuda.streams.Stream is m.Stream
    assert torch.cuda.streams.Event is m.Event and torch.cuda.Event is m.Event
    assert torch.cuda.memory.memory_allocated is m.memory_allocated
    assert torch.cuda.memory_allocated is m.memory_allocated
    assert torch.cuda.memory.MemPool is m.MemPool
    assert torch.cuda.random.manual_seed is m.manual_seed
    assert torch.cuda.graphs.graph_pool_handle is m.graph_pool_handle
    assert torch.cuda.CudaError is m.MusaError
    assert torch.cuda.CUDAPluggableAllocator is m.MUSAPluggableAllocator
    assert torch.cuda.memory._record_memory_history is m.memory._record_memory_history
    assert torch.cuda.nccl.version is m.mccl.version
    assert torch.cuda.FloatTensor is m.FloatTensor
    assert torch.cuda.init is m._lazy_init
    assert torch.cuda.memory_cached is m.memory_reserved


def test_is_available_and_lazy_init_left_alone(fake_musa):
    is_available, lazy_init = torch.cuda.is_available, torch.cuda._lazy_init
    journal = Journal("cuda_namespace")
    area_run.run(area, journal)
    try:
        assert torch.cuda.is_available is is_available
        assert torch.cuda._lazy_init is lazy_init
        assert torch.cuda.is_available() is False
    finally:
        journal.revert()


@pytest.mark.parametrize("call, argument", [
    (lambda: torch.cuda.memory_snapshot(mempool_id=(0, 1)), "mempool_id"),
    (lambda: torch.cuda.set_sync_debug_mode("warn"), "debug_mode"),
])
def test_cuda_only_arguments_raise_naming_the_argument(applied, call, argument):
    with pytest.raises(NotImplementedError, match=argument) as info:
        call()
    assert "torch_musa 2.7.1" in str(info.value)


@pytest.mark.parametrize("api", [
    "jiterator._create_jit_fn", "jiterator._create_multi_output_jit_fn", "caching_allocator_alloc",
    "temperature", "host_memory_stats", "tunable.enable", "gds.GdsFile",
    "GreenContext", "get_per_process_memory_fraction", "list_gpu_processes",
    "ComplexFloatStorage", "sparse.FloatTensor",
])
def test_unsupported_apis_raise_naming_the_api(applied, api):
    owner = torch.cuda
    parts = api.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part)
    if not hasattr(owner, parts[-1]):
        pytest.skip("torch.cuda.%s absent in torch %s" % (api, torch.__version__))
    with pytest.raises(NotImplementedError) as info:
        getattr(owner, parts[-1])()
    assert str(info.value).startswith("torch.cuda.%s is not supported on MUSA (torch_musa 2.7.1"
                                      % api)


def test_jiterator_message_exact(applied):
    with pytest.raises(NotImplementedError) as info:
        torch.cuda.jiterator._create_jit_fn("template <typename T> T f(T x) { return x; }")
    assert str(info.value) == ("torch.cuda.jiterator._create_jit_fn is not supported on MUSA "
                               "(torch_musa 2.7.1 has no equivalent)")


@pytest.mark.parametrize("api", ["GreenContext", "gds.GdsFile", "ComplexFloatStorage",
                                 "sparse.FloatTensor"])
def test_unsupported_classes_stay_classes(applied, api):
    # isinstance checks in user code must keep working (False) on the stub.
    owner = torch.cuda
    *path, name = api.split(".")
    for part in path:
        owner = getattr(owner, part)
    if not hasattr(owner, name):
        pytest.skip("torch.cuda.%s absent in torch %s" % (api, torch.__version__))
    stub = getattr(owner, name)
    assert isinstance(stub, type)
    assert not isinstance(object(), stub)


def test_set_device_bad_ordinal_is_a_cuda_error(applied):
    error = getattr(torch, "AcceleratorError", RuntimeError)
    with pytest.raises(error, match="CUDA error: invalid device ordinal"):
        torch.cuda.set_device(99)
    with pytest.raises(RuntimeError):
        torch.cuda.set_device("cuda:5")
    torch.cuda.set_device(1)
    torch.cuda.set_device("cuda:0")
    torch.cuda.set_device(torch.device("cuda", 1))
    assert applied._calls == [("set_device", 1), ("set_device", 0), ("set_device", 1)]


def test_get_device_properties_defaults_to_current(applied):
    seen = []
    applied.get_device_properties = lambda device: seen.append(device)
    journal = Journal("again")
    area_run.run(area, journal)  # rebuild against the replaced function
    try:
        torch.cuda.get_device_properties()
        assert seen == [0]
    finally:
        journal.revert()


def test_reset_max_memory_allocated_warns_and_resets(applied):
    seen = []
    applied.reset_peak_memory_stats = lambda device=None: seen.append(device)
    journal = Journal("again")
    area_run.run(area, journal)
    try:
        with pytest.warns(FutureWarning):
            torch.cuda.reset_max_memory_allocated(1)
        assert seen == [1]
    finally:
        journal.revert()


def test_stream_and_event_get_cuda_handle_names(fake_musa):
    fake_musa.Stream.musa_stream = property(lambda self: 1234)
    fake_musa.Event.musa_event = property(lambda self: 99)
    journal = Journal("cuda_namespace")
    area_run.run(area, journal)
    try:
        assert torch.cuda.Stream().cuda_stream == 1234
        assert torch.cuda.Event().cuda_event == 99
    finally:
        journal.revert()
    assert not hasattr(fake_musa.Stream, "cuda_stream")


def test_missing_target_in_an_older_torch_musa_becomes_unsupported(fake_musa):
    del fake_musa.memory_stats
    journal = Journal("cuda_namespace")
    area_run.run(area, journal)
    try:
        with pytest.raises(NotImplementedError, match="has no torch.musa.memory_stats"):
            torch.cuda.memory_stats()
        assert area.coverage()["memory_stats"] == ("unsupported", "table:target-missing")
    finally:
        journal.revert()


def test_emulation_whose_base_an_older_torch_musa_lacks_becomes_unsupported(fake_musa):
    del fake_musa.get_device_properties
    journal = Journal("cuda_namespace")
    area_run.run(area, journal)  # the rest of the area still applies
    try:
        with pytest.raises(NotImplementedError,
                           match="torch.cuda.get_device_properties is not supported on MUSA "
                                 r"\(torch_musa 2.7.1: .*get_device_properties"):
            torch.cuda.get_device_properties(0)
        assert area.coverage()["get_device_properties"] == \
            ("unsupported", "table:emulation-base-missing")
        assert torch.cuda.device_count is fake_musa.device_count
    finally:
        journal.revert()


def test_names_a_newer_torch_adds_are_handled_by_the_rule(fake_musa, monkeypatch):
    monkeypatch.setattr(torch.cuda, "__all__", list(torch.cuda.__all__) +
                        ["shiny_new_api", "current_blaslt_handle"])
    monkeypatch.setattr(torch.cuda, "shiny_new_api", lambda: 1, raising=False)
    monkeypatch.setattr(torch.cuda, "current_blaslt_handle", lambda: 1, raising=False)
    journal = Journal("cuda_namespace")
    area_run.run(area, journal)
    try:
        with pytest.raises(NotImplementedError,
                           match=r"torch.cuda.shiny_new_api is not supported on MUSA"):
            torch.cuda.shiny_new_api()
        assert torch.cuda.current_blaslt_handle is fake_musa.current_blaslt_handle
        assert area.rule_handled() == ["current_blaslt_handle", "shiny_new_api"]
        notes = [n() if callable(n) else n for n in journal.notes]
        assert notes[-1].endswith("by rule: current_blaslt_handle, shiny_new_api")
    finally:
        journal.revert()


def test_failure_half_way_leaves_nothing_patched(fake_musa, monkeypatch):
    before = snapshot()

    def boom(ctx):
        raise RuntimeError("boom")

    monkeypatch.setitem(area.EMULATIONS, "set_sync_debug_mode", boom)
    journal = Journal("cuda_namespace")
    with pytest.raises(RuntimeError):
        area_run.run(area, journal)
    journal.revert()
    assert_restored(before)


# -- cudart ------------------------------------------------------------------------------
