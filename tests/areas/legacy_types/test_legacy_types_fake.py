"""The legacy_types area in-process over the manifest fake: what it writes, and its revert."""
import torch

from torchada._core import area_run
from torchada._core.journal import Journal
from torchada.areas import legacy_types


def test_writes_and_revert(fake_musa):
    before = (torch.Tensor.__dict__.get("type"), torch.set_default_tensor_type)
    journal = Journal("legacy_types")
    area_run.run(legacy_types, journal)
    try:
        assert torch.Tensor.type is not before[0] and torch.Tensor.type.__name__ == "type"
        assert torch.set_default_tensor_type.__name__ == "set_default_tensor_type"
        # a CPU tensor's name and CPU conversions are torch's own
        x = torch.ones(2)
        assert x.type() == "torch.FloatTensor"
        assert x.type("torch.DoubleTensor").dtype == torch.float64
        assert x.type(torch.float16).dtype == torch.float16
    finally:
        assert journal.revert() == []
    assert (torch.Tensor.__dict__.get("type"), torch.set_default_tensor_type) == before
