"""Fixes for MUSA's Triton 3.6 (the Triton fork with the ``musa`` backend).

CUDA API made to work: Triton kernels and torch Inductor's generated kernels compiling and
computing on MUSA's Triton 3.6 as on NVIDIA's:

* ``inplace_alias``: the fork's launcher tells its backend which kernel arguments share a
  pointer (``triton.runtime.jit._make_pointer_alias_spec``, giving ``"i:j"`` pairs). Its
  pass indexes the kernel's IR arguments, but the helper numbers the Python parameters, and
  parameters the launcher specializes away (``None``, an int equal to 1, constexprs) are not
  IR arguments: after one, the pairs name the wrong arguments. The area counts IR arguments
  instead. ``TORCHADA_TRITON_INPLACE_ALIAS``: ``fix`` (default), ``off`` (no pairs: compiled as
  if nothing were shared) or ``vendor`` (the fork's helper, unchanged).
* ``deserialize``: ``ASTFunction.deserialize`` (triton/compiler/code_generator.py) sets each
  argument path's attributes at the IR-argument cursor before building the value, so the
  attributes of a constexpr path (which owns no IR argument) land on the next argument or past
  the last one. Inductor's ``generate_ttir`` attaches attributes to constexpr paths: mislabelled
  signatures or an IndexError. The area sets a path's attributes only when it owned an IR
  argument. Kernels launched by Triton itself attach none to constexprs: unchanged.
* ``f32_default``: ``TORCHADA_TRITON_F32_DEFAULT`` (``ieee``, ``tf32``, ... as the backend's
  ``MUSAOptions.allowed_dot_input_precisions`` lists) exported as Triton's
  ``TRITON_F32_DEFAULT`` unless the user set that one; Triton applies it to every float32
  ``tl.dot`` without ``input_precision=`` (``allow_tf32=False`` ones too: a warning says so).

* ``fast_exp`` (opt-in, ``TORCHADA_TRITON_FAST_EXP=1``): float32 ``tl.exp`` (also
  ``tl.math.exp`` and ``x.exp()``) lowered to ``exp2(x * log2(e))`` for kernels compiled for the
  musa backend; other dtypes and backends keep Triton's ``exp``. Triton's cache key does not
  cover builtins, so the backend's ``hash()`` gets a ``torchada:fast-exp:<revision>`` suffix:
  kernels compiled with and without the switch never share a cache entry.

Gate: triton 3.6.x (the manifest) with a ``musa`` backend registered (checked here: an
NVIDIA Triton 3.6 is left alone). Each fix checks the shape it repairs first and stands aside,
with a status line, where the fork differs.

torch_musa APIs relied on: none (MUSA's Triton: ``triton.backends.backends["musa"]``,
``triton.runtime.jit._make_pointer_alias_spec``, ``triton.compiler.code_generator.ASTFunction``,
``triton.backends.musa.compiler.MUSAOptions`` and ``MUSABackend.hash``; the IR builder's
``get_fp32`` / ``create_splat`` / ``create_fmul`` / ``create_exp2``).
"""
import inspect
import itertools
import logging
import os
import sys

from torchada._core import settings

logger = logging.getLogger("torchada")
MARK = "_torchada_triton_musa36"
DOT_PRECISIONS = ("ieee", "tf32", "tf32x3", "bf16x3", "bf16x6")  # if the backend lists none


def has_musa_backend():
    backends = getattr(sys.modules.get("triton.backends"), "backends", None) or {}
    return "musa" in backends


# -- inplace_alias ---------------------------------------------------------------------------

def _leaves(value):
    """IR arguments a tuple argument flattens to (None when unknown)."""
    total = 0
    for item in value:
        count = _ir_count(item)
        if count is None:
            return None
        total += count
    return total


def _ir_count(value, param=None):
    """IR arguments one unannotated Python value becomes (0: specialized to a constexpr)."""
    if value is None:
        return 0
    if callable(getattr(value, "data_ptr", None)) and hasattr(value, "dtype"):
        return 1
    if type(value) in (bool, float):
        return 1
    if type(value) is int:
        # the launcher folds an int equal to 1 into the kernel unless told not to specialize
        return 1 if value != 1 or (param is not None and param.do_not_specialize) else 0
    if isinstance(value, tuple):
        return _leaves(value)
    return None


def _pointer(value):
    data_ptr = getattr(value, "data_ptr", None)
    return data_ptr() if callable(data_ptr) else 0


def ir_alias_pairs(params, values):
    """``"i:j,..."`` for arguments sharing a pointer, numbered by IR argument; "" when none
    are shared or an argument's IR count is unknown (compiled as if none were shared)."""
    seen, index = {}, 0
    for param, value in zip(params, values):
        if param.is_constexpr:
            continue
        if param.annotation_type:
            if param.annotation_type.startswith("*") and _pointer(value):
                seen.setdefault(_pointer(value), []).append(index)
            index += 1
            continue
        count = _ir_count(value, param)
        if count is None:
            return ""
        if count and not isinstance(value, tuple) and hasattr(value, "dtype") and _pointer(value):
            seen.setdefault(_pointer(value), []).append(index)
        index += count
    return ",".join("%d:%d" % pair for indices in seen.values() if len(indices) > 1
                    for pair in itertools.combinations(indices, 2))


