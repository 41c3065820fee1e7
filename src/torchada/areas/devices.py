"""Device strings and ordinals everywhere users pass them.

CUDA APIs made to work on MUSA: ``torch.device("cuda")``, ``"cuda:N"``, ``torch.device("cuda",
N)``, ``torch.device(type="cuda", index=N)``; the ``device=`` keyword of every tensor factory
(zeros, ones, empty, full, rand, randn, randint, randperm, arange, range, linspace, logspace,
eye, tensor, as_tensor, asarray, empty_strided, empty_permuted, scalar_tensor, tril/triu_indices,
window functions, sparse constructors, the whole ``*_like`` family) and of ``Tensor.new_*``;
``Tensor.cuda``, ``Tensor.to``, ``Module.to`` (``Module.cuda`` goes through ``Tensor.cuda``),
``Tensor.pin_memory(device)`` / ``is_pinned(device)``, ``UntypedStorage.cuda`` (so
``torch.load(map_location=lambda s, loc: s.cuda(0))`` works), ``torch.Generator(device=...)``,
``torch.load`` of storages tagged ``cuda:N`` (any ``map_location``: None, str, device, dict,
callable), ``torch.jit.script`` of code that builds a cuda device, ``Tensor.is_cuda`` (True for
MUSA tensors), and ``torch.cuda.is_available()`` behind ``TORCHADA_FORCE_CUDA_AVAILABLE``.

``torch.device`` stays the real C type: its ``tp_new`` slot is replaced (see ``_typeslots``) by a
Python ``__new__`` that looks the arguments up in a dict of ready-made device objects. Where
the interpreter's type layout cannot be verified, the fallback leaves ``torch.device`` alone
(``torch.device("cuda")`` then has type "cuda") and every wrapper also maps cuda device
objects; ``MODE`` says which one is active.

torch_musa APIs relied on: ``rename_privateuse1_backend("musa")`` (device type "musa"),
``torch.musa.is_available``, ``torch.musa.device_count``, ``Tensor.musa`` /
``UntypedStorage.musa``, its ``musa`` deserializer in ``torch.serialization._package_registry``
(and the ``cuda`` entry it replaces with one that raises).
"""

import functools
import logging

from torchada.areas import _kit


logger = logging.getLogger("torchada")

# "tp_new" (torch.device keeps its C type, constructor rewritten) or "fallback: <reason>".
MODE = None
# How factories, Tensor.new_* and Tensor.to reach the Python wrappers: "C prefilter" or
# "Python wrappers (<why>)".
ROUTE = None


def status_note():
    """Shown by torchada.status(): how torch.device was made to accept "cuda", and the
    route device arguments take."""
    return "torch.device: %s; calls: %s" % (MODE, ROUTE)


def _route(journal):
    """``fast(orig, slow, dmap, types, positional=False, translated=None)``: the C prefilter
    in front of the Python wrapper ``slow`` (calls naming no CUDA device go straight to
    ``orig``), or the Python wrapper itself where the prefilter is unavailable
    (areas/_fastpath)."""
    global ROUTE
    from torchada.areas import _fastpath

    prefilter, reason = _fastpath.load()
    journal.on_revert(_reset_route)
    if prefilter is None:
        ROUTE = "Python wrappers (%s)" % reason
        return lambda orig, slow, dmap, types, positional=False, translated=None: slow

    ROUTE = "C prefilter"

    def fast(orig, slow, dmap, types, positional=False, translated=None):
        return functools.update_wrapper(
            prefilter(orig, slow, dmap, types, positional, translated), orig)

    return fast


def _reset_route():
    global ROUTE
    ROUTE = None


FACTORIES = (
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "range",
    "linspace", "logspace", "eye", "tensor", "as_tensor", "asarray", "empty_strided",
    "empty_permuted", "scalar_tensor", "tril_indices", "triu_indices", "normal", "from_file",
    "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window",
    "sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
    "sparse_bsc_tensor", "sparse_compressed_tensor",
    "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
    "randint_like",
)


