"""Which aten operators the running torch_musa has no PrivateUse1 kernel for.

An operator needs a device kernel when it has a CPU kernel and no composite one (a
composite decomposes into other operators, which are checked themselves). torch_musa
registers its kernels from C++, so which of those it has comes from one of:

1. where nothing serves PrivateUse1 by a backend fallback (a real torch_musa registers
   none): the dispatcher's own registrations, which are the truth and cost nothing to read;
2. where a backend fallback decides (the simulator's, which runs exactly a release's
   operator table): that table (``table_ops``: the overloads a release registers, read
   from torch_musa's sources, ``torchada.testing.optable``);
3. a backend fallback and no table: nothing is known to be missing.

Names are the dispatcher's: ``aten::name.overload``, ``aten::name`` for the default overload.
"""

COMPOSITE_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd",
                  "CompositeExplicitAutogradNonFunctional")
# An operator with a CPU kernel only and never a composite one: its dispatch table tells
# whether PrivateUse1 has a backend fallback.
_PROBE_OP = "aten::special_airy_ai.out"


def table_ops(release):
    """(overloads torch_musa ``release`` registers for PrivateUse1, overloads its table knows,
    the release of the table used) as frozensets of dispatcher names and a string, or None
    where no operator table is available.

    The table module's interface (``torchada.testing.optable``, issue 21 parts 1-2):
    ``table_for(version)`` the release whose table models ``version``, ``load(release)`` that
    table, ``registered(table, key)`` its overloads for a dispatch key, ``table["torch_ops"]``
    every overload of the torch it was built for. An overload the table does not know (a
    newer torch's) is taken as registered, as the simulator takes it."""
    try:
        from torchada.testing import optable

        modelled = optable.table_for(release)
        table = optable.load(modelled)
        return (frozenset(optable.registered(table, "PrivateUse1")),
                frozenset(table["torch_ops"]), modelled)
    except (ImportError, AttributeError, KeyError, LookupError, OSError, ValueError):
        return None


def _registrations(torch, key):
    return set(torch._C._dispatch_get_registrations_for_dispatch_key(key))


def needs_device_kernel(torch):
    """aten overloads with a CPU kernel and no composite one."""
    composite = set()
    for key in COMPOSITE_KEYS:
        composite |= _registrations(torch, key)
    return {n for n in _registrations(torch, "CPU") if n.startswith("aten::")} - composite


def has_backend_fallback(torch):
    try:
        table = torch._C._dispatch_dump_table(_PROBE_OP)
    except RuntimeError:
        return False
    return any(line.startswith("PrivateUse1:") and "[backend fallback]" in line
               for line in table.splitlines())


_answers = {}  # release -> the first answer, given before the fallback registered anything


def missing_ops(torch, release):
    """(sorted names torch_musa ``release`` lacks, where that answer comes from). The first
    answer is kept: later the fallback's own kernels are among the registrations."""
    if release not in _answers:
        _answers[release] = _missing_ops(torch, release)
    return _answers[release]


def _missing_ops(torch, release):
    live = _registrations(torch, "PrivateUse1")
    needed = needs_device_kernel(torch)
    if not has_backend_fallback(torch):
        return sorted(needed - live), "the dispatcher's PrivateUse1 registrations"
    table = table_ops(release) if release else None
    if table is not None:
        registered, known, modelled = table
        return (sorted((needed & known) - registered - live),
                "operator table of torch_musa %s%s" % (
                    modelled, "" if modelled == release else ", modelling %s" % release))
    return [], "no operator table for torch_musa %s, and a backend fallback serves every " \
               "operator" % release


def parse_names(torch, text):
    """(known names, unknown entries) of TORCHADA_CPU_FALLBACK_OPS: ``aten::op`` or
    ``aten::op.overload`` (``aten::`` may be left out)."""
    known, unknown = [], []
    for entry in (p.strip() for p in text.split(",")):
        if not entry:
            continue
        name = entry if "::" in entry else "aten::" + entry
        base, _, overload = name.partition(".")
        try:
            overloads = {s.overload_name for s in torch._C._jit_get_schemas_for_operator(base)}
        except RuntimeError:
            overloads = set()
        if (overload or "") in overloads:
            known.append(name)
        else:
            unknown.append(entry)
    return known, unknown