def no_alias_pairs(params, values):
    return ""


class _Probe:
    dtype = "fp32"

    def data_ptr(self):
        return 4096


def numbers_parameters(jit):
    """True when the helper numbers parameters: for ``(None, p, p)`` the IR arguments are
    the two pointers (``"0:1"``); parameter numbering says ``"1:2"``."""
    def probe(maybe, x, out):
        pass

    params = [jit.KernelParam(i, p, False, False)
              for i, p in enumerate(inspect.signature(probe).parameters.values())]
    return jit._make_pointer_alias_spec(params, [None, _Probe(), _Probe()]) == "1:2"


def inplace_alias(ctx, jit, mode):
    current = getattr(jit, "_make_pointer_alias_spec", None)
    if current is None:
        return "this Triton has no _make_pointer_alias_spec: nothing to fix"
    if mode == "vendor":
        return "TORCHADA_TRITON_INPLACE_ALIAS=vendor: the fork's numbering kept"
    if mode == "fix":
        try:
            wrong = numbers_parameters(jit)
        except Exception as exc:  # the helper's contract changed: leave it alone
            return "the fork's alias helper did not answer the probe (%s): left alone" % exc
        if not wrong:
            return "the fork's alias helper numbers IR arguments already: left alone"
    replacement = ir_alias_pairs if mode == "fix" else no_alias_pairs
    ctx.setattr(jit, "_make_pointer_alias_spec", replacement)
    return "alias pairs: %s" % ("numbered by IR argument" if mode == "fix" else "none (off)")


# -- deserialize -----------------------------------------------------------------------------

def needs_deserialize_fix(ast_function):
    """The ``ASTFunction(ret_types, arg_types, attrs)`` whose deserialize has the defect."""
    try:
        params = inspect.signature(ast_function.__init__).parameters
    except (TypeError, ValueError):
        return False
    return "attrs" in params and "constants" not in params


def deserialize_fixed(language, apply_with_path, set_iterable_path):
    def deserialize(self, fn):
        def template(ty):
            if isinstance(ty, (list, tuple, language.tuple_type)):
                return language.tuple([template(t) for t in ty], ty)
            return language.constexpr(None)

        values = template(self.arg_types)
        handles = [fn.args(i) for i in range(fn.get_num_args())]
        cursor = 0

        def build(path, ty):
            nonlocal cursor
            first = cursor
            value, cursor = ty._unflatten_ir(handles, cursor)
            if cursor > first:  # the path owns an IR argument: its attributes go there
                for name, attr in self.attrs.get(path, []):
                    fn.set_arg_attr(first, name, attr)
            set_iterable_path(values, path, value)

        apply_with_path(self.arg_types, build)
        return values

    return deserialize


def deserialize(ctx, code_generator):
    ast_function = getattr(code_generator, "ASTFunction", None)
    if ast_function is None or not needs_deserialize_fix(ast_function):
        return "ASTFunction is not (ret_types, arg_types, attrs): left alone"
    from triton import language
    from triton._utils import apply_with_path, set_iterable_path

    fixed = deserialize_fixed(language, apply_with_path, set_iterable_path)
    fixed.__wrapped__ = ast_function.deserialize
    ctx.setattr(ast_function, "deserialize", fixed)
    return "ASTFunction.deserialize: attributes only on paths that own an IR argument"


# -- f32_default -----------------------------------------------------------------------------

def allowed_precisions():
    try:
        from triton.backends.musa import compiler
    except Exception:  # a fork laid out otherwise: Triton's own list of precisions
        compiler = None
    options = getattr(compiler, "MUSAOptions", None)
    allowed = getattr(options, "allowed_dot_input_precisions", None)
    if isinstance(allowed, (tuple, list)) and allowed and all(isinstance(p, str) for p in allowed):
        return tuple(allowed)
    return DOT_PRECISIONS


def f32_default(ctx, environ=None):
    environ = os.environ if environ is None else environ
    value = settings.read("TORCHADA_TRITON_F32_DEFAULT", environ)
    if value is None:
        return None
    value = value.lower()
    if "TRITON_F32_DEFAULT" in environ:
        return "TRITON_F32_DEFAULT kept (set by the user: %s)" % environ["TRITON_F32_DEFAULT"]
    allowed = allowed_precisions()
    if value not in allowed:
        logger.warning("torchada: TORCHADA_TRITON_F32_DEFAULT=%s ignored: MUSA's Triton accepts "
                       "%s", value, ", ".join(allowed))
        return "TORCHADA_TRITON_F32_DEFAULT=%s ignored (not one of %s)" % (value, ", ".join(allowed))
    if value != "ieee":
        logger.warning("torchada: TORCHADA_TRITON_F32_DEFAULT=%s also applies to float32 tl.dot "
                       "calls that pass allow_tf32=False", value)
    ctx.setitem(environ, "TRITON_F32_DEFAULT", value)
    return "TRITON_F32_DEFAULT=%s" % value