def factory_wrappers(torch):
    """The factories on ``torch`` this area replaced (C prefilters or Python wrappers):
    what compile-time areas must make Dynamo and AOT autograd accept."""
    import types

    found = []
    for name in FACTORIES:
        fn = getattr(torch, name, None)
        if fn is not None and not isinstance(fn, types.BuiltinFunctionType) \
                and getattr(fn, "__wrapped__", None) is not None:
            found.append(fn)
    return found


TENSOR_NEW = ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "new_empty_strided")


# -- wrappers (built inside apply; nothing runs at import) ----------------------------------
def _raise_cuda_words(exc):
    from torchada.areas._devmap import as_cuda_error

    clone = as_cuda_error(exc)
    if clone is None:
        raise exc
    raise clone from None


def _kw_wrapper(orig, dmap, types):
    """``device=`` keyword only: one dict get + one class test when no cuda name is passed."""
    if types == (str,):
        _str = str

        def wrapper(*args, **kwargs):
            d = kwargs.get("device")
            if d.__class__ is _str:
                m = dmap[d]
                if m is not d:
                    kwargs["device"] = m
                    try:
                        return orig(*args, **kwargs)
                    except Exception as exc:
                        _raise_cuda_words(exc)
            return orig(*args, **kwargs)

        return _picklable(functools.update_wrapper(wrapper, orig))

    def wrapper(*args, **kwargs):
        d = kwargs.get("device")
        if d.__class__ in types:
            m = dmap[d]
            if m is not d:
                kwargs["device"] = m
                try:
                    return orig(*args, **kwargs)
                except Exception as exc:
                    _raise_cuda_words(exc)
        return orig(*args, **kwargs)

    return _picklable(functools.update_wrapper(wrapper, orig))


def _picklable(wrapper):
    """torch.zeros & co. pickle by name; their qualname (_VariableFunctionsClass.zeros) is
    not reachable from ``torch``, so the wrapper takes the plain name (torch.zeros)."""
    if wrapper.__qualname__.startswith("_VariableFunctionsClass."):
        wrapper.__qualname__ = wrapper.__name__
    return wrapper


def _method_wrapper(orig, dmap, types, translated=None):
    """``self`` then the device positionally or as ``device=`` (to, pin_memory, is_pinned).

    ``translated`` (default ``orig``) is called when a cuda name was swapped for a musa
    device: for ``Tensor.to`` that is the C method itself, skipping torch_musa's Python
    wrapper, which only rewrites integer ordinals.
    """
    fast = orig if translated is None else translated

    def wrapper(self, *args, **kwargs):
        if args:
            d = args[0]
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    try:
                        return fast(self, m, *args[1:], **kwargs)
                    except Exception as exc:
                        _raise_cuda_words(exc)
        elif kwargs:
            d = kwargs.get("device")
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    kwargs["device"] = m
                    try:
                        return fast(self, *args, **kwargs)
                    except Exception as exc:
                        _raise_cuda_words(exc)
        return orig(self, *args, **kwargs)

    return functools.update_wrapper(wrapper, orig)


def _make_tensor_cuda(torch, to, dmap, types, index_device, current_index):
    preserve = torch.preserve_format

    def cuda(self, device=None, non_blocking=False, memory_format=preserve):
        if device is None:
            device = index_device(current_index())
        elif device.__class__ is int:
            device = index_device(device)
        else:
            if device.__class__ in types:
                device = dmap[device]
            device = torch.device(device)
            if device.type != "musa":
                raise RuntimeError("Invalid device, must be cuda device")
        try:
            return to(self, device, non_blocking=non_blocking, memory_format=memory_format)
        except Exception as exc:
            _raise_cuda_words(exc)

    functools.update_wrapper(cuda, torch._C.TensorBase.cuda)
    return cuda


