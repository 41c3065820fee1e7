"""The cudart area over the manifest fake: CUDA runtime names on torch.musa.musart()."""
import types

import pytest
import torch

from tests.areas.conftest import assert_restored, snapshot
from torchada._core import area_run
from torchada._core.journal import Journal
from torchada.areas import cudart as cudart_area


class _Err(int):
    pass


def _fake_musart():
    error = types.SimpleNamespace(success=_Err(0))
    return types.SimpleNamespace(musaError=error, musaMemGetInfo=lambda d: (1, 2),
                                 musaHostRegister=lambda p, s, f: error.success,
                                 musaGetErrorString=lambda e: "no error")


def test_cudart_answers_with_cuda_names(fake_musa, monkeypatch):
    monkeypatch.setattr("torchada._core.warn_once._SEEN", set())
    rt = _fake_musart()
    fake_musa.musart = lambda: rt
    fake_musa.check_error = lambda res: None if res == 0 else (_ for _ in ()).throw(
        RuntimeError(res))
    before = snapshot()
    journal = Journal("cudart")
    area_run.run(cudart_area, journal)
    try:
        r = torch.cuda.cudart()
        assert r is torch.cuda.cudart()
        assert r.cudaMemGetInfo is rt.musaMemGetInfo
        assert r.cudaHostRegister is rt.musaHostRegister
        assert r.cudaError is rt.musaError
        # no MUSA runtime library with musaProfilerStart here: one warning, nothing done
        with pytest.warns(RuntimeWarning, match="has no musaProfilerStart.*nothing was started"):
            assert r.cudaProfilerStart() == rt.musaError.success
        assert r.cudaProfilerStop() == rt.musaError.success
        torch.cuda.profiler.start()
        torch.cuda.profiler.stop()
        with torch.cuda.profiler.profile():
            pass
        assert not hasattr(r, "cudaGraphicsMapResources")
        with pytest.raises(NotImplementedError, match=r"cudart\(\).cudaDeviceReset is not "
                           r"supported on MUSA \(torch_musa 2.7.1 musart\(\) has no "
                           r"musaDeviceReset\)"):
            r.cudaDeviceReset()
    finally:
        journal.revert()
    assert_restored(before)


# -- backends ----------------------------------------------------------------------------
