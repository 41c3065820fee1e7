"""MUSA's Triton 3.6 fixes without MUSA's Triton: the gate (Triton 3.6 with a musa backend
only), the switches, the alias numbering against a stand-in of the fork's launcher helper,
and the deserialize fix run on this machine's real Triton frontend, whose ASTFunction has
the same (ret_types, arg_types, attrs) shape and the same defect."""
import inspect
import json
import os
import textwrap

import pytest

from tests._fresh import clean_env, last_json, run_sim, sim_env
from torchada.areas import triton_musa36 as area

# A stand-in for MUSA's Triton 3.6 where the area reaches: the version, the backend registry,
# the launcher's alias helper (numbering Python parameters, as the fork's does: for
# (None, p, p) it reports "1:2"), KernelParam as upstream Triton 3.6/3.9 define it
# (triton/runtime/jit.py), MUSAOptions.allowed_dot_input_precisions, and an ASTFunction of
# the (ret_types, arg_types, attrs) shape without the frontend behind it.
FAKE = {
    "triton/__init__.py": """
        __version__ = "%(version)s"
        from . import backends, language, runtime, compiler  # noqa: F401
        """,
    # torch probes triton.language.dtype when triton imports (torch/utils/_triton.py)
    "triton/language/__init__.py": "class dtype:\n    pass\n",
    "triton/backends/__init__.py": """
        backends = %(backends)r
        """,
    "triton/backends/musa/__init__.py": "",
    "triton/backends/musa/compiler.py": """
        class MUSAOptions:
            allowed_dot_input_precisions = ("ieee", "tf32")

        class MUSABackend:
            def hash(self):
                return "musa-3.6"
        """,
    "triton/runtime/__init__.py": "from . import jit  # noqa: F401\n",
    "triton/runtime/jit.py": """
        import inspect

        class KernelParam:
            def __init__(self, num, param, do_not_specialize, do_not_specialize_on_alignment):
                self.num, self._param = num, param
                self.do_not_specialize = do_not_specialize
                self.do_not_specialize_on_alignment = do_not_specialize_on_alignment

            @property
            def annotation(self):
                a = self._param.annotation
                return "" if a is inspect.Parameter.empty else str(a)

            @property
            def annotation_type(self):
                return self.annotation if self.annotation[:1] in ("*", "i", "f") else ""

            @property
            def is_constexpr(self):
                return "constexpr" in self.annotation

        def _make_pointer_alias_spec(params, bound_vals):
            seen = {}
            for param, value in zip(params, bound_vals):
                ptr = getattr(value, "data_ptr", None)
                if callable(ptr) and ptr():
                    seen.setdefault(ptr(), []).append(param.num)
            return ",".join("%%d:%%d" %% (a, b) for idx in seen.values() if len(idx) > 1
                            for a, b in zip(idx, idx[1:]))
        """,
    "triton/compiler/__init__.py": "from . import code_generator  # noqa: F401\n",
    "triton/compiler/code_generator.py": """
        class ASTFunction:
            def __init__(self, ret_types, arg_types, attrs):
                self.ret_types, self.arg_types, self.attrs = ret_types, arg_types, attrs

            def deserialize(self, fn):
                return "vendor"
        """,
}


def fake_triton(root, version="3.6.0", backends=("musa", "nvidia")):
    for rel, text in FAKE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text % {"version": version,
                                                "backends": dict.fromkeys(backends)}
                                        if "%(" in text else textwrap.dedent(text).replace("%%", "%")))
    meta = root / ("triton-%s.dist-info" % version)
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: triton\nVersion: %s\n" % version)
    return str(root)


PROGRAM = """
import json, os, inspect
import triton, triton.runtime.jit as jit
from triton.compiler.code_generator import ASTFunction

class T:
    dtype = "fp32"
    def __init__(self, ptr): self.ptr = ptr
    def data_ptr(self): return self.ptr

def kernel(maybe, x, n, out):
    pass

params = [jit.KernelParam(i, p, False, False)
          for i, p in enumerate(inspect.signature(kernel).parameters.values())]
shared = T(4096)
area = [a for a in torchada.status().areas if a.name == "triton_musa36"][0]
print(json.dumps({"state": area.state, "notes": (area.note or "").splitlines(),
                  "pairs": jit._make_pointer_alias_spec(params, [None, shared, 7, shared]),
                  "deserialize": ASTFunction.deserialize(None, None) == "vendor",
                  "f32": os.environ.get("TRITON_F32_DEFAULT"),
                  "hash": __import__("triton.backends.musa.compiler").backends.musa.compiler
                  .MUSABackend().hash()}))
"""


def run(tmp_path, version="3.6.0", backends=("musa", "nvidia"), **env):
    path = fake_triton(tmp_path, version, backends)
    return last_json(run_sim(PROGRAM, env=sim_env(PYTHONPATH=path, **env)))