def _make_storage_cuda(torch, orig_musa, dmap, types):
    def cuda(self, device=None, non_blocking=False, **kwargs):
        if device is not None and device.__class__ is not int:
            if device.__class__ in types:
                device = dmap[device]
            device = torch.device(device)
            if device.type != "musa":
                raise RuntimeError("Invalid device, must be cuda device")
            device = device.index
        return orig_musa(self, device, non_blocking, **kwargs)

    cuda.__doc__ = "Returns a copy of this storage in CUDA (on MUSA: MUSA) memory."
    return cuda


# -- torch.device and torch.Generator constructors -----------------------------------------
def _device_new(torch, patch, dmap_str, cache):
    from torchada.areas._devmap import CACHE_LIMIT, musa_name

    T = torch.device
    call = patch.call_original

    def slow(cls, args, kwargs):
        new_args, new_kwargs = args, kwargs
        if args and args[0].__class__ is str:
            name = musa_name(args[0])
            if name is not None:
                new_args = (name,) + args[1:]
        if kwargs and kwargs.get("type").__class__ is str:
            name = musa_name(kwargs["type"])
            if name is not None:
                new_kwargs = dict(kwargs, type=name)
        if new_args is args and new_kwargs is kwargs:
            return call(cls, args, kwargs)
        try:
            return call(cls, new_args, new_kwargs)
        except Exception:
            return call(cls, args, kwargs)  # the error a CUDA user gets, in cuda words

    def __new__(cls, *args, **kwargs):
        if kwargs:
            if args or cls is not T:
                return slow(cls, args, kwargs)
            key = ("\0kw", kwargs.get("type"), kwargs.get("index"), len(kwargs))
        elif len(args) == 1:
            key = args[0]
        else:
            key = args
        try:
            hit = cache.get(key)
        except TypeError:  # unhashable: let torch report it
            return slow(cls, args, kwargs)
        if hit is not None and cls is T:
            return hit
        result = slow(cls, args, kwargs)
        if cls is T and len(cache) < CACHE_LIMIT and (key.__class__ is T or _cacheable(key)):
            cache[key] = result
        return result

    return __new__


def _cacheable(key):
    if key.__class__ in (str, int):
        return key.__class__ is not bool
    if key.__class__ is tuple:
        return all(k is None or k.__class__ in (str, int) for k in key)
    return False


def _generator_new(torch, patch, dmap, types):
    call = patch.call_original

    def __new__(cls, *args, **kwargs):
        if args:
            d = args[0]
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    args = (m,) + args[1:]
        elif kwargs:
            d = kwargs.get("device")
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    kwargs = dict(kwargs, device=m)
        return call(cls, args, kwargs)

    return __new__


# -- torch.load of cuda-tagged storages ---------------------------------------------------
def _install_cuda_deserializer(journal, torch):
    import torch.serialization as ser

    registry = ser._package_registry

    def _cuda_as_musa_deserialize(obj, location):
        if not location.startswith("cuda"):
            return None
        target = "musa" + location[4:]
        try:
            index = torch.device(target).index
        except Exception:
            index = None
        count = torch.musa.device_count()
        if index is not None and index >= count:
            raise RuntimeError(
                "Attempting to deserialize object on CUDA device %d but torch.cuda."
                "device_count() is %d. Please use torch.load with map_location to map your "
                "storages to an existing device." % (index, count))
        return ser.default_restore_location(obj, target)

    def is_cuda_entry(entry):
        tagger, deserializer = entry[1], entry[2]
        for fn in (tagger, deserializer):
            if isinstance(fn, functools.partial) and fn.args[:1] == ("cuda",):
                return True
        return getattr(deserializer, "__name__", "") == "_cuda_deserialize"

    index = next((i for i, e in enumerate(registry) if is_cuda_entry(e)), None)
    if index is None:
        entry, old = (19, lambda obj: None, _cuda_as_musa_deserialize), None
        registry.insert(0, entry)
    else:
        old = registry[index]
        entry = (old[0], old[1], _cuda_as_musa_deserialize)
        registry[index] = entry

    def undo():
        for i, e in enumerate(registry):
            if e is entry:
                if old is None:
                    del registry[i]
                else:
                    registry[i] = old
                return

    journal.on_revert(undo)


