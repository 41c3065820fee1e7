"""torch.device / torch.Generator keep their C types; revert is clean; bad input errors read
as on CUDA; TorchScript constants; no env var, file or device touched at import.

Runs on the simulator; the file-system check also runs on the name-only fake torch_musa,
which writes nothing itself (the simulator caches its compiled backend).
"""
import os
import pickle
import textwrap

from tests._fresh import clean_env, fake_musa_env, last_json, run_argv, run_python, sim_env
from torchada.areas.manifest import AREAS

OTHERS = ",".join(a.name for a in AREAS if a.name != "devices")  # devices alone


def musa_env(**kw):
    return sim_env(**kw)


def test_device_types_stay_whole(tmp_path):
    code = textwrap.dedent("""
        import json, pickle, torch
        import torchada
        d = torch.device("cuda")
        note = next(a.note for a in torchada.status().areas if a.name == "devices")
        out = {
          "mode": note.split("torch.device: ", 1)[1].split("; calls: ")[0],
          "type_is": type(d) is torch.device, "isinstance": isinstance(d, torch.device),
          "str": [str(torch.device(s)) for s in ("cuda", "cuda:1", "cpu", "meta")],
          "pair": str(torch.device("cuda", 1)), "kw": str(torch.device(type="cuda", index=1)),
          "kw_noindex": str(torch.device(type="cuda")), "int": str(torch.device(0)),
          "from_dev": str(torch.device(torch.device("cuda:1"))),
          "eq": torch.device("cuda:0") == torch.device("musa:0"),
          "gen": type(torch.Generator()) is torch.Generator,
          "gen_cpu": str(torch.Generator(device="cpu").device),
          "immutable": None,
          "new_is_static": type(torch.device.__dict__["__new__"]).__name__,
        }
        try:
            torch.device.foo = 1
        except TypeError as exc:
            out["immutable"] = str(exc)
        open(%r, "wb").write(pickle.dumps(torch.device("cuda:1")))
        print(json.dumps(out))
    """ % str(tmp_path / "dev.pkl"))
    out = last_json(run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS=OTHERS)))
    assert out["mode"] == "tp_new"
    assert out["type_is"] and out["isinstance"] and out["gen"]
    assert out["str"] == ["musa", "musa:1", "cpu", "meta"]
    assert out["pair"] == out["kw"] == "musa:1" and out["kw_noindex"] == "musa"
    assert out["int"] == "musa:0" and out["from_dev"] == "musa:1" and out["eq"]
    assert out["gen_cpu"] == "cpu" and "immutable type" in out["immutable"]
    data = (tmp_path / "dev.pkl").read_bytes()
    assert b"torchada" not in data and b"torch\x94\x8c\x06device" in data
    # loads in a process without torchada (only the backend name registered, as torch_musa does)
    plain = run_python("import pickle, torch; torch.utils.rename_privateuse1_backend('musa');"
                "d = pickle.load(open(%r, 'rb')); import sys;"
                "assert 'torchada.areas' not in sys.modules;"
                "print(type(d) is torch.device, d)" % str(tmp_path / "dev.pkl"),
                env=clean_env(TORCHADA_PLATFORM="off"))
    assert plain.stdout.split() == ["True", "musa:1"]


def test_bad_input_reads_like_cuda():
    code = textwrap.dedent("""
        import json, torch
        out = {}
        for label, call in [
            ("neg", lambda: torch.device("cuda", -1)),
            ("malformed", lambda: torch.device("cuda:x")),
            ("lead0", lambda: torch.device("cuda:01")),
            ("twice", lambda: torch.device("cuda:1", 2)),
            ("kwneg", lambda: torch.device(type="cuda", index=-1)),
            ("factory_bad", lambda: torch.zeros(2, device="cuda:x")),
            ("to_bad", lambda: torch.ones(1).to("cuda:zz")),
            ("unhashable", lambda: torch.device(["cuda"])),
        ]:
            try:
                call()
                out[label] = "no error"
            except Exception as exc:
                out[label] = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0])
        out["ok99"] = str(torch.device("cuda:99"))
        print(json.dumps(out))
    """)
    out = last_json(run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS=OTHERS)))
    assert out["neg"] == "RuntimeError: Device index must not be negative"
    assert out["kwneg"] == "RuntimeError: Device index must not be negative"
    assert out["malformed"] == "RuntimeError: Invalid device string: 'cuda:x'"
    assert "cuda" in out["lead0"] and "musa" not in out["lead0"]
    assert out["twice"].endswith("cuda:1")
    assert out["factory_bad"] == "RuntimeError: Invalid device string: 'cuda:x'"
    assert out["to_bad"] == "RuntimeError: Invalid device string: 'cuda:zz'"
    assert out["unhashable"].startswith("TypeError")
    assert out["ok99"] == "musa:99"  # like CUDA: constructing a device does not check it


