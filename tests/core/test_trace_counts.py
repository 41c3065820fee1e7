"""What the translation report counts and where it writes: a class under a CUDA name counts
its constructions (and stays the class for isinstance, subclassing and ``except``); a string
counts only as a device argument (a path holding "cuda" does not); report files are private
and named after the host."""
import json
import os
import socket
import stat

import pytest

from tests._fresh import SRC, run_argv, sim_env

from torchada._core import trace

_CLASSES = """\
import torch
s = torch.cuda.Stream()
e = torch.cuda.Event(enable_timing=True)
e2 = torch.cuda.Event()
g = torch.cuda.CUDAGraph()
class MyStream(torch.cuda.Stream):
    pass
mine = MyStream()
assert isinstance(s, torch.cuda.Stream) and isinstance(s, torch.musa.Stream)
assert isinstance(mine, torch.cuda.Stream) and isinstance(mine, MyStream)
assert not isinstance(s, MyStream)
assert issubclass(MyStream, torch.cuda.Stream) and issubclass(torch.musa.Stream, torch.cuda.Stream)
assert isinstance(e, torch.cuda.Event) and isinstance(g, torch.cuda.CUDAGraph)
try:
    raise torch.musa.OutOfMemoryError("x")
except torch.cuda.OutOfMemoryError:
    pass
"""


def _report(tmp_path, text):
    prog = tmp_path / "prog.py"
    prog.write_text(text)
    out = tmp_path / "reports"
    run_argv([prog], env=sim_env(PYTHONPATH=SRC, TORCHADA_REPORT=out))
    [name] = os.listdir(out)
    return str(prog), out / name, json.loads((out / name).read_text())


def test_classes_under_cuda_names_count_their_constructions(tmp_path):
    prog, _, data = _report(tmp_path, _CLASSES)
    calls = data["translated"]
    assert (calls["torch.cuda.Stream"]["count"], calls["torch.cuda.Stream"]["first_site"]) \
        == (1, "%s:2" % prog)  # MyStream() is the program's own class, not torch.cuda.Stream
    assert (calls["torch.cuda.Event"]["count"], calls["torch.cuda.Event"]["first_site"]) \
        == (2, "%s:3" % prog)
    assert (calls["torch.cuda.CUDAGraph"]["count"], calls["torch.cuda.CUDAGraph"]["first_site"]) \
        == (1, "%s:5" % prog)
    assert "torch.cuda.OutOfMemoryError" not in calls  # an exception class stays itself


_STRINGS = """\
import os, sys, torch
path = os.path.join(sys.argv[1], "cuda_checkpoints", "cuda.pt")
os.makedirs(os.path.dirname(path))
torch.save(torch.ones(2), path)
a = torch.load(path)
b = torch.load(path, map_location="cpu")
c = torch.load(path, map_location="cuda:0")
"""


def test_strings_count_only_as_device_arguments(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(_STRINGS)
    out = tmp_path / "reports"
    run_argv([prog, tmp_path], env=sim_env(PYTHONPATH=SRC, TORCHADA_REPORT=out))
    [name] = os.listdir(out)
    load = json.loads((out / name).read_text())["translated"]["torch.load"]
    # the path ".../cuda_checkpoints/cuda.pt" is no device: only map_location="cuda:0" counts
    assert (load["count"], load["first_site"]) == (1, "%s:7" % prog)


@pytest.mark.parametrize("value,device", [
    ("cuda", True), ("cuda:1", True), ("nccl", True), ("cpu:gloo,cuda:nccl", True),
    ("CUDA", True), ("AutogradCUDA", True),
    ("/data/cuda/x.pt", False), ("cuda_logs", False), ("my_cuda_op", False), ("cpu", False),
    ("gloo", False), ("cuda.pt", False), ("libcudart.so", False), ("CUDA_VISIBLE_DEVICES", False),
])
def test_which_strings_are_cuda_device_arguments(value, device):
    assert trace._names_cuda(value) is device


def test_report_is_private_and_named_after_the_host(tmp_path):
    _, path, data = _report(tmp_path, "import torch\ntorch.zeros(1, device='cuda')\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # it holds argv
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700  # the folder it made
    assert path.name == "torchada-report-%s-%d.json" % (socket.gethostname(), data["pid"])


def test_a_class_that_cannot_be_stood_in_for_is_installed_as_it_is():
    class Picky:
        def __init_subclass__(cls, **kwargs):
            raise RuntimeError("no subclasses")

    assert trace.counting_class("torch.cuda.Bool", bool) is bool  # bool takes no subclass
    assert trace.counting_class("torch.cuda.Picky", Picky) is Picky


def test_a_stand_in_counts_and_answers_as_the_class(monkeypatch):
    monkeypatch.setattr(trace, "_calls", {})

    class Stream:
        def __init__(self, priority=0):
            self.priority = priority

    counted = trace.counting_class("torch.cuda.Stream", Stream)
    made = counted(priority=-1)
    assert type(made) is Stream and made.priority == -1
    assert isinstance(made, counted) and issubclass(Stream, counted)
    assert counted.__name__ == "Stream" and counted.__torchada_traced__ is Stream
    program, from_torch = trace._calls["torch.cuda.Stream"][0], trace._calls["torch.cuda.Stream"][2]
    assert program + from_torch == 1  # one construction (whose, depends on where tests run)
