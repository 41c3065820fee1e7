"""The translation report (TORCHADA_TRACE / TORCHADA_REPORT / the `torchada run` summary):
counts and first call sites checked against the program's own line numbers; nothing wrapped
when off (the installed objects are the ones the areas built)."""
import json
import os
import socket
import types

from tests._fresh import SRC, clean_env, last_json, run_argv, run_sim, sim_env

from torchada._core import journal as journal_mod
from torchada._core import trace

# Line numbers below are the program's own (1-based): what the report must name.
PROG = """\
import torch
x = torch.zeros(3, device="cuda")
y = torch.ones(2).cuda()
for _ in range(3):
    torch.cuda.synchronize()
z = torch.ones(2, device="cpu")
d = torch.device("cuda:0")
print("available", torch.cuda.is_available())
try:
    torch.cuda.jiterator._create_jit_fn("x")
except NotImplementedError:
    pass
"""


# The host part of report names (this test host's name has only file-name-safe characters).
_HOST = socket.gethostname()


def _prog(tmp_path, text=PROG):
    path = tmp_path / "prog.py"
    path.write_text(text)
    return str(path)


def _mine(entry):
    """(calls the program made, its first site) of one report entry."""
    return entry["count"], entry["first_site"]


def _run_prog(prog, **env):
    return run_argv([prog], env=sim_env(PYTHONPATH=SRC, **env), check=True)


def test_report_counts_translated_calls_and_first_sites(tmp_path):
    prog = _prog(tmp_path)
    out = tmp_path / "reports"
    _run_prog(prog, TORCHADA_REPORT=out)  # the report alone implies the trace
    files = os.listdir(out)
    assert len(files) == 1 and files[0].startswith("torchada-report-"), files
    data = json.loads((out / files[0]).read_text())
    calls = data["translated"]
    assert _mine(calls["torch.zeros"]) == (1, "%s:2" % prog)
    assert _mine(calls["torch.Tensor.cuda"]) == (1, "%s:3" % prog)
    assert _mine(calls["torch.cuda.synchronize"]) == (3, "%s:5" % prog)
    assert _mine(calls["torch.device"]) == (1, "%s:7" % prog)
    # the program's own call only; calls torch made itself are counted apart
    assert _mine(calls["torch.cuda.is_available"]) == (1, "%s:8" % prog)
    # torch.ones(2) and device="cpu" name no CUDA device: not translations
    assert "torch.ones" not in calls
    assert data["cuda_unavailable_answers"] == {"count": 1, "first_site": "%s:8" % prog}
    [(api, hit)] = data["unsupported"].items()
    assert api == "torch.cuda.jiterator._create_jit_fn"
    assert hit["count"] == 1 and hit["first_site"] == "%s:10" % prog
    assert "not supported on MUSA" in hit["message"]
    assert data["translated_calls"] == sum(v["count"] for v in calls.values())
    assert data["platform"] == "musa" and data["rank"] is None and data["pid"] > 0


def test_report_is_rank_aware(tmp_path):
    prog = _prog(tmp_path, "import torch\ntorch.zeros(1, device='cuda:1')\n")
    out = tmp_path / "reports"
    _run_prog(prog, TORCHADA_REPORT=out, RANK=3, LOCAL_RANK=1, WORLD_SIZE=4)
    [name] = os.listdir(out)
    assert name.startswith("torchada-report-%s-rank3-local1-" % _HOST) and name.endswith(".json")
    data = json.loads((out / name).read_text())
    assert (data["rank"], data["local_rank"], data["world_size"]) == ("3", "1", "4")
    assert _mine(data["translated"]["torch.zeros"]) == (1, "%s:2" % prog)