def test_revert_restores_everything():
    code = textwrap.dedent("""
        import json, torch, torchada
        before = {n: getattr(torch, n) for n in ("zeros", "ones_like", "tensor", "load")}
        tensor_to, mod_to = torch.Tensor.to, torch.nn.Module.to
        dev_new = torch.device.__dict__["__new__"]
        torchada.revert("devices")
        import torch.serialization as s
        out = {
          "cuda_type": torch.device("cuda").type,
          "funcs": all(getattr(torch, n) is before[n].__wrapped__ for n in ("zeros", "ones_like", "tensor")),
          "wrapped_gone": not any(hasattr(getattr(torch, n), "__wrapped__") for n in ("zeros", "ones_like", "tensor")),
          "is_cuda_c": "is_cuda" not in torch.Tensor.__dict__,
          "new_builtin": type(torch.device.__dict__["__new__"]).__name__,
          "gen_builtin": type(torch.Generator.__dict__["__new__"]).__name__,
          "immutable": torch.device.__flags__ & (1 << 8) != 0,
          "tensor_cuda": torch.Tensor.cuda is torch._C.TensorBase.cuda,
          "jit": getattr(torch.jit.frontend.parse_def, "__module__", "") == "torch._sources",
          "registry": not any(getattr(e[2], "__name__", "") == "_cuda_as_musa_deserialize"
                              for e in s._package_registry),
          "cpu": str(torch.device("cpu")), "gen": str(torch.Generator().device),
        }
        torchada.reapply("devices")
        out["again"] = str(torch.device("cuda:1"))
        print(json.dumps(out))
    """)
    out = last_json(run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS=OTHERS)))
    assert out.pop("cuda_type") == "cuda"
    assert out.pop("new_builtin") == out.pop("gen_builtin") == "builtin_function_or_method"
    assert out.pop("cpu") == "cpu" and out.pop("gen") == "cpu"
    assert out.pop("again") == "musa:1"
    assert all(out.values()), out


def test_torchscript_builds_musa_device(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent("""
        import torch

        @torch.jit.script
        def f(n: int) -> torch.device:
            if n == 0:
                return torch.device("cuda")
            return torch.device("cuda:1")

        print(f(0), f(1), "cuda_kept" if "musa" in str(f.graph) else "")
    """))
    out = run_argv([prog], env=musa_env(TORCHADA_DISABLE_AREAS=OTHERS)).stdout.split()
    assert out == ["musa", "musa:1", "cuda_kept"]


def test_torchscript_rewrites_device_positions_only(tmp_path):
    """Scripted and eager code agree: only Device-typed "cuda" literals become musa."""
    prog = tmp_path / "agree.py"
    prog.write_text(textwrap.dedent("""
        import json, torch

        def f(x: torch.Tensor, n: int):
            d = torch.device("cuda") if n == 0 else torch.device("cuda:1")
            y = torch.zeros(2, device="cuda:1")
            z = x.to("cuda")
            return str(d), str(y.device), str(z.device), x.device.type == "cuda", "cuda"

        x = torch.ones(1, device="cuda")
        scripted = torch.jit.script(f)
        print(json.dumps({"eager": [f(x, n) for n in (0, 1)],
                          "scripted": [scripted(x, n) for n in (0, 1)]}))
    """))
    out = last_json(run_argv([prog], env=musa_env(TORCHADA_DISABLE_AREAS=OTHERS)))
    assert out["scripted"] == out["eager"] == [
        ["musa", "musa:1", "musa:0", False, "cuda"], ["musa:1", "musa:1", "musa:0", False, "cuda"]]


def test_is_available_default_and_forced():
    code = "import torch; print(torch.cuda.is_available())"
    only = OTHERS
    assert run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS=only)).stdout.strip() == "False"
    assert run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS=only,
                              TORCHADA_FORCE_CUDA_AVAILABLE="1")).stdout.strip() == "True"
    proc = run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS=only, TORCHADA_FORCE_CUDA_AVAILABLE="yes please"))
    assert proc.stdout.strip() == "False"
    assert proc.stderr.count("TORCHADA_FORCE_CUDA_AVAILABLE") == 1


def test_nothing_written_or_set_at_import(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    code = textwrap.dedent("""
        import os, json
        before = dict(os.environ)
        import torch, torch.cuda, torch.cuda.amp, torch.cuda.memory, torch.cuda.graphs
        import torch.cuda.random, torch.cuda.streams, torch.cuda.nvtx, torch.backends.cuda
        added = sorted(set(os.environ) - set(before))
        init = getattr(torch.musa, "is_initialized", lambda: False)()
        import torchada, pathlib
        applied = [a.name for a in torchada.status().areas if a.state == "applied"]
        home = pathlib.Path(os.environ["HOME"])
        written = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
        print(json.dumps({"added": added, "init": init, "applied": applied, "written": written}))
    """)
    out = last_json(run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS="cpp_extension")))
    # whatever torch_musa itself sets (the simulator sets TORCHINDUCTOR_CACHE_DIR) is its own
    baseline = last_json(run_python(code, env=musa_env(TORCHADA_DISABLE_AREAS="*")))
    assert out["added"] == baseline["added"] and out["init"] is False
    fake = fake_musa_env(TORCHADA_PLATFORM="musa", HOME=home, XDG_CACHE_HOME=home / "cache")
    out = last_json(run_python(code, env=fake))
    assert {"devices", "cuda_namespace", "profiler"} <= set(out["applied"]), out
    assert out["init"] is False and out["written"] == []      # nothing while it runs
    # Nor at exit: the device prefilter ships compiled (issue 16), nothing is built then.
    after = [p.relative_to(home) for p in home.rglob("*") if p.is_file()]
    assert after == [], after
