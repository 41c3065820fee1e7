"""The distributed area (the torch.cuda table's nccl rows) over the manifest fake: the MCCL
version, no NCCL-style Python collectives, and messages pointing to torch.distributed."""
import pytest
import torch


def test_nccl_version_is_mccl_and_python_collectives_are_unavailable(applied):
    assert torch.cuda.nccl.version is applied.mccl.version
    assert torch.cuda.nccl.is_available([torch.ones(1)]) is False


@pytest.mark.parametrize("name", ["all_reduce", "reduce", "broadcast", "all_gather",
                                  "reduce_scatter", "unique_id", "init_rank"])
def test_nccl_collectives_raise_saying_what_to_use(applied, name):
    stub = getattr(torch.cuda.nccl, name, None)
    if stub is None:
        pytest.skip("torch.cuda.nccl.%s absent in torch %s" % (name, torch.__version__))
    with pytest.raises(NotImplementedError) as info:
        stub()
    message = str(info.value)
    assert message.startswith("torch.cuda.nccl.%s is not supported on MUSA (torch_musa 2.7.1 "
                              % name)
    assert "use torch.distributed, where backend='nccl' means mccl under torchada" in message