# -- fast_exp --------------------------------------------------------------------------------

LOG2E = 1.4426950408889634
# Part of every salted backend hash: raise it whenever the code fast_exp emits changes, so no
# kernel compiled by an older lowering is taken from Triton's cache.
FAST_EXP_REVISION = 1
BUILDER_METHODS = ("get_fp32", "create_splat", "create_fmul", "create_exp2")


def lowered_exp(core, check_dtype, triton_exp, backends):
    """A builtin computing float32 ``exp(x)`` as ``exp2(x * log2 e)`` for kernels compiled for
    one of ``backends``; everything else goes to ``triton_exp`` unchanged."""
    @core.builtin
    @check_dtype(dtypes=["fp32", "fp64"])
    def exp(x, _semantic=None):
        x = _semantic.to_tensor(x)
        builder = _semantic.builder
        target = getattr(getattr(builder, "options", None), "backend_name", None)
        if x.type.scalar.name != "fp32" or target not in backends:
            return triton_exp(x, _semantic=_semantic)
        scale = builder.get_fp32(LOG2E)
        if x.type.is_block():
            scale = builder.create_splat(x.type.to_ir(builder), scale)
        return core.tensor(builder.create_exp2(builder.create_fmul(x.handle, scale)), x.type)

    exp.__wrapped__ = triton_exp
    exp.__doc__ = triton_exp.__doc__
    return exp


def salt_backend_hash(ctx, backend_cls, token):
    """``backend_cls.hash()`` with ``-torchada:<token>`` appended (restored on revert); torch
    memoizes the hash per process, so its memo is cleared."""
    native = backend_cls.__dict__.get("hash")
    if native is None:
        raise AttributeError("%s defines no hash()" % backend_cls.__name__)

    def hash(self):  # noqa: A001 - the backend's method name
        return "%s-torchada:%s" % (native(self), token)

    hash.__wrapped__ = native
    ctx.setattr(backend_cls, "hash", hash)
    memo = getattr(sys.modules.get("torch.utils._triton"), "triton_hash_with_backend", None)
    if hasattr(memo, "cache_clear"):
        memo.cache_clear()


def fast_exp(ctx, backends=("musa",), enabled=None):
    if not (settings.read("TORCHADA_TRITON_FAST_EXP") if enabled is None else enabled):
        return None
    import triton.language as tl
    from triton._C.libtriton import ir
    from triton.language import core, math as tl_math

    missing = [name for name in BUILDER_METHODS if not hasattr(ir.builder, name)]
    for name, owner in (("_check_dtype", tl_math), ("TRITON_BUILTIN", core),
                        ("exp", core.tensor)):
        if not hasattr(owner, name):
            missing.append(name)
    signature = getattr(tl_math.exp, "signature", None) or inspect.signature(tl_math.exp)
    if "_semantic" not in signature.parameters:  # builtins before Triton 3.4 take _builder
        missing.append("a _semantic argument on tl.exp")
    if missing:
        return "not applied: this Triton lacks %s" % ", ".join(missing)
    check_dtype = tl_math._check_dtype
    lowered = lowered_exp(core, check_dtype, tl_math.exp, backends)
    triton_member = core.tensor.exp

    def member(self, _semantic=None):
        return lowered(self, _semantic=_semantic)

    setattr(member, core.TRITON_BUILTIN, True)
    member.__wrapped__ = triton_member
    if hasattr(triton_member, "signature"):  # the code generator reads a builtin's signature
        member.signature = member.__signature__ = triton_member.signature
    if "musa" in backends:  # salted before any kernel can see the lowering
        from triton.backends.musa.compiler import MUSABackend

        salt_backend_hash(ctx, MUSABackend, "fast-exp:%d" % FAST_EXP_REVISION)
    for owner in (tl_math, tl):
        ctx.setattr(owner, "exp", lowered)
    ctx.setattr(core.tensor, "exp", member)
    return ("float32 tl.exp lowered to exp2(x * log2 e) for the %s backend%s" % (
        "/".join(backends), "; MUSABackend.hash salted (fast-exp:%d)" % FAST_EXP_REVISION
        if "musa" in backends else ""))


def apply(ctx):
    if not has_musa_backend():
        ctx.note("no musa backend registered in this Triton 3.6: not MUSA's Triton, left alone")
        return
    import triton.compiler.code_generator as code_generator
    import triton.runtime.jit as jit

    units = (("inplace_alias", lambda: inplace_alias(
                 ctx, jit, settings.read("TORCHADA_TRITON_INPLACE_ALIAS"))),
             ("deserialize", lambda: deserialize(ctx, code_generator)),
             ("f32_default", lambda: f32_default(ctx)),
             ("fast_exp", lambda: fast_exp(ctx)))
    for name, unit in units:
        try:
            line = unit()
        except Exception as exc:  # one fix failing leaves the others and the program alone
            line = "not applied (%s: %s)" % (type(exc).__name__, exc)
        if line:
            ctx.note("%s: %s" % (name, line))
