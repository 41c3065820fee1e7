"""The cudart area on the simulated torch_musa (with torch.cuda.profiler)."""
from tests._fresh import run_sim


def sim_stdout(code, **overrides):
    return run_sim(code, **overrides).stdout


def test_cudart_and_profiler():
    sim_stdout("""
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
