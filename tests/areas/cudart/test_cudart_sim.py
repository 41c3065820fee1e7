"""The cudart area on the simulated torch_musa (with torch.cuda.profiler)."""
from tests._fresh import run_sim


def test_cudart_and_profiler():
    proc = run_sim("""
        rt = torch.cuda.cudart()
        assert rt is torch.cuda.cudart()
        free, total = rt.cudaMemGetInfo(0)
        assert 0 <= free <= total
        torch.cuda.check_error(rt.cudaProfilerStart())
        torch.cuda.check_error(rt.cudaProfilerStop())
        torch.cuda.profiler.start(); torch.cuda.profiler.stop()
        with torch.cuda.profiler.profile():
            pass
        assert not hasattr(rt, "cudaNoSuchThing")
    """)
    # the simulator ships no MUSA runtime library: said once, never faked silently
    assert proc.stderr.count("nothing was started or stopped") == 1, proc.stderr