def test_unwritable_report_dir_says_so_and_keeps_the_exit_status(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    prog = _prog(tmp_path, "import torch\ntorch.zeros(1, device='cuda')\nraise SystemExit(5)\n")
    proc = run_argv([prog], env=sim_env(PYTHONPATH=SRC, TORCHADA_REPORT=blocker / "sub"),
                    check=False)
    assert proc.returncode == 5
    assert "translation report was not written to %s" % (blocker / "sub") in proc.stderr
    assert "TORCHADA_REPORT" in proc.stderr


_IDENTITY = """
import json, torch
t = torch.Tensor.cuda
inner = getattr(t, "__torchada_traced__", t)
print(json.dumps({
    "traced": hasattr(t, "__torchada_traced__"),
    "cuda_code": [inner.__code__.co_filename, inner.__code__.co_firstlineno],
    "sync_is_musa": torch.cuda.synchronize is torch.musa.synchronize,
    "sync_inner_is_musa": getattr(torch.cuda.synchronize, "__torchada_traced__", None)
                          is torch.musa.synchronize,
    "zeros_wraps_native": torch.zeros.__wrapped__ is torch._C._VariableFunctions.zeros,
    "zeros_traced": hasattr(torch.zeros, "__torchada_traced__"),
}))
"""


def test_tracing_off_installs_the_areas_own_objects():
    off = last_json(run_sim(_IDENTITY))
    on = last_json(run_sim(_IDENTITY, TORCHADA_TRACE="1"))
    # Off: torch.cuda.synchronize is torch_musa's function itself, torch.zeros the device
    # wrapper directly around torch's builtin, Tensor.cuda the devices area's function.
    assert off["sync_is_musa"] and off["zeros_wraps_native"]
    assert not off["traced"] and not off["zeros_traced"]
    # On: the same objects, each behind one counting wrapper.
    assert on["traced"] and on["zeros_traced"] and on["sync_inner_is_musa"]
    assert not on["sync_is_musa"]
    assert on["cuda_code"] == off["cuda_code"]
    assert not off["cuda_code"][0].endswith("trace.py")


def test_malformed_trace_value_warns_once(tmp_path):
    proc = run_sim("print('ok')", TORCHADA_TRACE="maybe")
    assert proc.stderr.count("TORCHADA_TRACE='maybe' is not valid") == 1, proc.stderr


def test_journal_installs_the_value_itself_when_off(monkeypatch):
    monkeypatch.setattr(trace, "ENABLED", False)
    owner = types.ModuleType("torch.cuda")
    fn = lambda: 1  # noqa: E731
    journal_mod.Journal("x").setattr(owner, "f", fn)
    assert owner.f is fn


_LINE_F = next(i for i, line in enumerate(open(__file__), 1)
               if line.rstrip().endswith("# _LINE_F") and "next(" not in line)


def test_journal_wraps_callables_when_on_and_keeps_method_binding(monkeypatch):
    monkeypatch.setattr(trace, "ENABLED", True)
    monkeypatch.setattr(trace, "_calls", {})
    owner = types.ModuleType("torch.cuda")

    class Box:
        pass

    j = journal_mod.Journal("x")
    j.setattr(owner, "f", lambda a: a + 1)
    j.setattr(Box, "method", lambda self, d: (self, d))  # binds self, like the original
    j.setattr(Box, "builtin", len)  # a C function on a class never binds self
    j.setattr(owner, "limit", 7)  # not callable: installed as is
    box = Box()
    assert owner.f(1) == 2 and owner.limit == 7  # _LINE_F
    assert box.method("cuda:1") == (box, "cuda:1")
    assert box.method("cpu") == (box, "cpu")
    assert box.builtin([1, 2]) == 2
    assert trace._calls["torch.cuda.f"][0] == 1
    # a call made from torch's (here: torchada's) own code is counted apart, with no site
    exec(compile("owner.f(2)", trace.__file__, "exec"), {"owner": owner})
    assert trace._calls["torch.cuda.f"][:3] == [1, "%s:%d" % (__file__, _LINE_F), 1]
    # Box.method counted only for the call naming a CUDA device
    [(api, entry)] = [(k, v) for k, v in trace._calls.items() if k.endswith("Box.method")]
    assert entry[0] == 1
    j.revert()
    assert not hasattr(owner, "f") and not hasattr(Box, "method")


def test_run_summary_lists_translations_and_the_is_available_answer(tmp_path):
    prog = _prog(tmp_path)
    run = ["-m", "torchada", "run", "--simulate"]
    proc = run_argv(run + ["--cuda-unavailable", prog], env=clean_env(PYTHONPATH=SRC))
    err = proc.stderr
    assert "torchada summary" in err
    assert "torch.zeros" in err and "%s:2" % prog in err
    assert "unsupported: 1 paths hit" in err and "%s:10" % prog in err
    note = [line for line in err.splitlines() if "is_available() and got False" in line]
    assert len(note) == 1 and "%s:8" % prog in note[0]
    assert "TORCHADA_FORCE_CUDA_AVAILABLE=1" in note[0]
    # the default run answers True: no such line; --no-summary: no summary at all
    proc = run_argv(run + [prog], env=clean_env(PYTHONPATH=SRC))
    assert "available True" in proc.stdout and "got False" not in proc.stderr
    assert "translated:" in proc.stderr
    proc = run_argv(run + ["--no-summary", prog], env=clean_env(PYTHONPATH=SRC))
    assert "torchada summary" not in proc.stderr


_SCRIPTED = """
import torch
@torch.jit.script
def f(n: int):
    return torch.zeros(n, device="cuda") + 1
def g(x):
    return torch.zeros(4, device="cuda") + x.sum()
cg = torch.compile(g, backend="aot_eager", fullgraph=True)
with torch.device("cuda"):
    d = torch.zeros(2).device
print(f(3).device, f(3).tolist(), cg(torch.ones(2, device="cuda")).tolist(), d)
"""


def test_script_compile_and_device_context_work_the_same_while_tracing(tmp_path):
    prog = _prog(tmp_path, _SCRIPTED)  # TorchScript reads the source: a file, not -c
    off = _run_prog(prog).stdout.strip().splitlines()[-1]
    on = _run_prog(prog, TORCHADA_TRACE="1").stdout.strip().splitlines()[-1]
    assert off == "musa:0 [1.0, 1.0, 1.0] [2.0, 2.0, 2.0, 2.0] musa:0"
    assert on == off


_DIST = """\
import torch, torch.distributed as dist
dist.init_process_group(backend="nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank)
x = torch.ones(2, device="cuda") * (rank + 1)
dist.all_reduce(x)
assert x.tolist() == [3.0, 3.0], x
dist.destroy_process_group()
"""


def test_torchrun_writes_one_report_per_rank(tmp_path):
    from tests._fresh import free_port

    prog = _prog(tmp_path, _DIST)
    out = tmp_path / "reports"
    run_argv(["-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port",
              free_port(), prog], env=sim_env(PYTHONPATH=SRC, TORCHADA_REPORT=out),
             timeout=240)
    prefix = "torchada-report-%s-rank" % _HOST
    ranked = sorted(n for n in os.listdir(out) if n.startswith(prefix))
    assert [n[len(prefix) - 4:].split("-")[:2] for n in ranked] == [["rank0", "local0"],
                                                                    ["rank1", "local1"]]
    for rank, name in enumerate(ranked):
        data = json.loads((out / name).read_text())
        assert (data["rank"], data["local_rank"], data["world_size"]) == (str(rank), str(rank), "2")
        calls = data["translated"]
        # backend="nccl" is a translated argument; the first site is the program's line 2
        assert _mine(calls["torch.distributed.init_process_group"]) == (1, "%s:2" % prog)
        assert _mine(calls["torch.cuda.set_device"]) == (1, "%s:4" % prog)
        assert _mine(calls["torch.ones"]) == (1, "%s:5" % prog)


def test_bundled_example_counts_as_the_program():
    """`torchada run --example` runs a file shipped inside torchada: still the program."""
    example = SRC / "torchada" / "examples" / "train_cuda.py"
    # the first Tensor.cuda() the example calls itself (Net().cuda() before it is
    # Module.cuda, whose Tensor.cuda calls torch makes)
    first_cuda = next(i for i, line in enumerate(example.read_text().splitlines(), 1)
                      if "labels[idx].cuda()" in line)
    proc = run_argv(["-m", "torchada", "run", "--simulate", "--example", "train_cuda",
                     "--steps", "2"], env=clean_env(PYTHONPATH=SRC))
    [line] = [l for l in proc.stderr.splitlines() if l.strip().startswith("torch.Tensor.cuda")]
    assert line.endswith("first at %s:%d" % (example, first_cuda)), line


def test_calls_torch_makes_name_the_program_line_behind_them(tmp_path):
    prog = _prog(tmp_path, "import torch\nm = torch.nn.Linear(2, 2)\nm.cuda()\n")
    out = tmp_path / "reports"
    _run_prog(prog, TORCHADA_REPORT=out)
    [name] = os.listdir(out)
    entry = json.loads((out / name).read_text())["translated"]["torch.Tensor.cuda"]
    # Module.cuda is torch's: it calls Tensor.cuda once per parameter (weight, bias)
    assert (entry["count"], entry["first_site"]) == (0, None)
    assert entry["from_torch"] == 2 and entry["from_torch_first_site"] == "%s:3" % prog


def test_a_kernel_registered_for_the_cuda_key_is_counted(tmp_path):
    prog = _prog(tmp_path, """\
import torch
lib = torch.library.Library("tracedemo", "DEF")
lib.define("twice(Tensor x) -> Tensor")
lib.impl("twice", lambda x: x * 2, "CUDA")
assert torch.ops.tracedemo.twice(torch.ones(2, device="cuda")).tolist() == [2.0, 2.0]
""")
    out = tmp_path / "reports"
    _run_prog(prog, TORCHADA_REPORT=out)
    [name] = os.listdir(out)
    calls = json.loads((out / name).read_text())["translated"]
    assert _mine(calls["torch.library.Library.impl"]) == (1, "%s:4" % prog)
    assert "torch.library.Library.define" not in calls  # names no CUDA key