def test_musa_triton_36_gets_the_alias_numbering_and_f32_default(tmp_path):
    out = run(tmp_path, TORCHADA_TRITON_F32_DEFAULT="TF32")
    assert out["state"] == "applied", out
    # IR arguments: x (0), n (1; 7 is not folded), out (2); the fork's helper says "1:3"
    assert out["pairs"] == "0:2"
    assert out["f32"] == "tf32"
    notes = " | ".join(out["notes"])
    assert "inplace_alias: alias pairs: numbered by IR argument" in notes
    # one fix failing (this stand-in has no frontend to import) leaves the others applied
    assert "deserialize: not applied (ModuleNotFoundError" in notes and out["deserialize"]


def test_fast_exp_is_opt_in_and_a_failed_lowering_salts_nothing(tmp_path):
    out = run(tmp_path / "off")
    assert "fast_exp" not in " | ".join(out["notes"]) and out["hash"] == "musa-3.6"
    # the stand-in has no IR builder (triton._C): the unit fails alone, before the salt
    out = run(tmp_path / "on", TORCHADA_TRITON_FAST_EXP="1")
    assert out["state"] == "applied" and out["pairs"] == "0:2"
    assert "fast_exp: not applied (ModuleNotFoundError" in " | ".join(out["notes"]), out
    assert out["hash"] == "musa-3.6"


@pytest.mark.parametrize("mode, pairs", [("off", ""), ("vendor", "1:3")])
def test_inplace_alias_switch(tmp_path, mode, pairs):
    out = run(tmp_path, TORCHADA_TRITON_INPLACE_ALIAS=mode)
    assert out["pairs"] == pairs


def test_f32_default_refused_where_the_backend_lacks_it_and_the_users_value_kept(tmp_path):
    out = run(tmp_path / "a", TORCHADA_TRITON_F32_DEFAULT="tf32x3")
    assert out["f32"] is None
    assert any("TORCHADA_TRITON_F32_DEFAULT=tf32x3 ignored (not one of ieee, tf32)" in n
               for n in out["notes"])
    out = run(tmp_path / "b", TORCHADA_TRITON_F32_DEFAULT="tf32", TRITON_F32_DEFAULT="ieee")
    assert out["f32"] == "ieee"


@pytest.mark.parametrize("version, backends, state", [
    ("3.5.1", ("musa",), "skipped"), ("3.7.0", ("musa",), "skipped"),
    ("3.6.0", ("nvidia", "amd"), "applied")])
def test_gate_other_triton_versions_and_nvidia_triton_are_left_alone(tmp_path, version,
                                                                       backends, state):
    out = run(tmp_path, version, backends, TORCHADA_TRITON_F32_DEFAULT="tf32")
    assert out["state"] == state, out
    assert out["pairs"] == "1:3" and out["f32"] is None  # the fork's own helper, nothing set
    if state == "applied":
        assert out["notes"] == ["no musa backend registered in this Triton 3.6: not MUSA's "
                                "Triton, left alone"]


# -- units on this machine's real Triton ------------------------------------------------------

triton = pytest.importorskip("triton")
from triton.runtime.jit import KernelParam  # noqa: E402


class Tensor:
    dtype = "fp32"

    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


def params_of(fn):
    return [KernelParam(i, p, False, False)
            for i, p in enumerate(inspect.signature(fn).parameters.values())]


def test_ir_numbering_with_real_kernel_params():
    def kernel(maybe, x, one, out, scale, pair):
        pass

    a, b = Tensor(4096), Tensor(8192)
    # IR arguments by hand: maybe=None and one=1 fold away; x 0, out 1, scale 2, the pair's
    # two leaves 3 and 4 (pointers inside tuples are not reported)
    assert area.ir_alias_pairs(params_of(kernel), [None, a, 1, a, 0.5, (b, b)]) == "0:1"
    assert area.ir_alias_pairs(params_of(kernel), [None, a, 2, b, 0.5, (a, 3)]) == ""

    def annotated(x: "*fp32", n: "i32", out: "*fp32", BLOCK: "tl.constexpr"):
        pass

    assert area.ir_alias_pairs(params_of(annotated), [a, 5, a, 64]) == "0:2"
    assert area.ir_alias_pairs(params_of(kernel), [None, a, object(), a, 0.5, ()]) == ""


class IRFunction:
    """What deserialize reads of an IR function: its arguments and where attributes land."""

    def __init__(self, count):
        self.count, self.attrs = count, []

    def args(self, i):
        return "arg%d" % i

    def get_num_args(self):
        return self.count

    def set_arg_attr(self, index, name, value):
        if index >= self.count:
            raise IndexError("argument %d of %d" % (index, self.count))
        self.attrs.append((index, name, value))


@pytest.fixture
def ast_function():
    from triton.compiler import code_generator

    if not area.needs_deserialize_fix(code_generator.ASTFunction):
        pytest.skip("this Triton's ASTFunction is not (ret_types, arg_types, attrs)")
    return code_generator.ASTFunction