# -- TorchScript: cuda string constants compile as musa ------------------------------------
def _install_script_constants(journal):
    """TorchScript builds devices in C++, past the torch.device constructor slot: a "cuda"
    literal in a Device position (``torch.device("cuda")``, ``device="cuda"``,
    ``.to("cuda")``) becomes its musa spelling before compilation. Any other string keeps
    its value, so scripted and eager code agree (``x.device.type == "cuda"`` is False in
    both on MUSA)."""
    import ast

    import torch.jit.frontend as frontend

    from torchada.areas._devmap import musa_name

    def musa_constant(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = musa_name(node.value)
            if name is not None:
                return ast.copy_location(ast.Constant(value=name), node)
        return node

    class _DeviceConstants(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if node.args and (callee == "device" or
                              (callee == "to" and isinstance(func, ast.Attribute))):
                node.args[0] = musa_constant(node.args[0])
            for keyword in node.keywords:
                if keyword.arg == "device":
                    keyword.value = musa_constant(keyword.value)
            return node

    orig = frontend.parse_def

    def parse_def(fn):
        parsed = orig(fn)
        try:
            _DeviceConstants().visit(parsed.ast)
        except Exception:  # never break compilation over this
            pass
        return parsed

    functools.update_wrapper(parse_def, orig)
    journal.setattr(frontend, "parse_def", parse_def)


def _register_script_builtins(journal, wrapped):
    """TorchScript resolves torch.zeros & co. by object identity: the wrappers must map to the
    same aten ops as the functions they wrap (else scripting tries to compile them)."""
    import torch.jit._builtins as builtins

    ids = {id(fn): "aten::" + name for name, fn in wrapped.items()}
    if builtins._builtin_table is not None:  # a table built later scans torch and finds them
        builtins._builtin_table.update(ids)

    def undo():
        table = builtins._builtin_table
        if table is not None:
            for key in ids:
                table.pop(key, None)

    journal.on_revert(undo)


def _register_default_device_constructors(journal, torch, wrapped):
    """The default-device mode (``torch.set_default_device``, ``with torch.device(...)``)
    recognises factories by identity in a cached set: it must hold the originals (what its
    __torch_function__ sees) whether it was built before or after the wrappers."""
    import torch.utils._device as device_mode

    constructors = device_mode._device_constructors()
    if not isinstance(constructors, set):
        return
    added = [fn.__wrapped__ for name, fn in wrapped.items()
             if name in _DEFAULT_DEVICE_FACTORIES and fn.__wrapped__ not in constructors]
    constructors.update(added)
    journal.on_revert(lambda: constructors.difference_update(added))


_DEFAULT_DEVICE_FACTORIES = frozenset((
    "empty", "empty_permuted", "empty_strided", "ones", "arange", "bartlett_window",
    "blackman_window", "eye", "full", "hamming_window", "hann_window", "kaiser_window",
    "linspace", "logspace", "rand", "randn", "randint", "randperm", "range",
    "sparse_coo_tensor", "sparse_compressed_tensor", "sparse_csr_tensor", "sparse_csc_tensor",
    "sparse_bsr_tensor", "sparse_bsc_tensor", "tril_indices", "triu_indices", "zeros",
    "asarray", "tensor", "as_tensor", "scalar_tensor", "from_file", "normal",
))


def _is_available(ctx):
    """torch.cuda.is_available: False on MUSA unless TORCHADA_FORCE_CUDA_AVAILABLE, then
    torch.musa.is_available. Pinned rather than left to torch's own function, whose answer
    follows torch.cuda._is_compiled() and torch._C._cuda_getDeviceCount(), which the
    cuda_private area makes answer for MUSA."""
    from torchada.areas._devmap import force_cuda_available

    if force_cuda_available(warn=lambda msg: logger.warning("torchada: %s", msg)):
        return ctx.musa.is_available

    @_kit.wraps(ctx.torch.cuda.is_available)
    def is_available():
        return False

    return is_available


EMULATIONS = {"is_available": _is_available}


# -- apply ----------------------------------------------------------------------------------
def apply(journal):
    global MODE
    import torch
    import torch.nn

    from torchada.areas import _typeslots
    from torchada.areas._devmap import DeviceMap, musa_name

    T = torch.device
    problem = _typeslots.layout_problem(T) or _typeslots.layout_problem(torch.Generator)
    types = (str,) if problem is None else (str, T)

    def build(key):
        if key.__class__ is str:
            name = musa_name(key)
            if name is None:
                return key
            try:
                return T(name)
            except Exception:
                return key  # torch reports the user's own string
        if key.__class__ is T and key.type == "cuda":
            return T("musa", key.index)
        return key

    dmap = DeviceMap(build, types)
    index_cache = {}

    def index_device(i):
        dev = index_cache.get(i)
        if dev is None:
            dev = index_cache[i] = T("musa", i)
        return dev

    getter = getattr(torch._C, "_accelerator_getDeviceIndex", None)
    current_index = getter if getter is not None else torch.musa.current_device

    # torch.device / torch.Generator keep their C types; only the constructor slot changes.
    if problem is None:
        device_patch = _typeslots.TpNewPatch(T)
        cache = {}
        device_patch.install(_device_new(torch, device_patch, dmap, cache))
        journal.on_revert(device_patch.restore)
        journal.on_revert(cache.clear)
        gen_patch = _typeslots.TpNewPatch(torch.Generator)
        gen_patch.install(_generator_new(torch, gen_patch, dmap, types))
        journal.on_revert(gen_patch.restore)
        MODE = "tp_new"
    else:
        MODE = "fallback: %s" % problem
        logger.info("torchada: torch.device keeps type 'cuda' for cuda names (%s); device "
                    "arguments are still mapped where they are used", problem)
    journal.on_revert(_reset_mode)

    fast = _route(journal)
    wrapped = {}
    for name in FACTORIES:
        orig = getattr(torch, name, None)
        if orig is not None:
            wrapped[name] = fast(orig, _kw_wrapper(orig, dmap, types), dmap, types)
            journal.setattr(torch, name, wrapped[name])
    _register_script_builtins(journal, wrapped)
    _register_default_device_constructors(journal, torch, wrapped)
    Tensor = torch.Tensor
    for name in TENSOR_NEW:
        orig = getattr(Tensor, name, None)
        if orig is not None:
            journal.setattr(Tensor, name, fast(orig, _kw_wrapper(orig, dmap, types), dmap, types))
    journal.setattr(Tensor, "to", fast(Tensor.to, _method_wrapper(
        Tensor.to, dmap, types, torch._C.TensorBase.to), dmap, types, positional=True,
        translated=torch._C.TensorBase.to))
    for name in ("pin_memory", "is_pinned"):
        journal.setattr(Tensor, name, _method_wrapper(getattr(Tensor, name), dmap, types))
    journal.setattr(torch.nn.Module, "to", _method_wrapper(torch.nn.Module.to, dmap, types))
    journal.setattr(Tensor, "cuda", _make_tensor_cuda(
        torch, torch._C.TensorBase.to, dmap, types, index_device, current_index))
    storage_musa = getattr(torch.UntypedStorage, "musa", None)
    if storage_musa is not None:
        journal.setattr(torch.UntypedStorage, "cuda",
                        _make_storage_cuda(torch, storage_musa, dmap, types))

    get_device = torch._C.TensorBase.get_device

    def is_cuda(self):
        """True for CUDA tensors and, under torchada on MUSA, for MUSA tensors."""
        return get_device(self) >= 0

    journal.setattr(Tensor, "is_cuda", property(is_cuda))

    _install_cuda_deserializer(journal, torch)
    _install_script_constants(journal)
    _kit.apply_rows(_kit.context(journal, __name__), EMULATIONS)  # the is_available row


def _reset_mode():
    global MODE
    MODE = None
