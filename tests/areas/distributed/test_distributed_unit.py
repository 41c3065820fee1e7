"""The distributed area's translations, as pure functions (no process group)."""
import pytest

from torchada.areas import distributed


@pytest.mark.parametrize("given, expected", [
    ("nccl", "mccl"), ("NCCL", "mccl"), ("Nccl", "mccl"), ("gloo", "gloo"), ("mccl", "mccl"),
    ("cuda:nccl", "musa:mccl"), ("cpu:gloo,cuda:nccl", "cpu:gloo,musa:mccl"),
    ("cpu:gloo, cuda:NCCL", "cpu:gloo,musa:mccl"), (None, None), ("undefined", "undefined")])
def test_backend_strings(given, expected):
    assert distributed.musa_backend(given) == (expected, [])


def test_backend_with_a_device_torchada_cannot_map():
    assert distributed.musa_backend("cpu:gloo,xpu:nccl") == ("cpu:gloo,xpu:mccl", ["xpu"])


def test_backend_name_equals_its_cuda_spelling_and_itself():
    name = distributed.BackendName("mccl")
    assert name == "nccl" and "nccl" == name and name == "mccl" and name == "NCCL"
    assert name in ("nccl",) and name in ("mccl",) and not (name != "nccl")
    assert name != "gloo" and str(name) == "mccl" and repr(name) == "'mccl'"
    assert hash(name) == hash("mccl") and {name: 1}["mccl"] == 1
    mapped = distributed.BackendName("cpu:gloo,musa:mccl")
    assert mapped == "cpu:gloo,cuda:nccl" and mapped != "nccl"  # as on CUDA: the full string
    assert (name == 3) is False
