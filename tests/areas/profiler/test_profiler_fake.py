"""The profiler area: torch.cuda.nvtx ranges are torch.profiler record_function ranges."""
import torch


def test_nvtx_ranges_are_record_function_ranges(applied):
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        assert torch.cuda.nvtx.range_push("outer") == 0
        torch.cuda.nvtx.range_push("inner")
        assert torch.cuda.nvtx.range_pop() == 1
        torch.cuda.nvtx.range_pop()
        rid = torch.cuda.nvtx.range_start("started")
        torch.cuda.nvtx.range_end(rid)
        with torch.cuda.nvtx.range("ctx {}", 1):
            torch.ones(2) + 1
        torch.cuda.nvtx.mark("here")
    names = {e.name for e in prof.events()}
    assert {"outer", "inner", "started", "ctx 1", "here"} <= names