def test_deserialize_puts_attributes_on_ir_arguments_only(ast_function):
    import triton.language as tl
    from triton._utils import apply_with_path, set_iterable_path

    fixed = area.deserialize_fixed(tl, apply_with_path, set_iterable_path)
    div = [("tt.divisibility", 16)]
    # a constexpr path first, with attributes (as Inductor's generate_ttir attaches them)
    f = ast_function([], [tl.constexpr_type(4), tl.pointer_type(tl.float32)], {(0,): div, (1,): div})
    original, ours = IRFunction(1), IRFunction(1)
    f.deserialize(original)
    values = fixed(f, ours)
    assert original.attrs == [(0, "tt.divisibility", 16), (0, "tt.divisibility", 16)]  # the defect
    assert ours.attrs == [(0, "tt.divisibility", 16)]
    assert values[0].value == 4 and values[1].handle == "arg0"
    # a constexpr path last: the original writes past the last argument
    g = ast_function([], [tl.pointer_type(tl.float32), tl.constexpr_type(8)], {(1,): div})
    with pytest.raises(IndexError, match="argument 1 of 1"):
        g.deserialize(IRFunction(1))
    ours = IRFunction(1)
    fixed(g, ours)
    assert ours.attrs == []


# -- fast_exp on this machine's real Triton frontend ------------------------------------------

class Journal:
    """The area context's setattr, undone after the test."""

    def __init__(self):
        self.undo = []

    def setattr(self, owner, name, value):
        self.undo.append((owner, name, owner.__dict__.get(name, getattr(owner, name))))
        setattr(owner, name, value)

    def revert(self):
        for owner, name, value in reversed(self.undo):
            setattr(owner, name, value)


@pytest.fixture
def journal():
    made = Journal()
    yield made
    made.revert()


def ttir(kernel, dtype):
    """The kernel's TTIR for an NVIDIA target, made by this machine's Triton frontend (no
    GPU needed: codegen only)."""
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import ASTSource, make_backend

    target = GPUTarget("cuda", 80, 32)
    backend = make_backend(target)
    options = backend.parse_options({})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    source = ASTSource(kernel, {"x": "*" + dtype, "y": "*" + dtype, "N": "constexpr"}, {"N": 16})
    return str(source.make_ir(target, options, backend.get_codegen_implementation(options),
                              backend.get_module_map(), context))


def exp_kernel():
    import triton.language as tl

    @triton.jit
    def kernel(x, y, N: tl.constexpr):
        offs = tl.arange(0, N)
        v = tl.load(x + offs)
        tl.store(y + offs, tl.exp(v) + v.exp() + tl.math.exp(v))

    return kernel


def test_fast_exp_lowers_float32_exp_only_for_its_backend(journal, monkeypatch):
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9 warns while it is unset
    line = area.fast_exp(journal, backends=("cuda",), enabled=True)
    if line.startswith("not applied"):
        # Triton before 3.4: builtins take _builder, not _semantic; nothing was touched
        assert "a _semantic argument on tl.exp" in line and journal.undo == []
        assert triton.__version__.split(".")[:2] < ["3", "4"]
        return
    assert line == "float32 tl.exp lowered to exp2(x * log2 e) for the cuda backend"
    f32, f64 = ttir(exp_kernel(), "fp32"), ttir(exp_kernel(), "fp64")
    # the three spellings (tl.exp, x.exp(), tl.math.exp): each a multiply by log2 e and exp2
    assert f32.count("math.exp2") == 3 and "math.exp " not in f32
    assert f32.count("arith.mulf") == 3 and "1.44269502" in f32
    assert f64.count("math.exp ") == 3 and "math.exp2" not in f64
    journal.revert()
    journal.undo = []
    assert ttir(exp_kernel(), "fp32").count("math.exp ") == 3  # reverted: Triton's own exp


def test_fast_exp_leaves_other_backends_to_tritons_exp(journal, monkeypatch):
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    line = area.fast_exp(journal, backends=("musa",), enabled=False)
    assert line is None and journal.undo == []
    import triton.language as tl

    before = tl.exp
    try:
        line = area.fast_exp(journal, backends=("hip",), enabled=True)
    except ImportError:
        pytest.fail("a backend other than musa needs no MUSABackend to salt")
    if line.startswith("not applied"):
        assert tl.exp is before
        return
    assert tl.exp is not before and ttir(exp_kernel(), "fp32").count("math.exp ") == 3


def test_salted_backend_hash_and_its_revert(journal):
    class Backend:
        def hash(self):
            return "musa-3.6-abc"

    area.salt_backend_hash(journal, Backend, "fast-exp:%d" % area.FAST_EXP_REVISION)
    assert Backend().hash() == "musa-3.6-abc-torchada:fast-exp:1"
    journal.revert()
    journal.undo = []
    assert Backend().hash() == "musa-3.6-abc"


def test_fast_exp_error_is_the_rounding_of_x_log2e():
    """What the switch's documentation promises, from torch's CPU float32 arithmetic: the
    relative error of exp2(x * log2 e) grows with |x| up to about |x| * 5e-8."""
    import torch

    for bound in (1.0, 10.0, 80.0):
        x = torch.linspace(-bound, bound, 200_001, dtype=torch.float32)
        exact = torch.exp(x.double())
        fast = torch.exp2(x * torch.tensor(area.LOG2E, dtype=torch.float32)).double()
        error = ((fast - exact).abs() / exact).max().item()
        assert error <= bound * 5e-8 + 1.2e-7, (bound, error)
