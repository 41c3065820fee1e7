"""The backends area: torch.backends.cuda / cudnn follow torch.backends.mudnn."""
import torch

from tests.areas.conftest import assert_restored, snapshot
from torchada._core import area_run
from torchada._core.journal import Journal
from torchada.areas import backends as backends_area


class _Mudnn:
    allow_tf32 = True

    @staticmethod
    def version():
        return 2800


def test_backends_follow_mudnn(monkeypatch):
    mudnn = _Mudnn()
    monkeypatch.setattr(torch.backends, "mudnn", mudnn, raising=False)
    cudnn_class_prop = type(torch.backends.cudnn).__dict__["allow_tf32"]
    before = snapshot()
    journal = Journal("backends")
    area_run.run(backends_area, journal)
    try:
        # no CUDA claim without the allocator-state binding (see below): a CPU build lacks it,
        # a CUDA build of torch has it natively (torch._C._has_cuda is the build's own answer)
        assert torch.backends.cuda.is_built() is torch._C._has_cuda
        assert torch.backends.cudnn.is_available() is True
        assert torch.backends.cudnn.version() == 2800
        torch.backends.cuda.matmul.allow_tf32 = False
        assert mudnn.allow_tf32 is False and torch.backends.cudnn.allow_tf32 is False
        torch.backends.cudnn.allow_tf32 = True
        assert mudnn.allow_tf32 is True and torch.backends.cuda.matmul.allow_tf32 is True
        with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
            assert mudnn.allow_tf32 is False
        assert mudnn.allow_tf32 is True
        # other matmul attributes keep torch's behaviour
        old = torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = old
    finally:
        journal.revert()
    assert_restored(before)
    assert type(torch.backends.cudnn).__dict__["allow_tf32"] is cudnn_class_prop
    assert torch.backends.cudnn.is_available() is torch._C._has_cudnn


def test_is_built_claims_cuda_only_with_the_pieces_behind_it(monkeypatch):
    from tests._fresh import fake_musa_env, run_python

    # The fake torch_musa has no allocator-state binding: torch's own cudagraph module must
    # import as it does with torchada off (it takes its CPU fallbacks).
    code = ("import torch, torch._inductor.cudagraph_trees as t\n"
            "print(torch.backends.cuda.is_built(), t.AllocatorState.__module__)")
    on = run_python(code, env=fake_musa_env(), check=False)
    off = run_python(code, env=fake_musa_env(TORCHADA_PLATFORM="off"), check=False)
    assert off.returncode == 0 and on.returncode == 0, on.stderr[-2000:]
    # A CPU build takes the fallbacks; a CUDA build of torch has the bindings in torch._C.
    expected = (["True", "torch._C"] if torch._C._has_cuda
                else ["False", "torch._inductor.cudagraph_trees"])
    assert off.stdout.split() == expected and on.stdout.split() == expected
    # With the pieces there, the claim is made (in this process: the area, then the names).
    journal = Journal("backends")
    area_run.run(backends_area, journal)
    try:
        for name in backends_area.BUILT_IMPLIES:
            monkeypatch.setattr(torch._C, name, getattr(torch._C, name, object()), raising=False)
        assert torch.backends.cuda.is_built() is True
    finally:
        journal.revert()
