"""The tolerance rule (torchada/areas/_verify/compare.py) on CPU tensors."""
import torch

from torchada.areas._verify import compare


def test_integers_and_bools_are_exact():
    a = torch.tensor([1, 2, 3])
    assert compare.difference(torch, a, a.clone()) is None
    diff = compare.difference(torch, torch.tensor([1, 2, 5]), a)
    assert diff["max_abs_error"] == 2 and diff["largest_at"] == [2] and diff["mismatched"] == 1
    assert compare.difference(torch, torch.tensor([True, False]), torch.tensor([True, True]))


def test_floats_within_their_dtype_tolerance():
    want = torch.linspace(1, 2, 6).reshape(2, 3)
    assert compare.difference(torch, want * (1 + 5e-5), want) is None        # float32 rtol 1e-4
    diff = compare.difference(torch, want * (1 + 1e-3), want)
    assert diff["largest_at"] == [1, 2] and diff["mismatched"] == 6
    half = want.half()
    assert compare.difference(torch, half * 1.004, half) is None              # float16 rtol 1e-2
    d = torch.tensor([1.0, 2.0], dtype=torch.float64)
    assert compare.difference(torch, d + 1e-6, d)                            # float64 is tight


def test_nan_inf_shape_and_dtype():
    a = torch.tensor([float("nan"), float("inf"), 1.0])
    assert compare.difference(torch, a.clone(), a) is None
    assert compare.difference(torch, torch.tensor([0.0, float("inf"), 1.0]), a)
    assert compare.difference(torch, torch.tensor([float("nan"), -float("inf"), 1.0]), a)
    assert compare.difference(torch, a[:2], a)["what"] == "shape or dtype"
    assert compare.difference(torch, a.double(), a)["what"] == "shape or dtype"
