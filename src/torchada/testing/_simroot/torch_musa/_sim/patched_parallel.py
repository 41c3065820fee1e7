"""The patched torch's ``torch.nn.parallel`` (comm.py, _functions.py, parallel_apply.py).

torch_musa runs on a torch built from its own patches. Three of them make
``nn.DataParallel`` and ``torch.cuda.comm`` use the MUSA device (torch_musa 2.7.1,
torch_patches/):

* torch_nn_parallel_comm.py.patch: ``broadcast``, ``broadcast_coalesced``, ``scatter`` and
  ``gather`` call ``torch.musa._MUSAC._broadcast`` / ``_broadcast_out`` /
  ``_broadcast_coalesced`` / ``_scatter`` / ``_scatter_out`` / ``_gather`` / ``_gather_out``
  instead of ``torch._C._...`` (the ``_out`` ones are not bound: see _sim/comm.py).
* torch_nn_parallel__functions.py.patch: ``Scatter.forward`` also takes background copy
  streams from the PrivateUse1 module when it is available and the input is on the CPU.
* torch_nn_parallel_parallel_apply.py.patch: ``torch.cuda.current_stream / device / stream``
  become ``torch.musa.*`` and ``autocast("cuda")`` becomes ``autocast("musa")``.

Modelled as the patched files would be: the installed torch's own source of each function
with the patch's substitutions, compiled and put in place as the function's ``__code__``
(the function objects stay the same, so ``torch.cuda.comm``'s names, which are the same
objects, are patched too). A substitution whose text the installed torch does not have is
skipped: newer torch already writes _functions.py and parallel_apply.py against
``torch.accelerator`` (e.g. 2.13), so their patches have nothing left to do there. Which
patches torch_musa carries for torch releases after 2.7.1 is unknown; comm.py's is assumed
to stay (upstream comm.py still calls ``torch._C._broadcast`` ...).
"""
import inspect
import sys
import types

_COMM = tuple(("torch._C.%s(" % name, "torch.musa._MUSAC.%s(" % name) for name in (
    "_broadcast", "_broadcast_out", "_broadcast_coalesced", "_scatter", "_scatter_out",
    "_gather", "_gather_out"))
_APPLY = (("torch.cuda.current_stream(", "torch.musa.current_stream("),
          ("torch.cuda.device(", "torch.musa.device("),
          ("torch.cuda.stream(", "torch.musa.stream("),
          ('torch.amp.autocast("cuda"', 'torch.amp.autocast("musa"'))
# inserted before Scatter.forward's comm.scatter call, in torch 2.7's form of that function
_SCATTER_ANCHOR = "        outputs = comm.scatter(input, target_gpus, chunk_sizes, ctx.dim, streams)\n"
_SCATTER_NEEDS = "torch.cuda.is_available() and ctx.input_device == -1"
_SCATTER_BLOCK = (
    "        privateuse1_backend = torch._C._get_privateuse1_backend_name()\n"
    "        privateuse1_mod = getattr(torch, privateuse1_backend)\n"
    "        if privateuse1_mod and privateuse1_mod.is_available() and ctx.input_device == -1:\n"
    "            streams = [_get_stream(torch.device(privateuse1_backend, device))\n"
    "                       for device in target_gpus]\n")

PATCHED = []  # "module.qualname" of every function whose code was replaced (for tests/docs)


def _find_code(code, qualname):
    """The code object of ``qualname`` ("Scatter.forward") inside a module's code."""
    for part in qualname.split("."):
        code = next((c for c in code.co_consts
                     if isinstance(c, types.CodeType) and c.co_name == part), None)
        if code is None:
            return None
    return code


def _patch(module, qualnames, edit):
    source = inspect.getsource(module)
    patched = edit(source)
    if patched == source:
        return
    code = compile(patched, module.__file__, "exec")
    for qualname in qualnames:
        owner, _, name = qualname.rpartition(".")
        target = getattr(getattr(module, owner), name) if owner else getattr(module, name)
        func = getattr(target, "__func__", target)
        new = _find_code(code, qualname)
        if new is None or new.co_freevars != func.__code__.co_freevars:
            continue
        if new.co_code != func.__code__.co_code or new.co_consts != func.__code__.co_consts:
            func.__code__ = new
            PATCHED.append("%s.%s" % (module.__name__, qualname))


def _substitute(pairs):
    def edit(source):
        for old, new in pairs:
            source = source.replace(old, new)
        return source
    return edit


def _insert_scatter_block(source):
    if _SCATTER_NEEDS not in source or source.count(_SCATTER_ANCHOR) != 1:
        return source
    return source.replace(_SCATTER_ANCHOR, _SCATTER_BLOCK + _SCATTER_ANCHOR)


def apply():
    import torch.nn.parallel  # noqa: F401 (torch.nn imports it; made sure of here)

    comm = sys.modules["torch.nn.parallel.comm"]
    _patch(comm, ("broadcast", "broadcast_coalesced", "scatter", "gather"), _substitute(_COMM))
    functions = sys.modules["torch.nn.parallel._functions"]
    _patch(functions, ("Scatter.forward",), _insert_scatter_block)
    parallel_apply = sys.modules["torch.nn.parallel.parallel_apply"]
    _patch(parallel_apply, ("parallel_apply",), _substitute(_APPLY))
