"""The one function that applies rows of the torch.cuda table: each area applies its own.

A row's ``area`` column names its owner (torchada.areas.cuda_api_table). ``apply_rows(ctx,
emulations)`` plans every torch.cuda name (top level, then the imported submodules) and
writes only the rows owned by ``ctx.area``. Names the table lacks belong to the default
owner (cuda_namespace), which decides them by rule: same name on torch.musa -> mapped,
otherwise a NotImplementedError stub. A submodule name that is the same object as a
top-level name (torch.cuda.graphs.CUDAGraph is torch.cuda.CUDAGraph) follows that name's
row and gets the same replacement. Everything is planned before the first write, so a
builder that raises leaves nothing half-written.
"""
import sys
import types

from torchada.areas import cuda_api_table as table

_coverage = {}  # area -> {qualname: (kind, how)}, while applied


def coverage():
    """{qualname: (kind, how)} for every torch.cuda name the applied owners handled, ``how``
    saying by table or by rule; None when no owner is applied."""
    if not _coverage:
        return None
    merged = {}
    for cover in _coverage.values():
        merged.update(cover)
    return merged


def api_names(module):
    """Public API names of torch.cuda (or a submodule): __all__, plus public exception
    classes and torch.cuda submodules."""
    names = set(getattr(module, "__all__", None) or ())
    for name, value in list(vars(module).items()):
        if name.startswith("_"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("torch.cuda."):
                names.add(name)
        elif isinstance(value, type) and issubclass(value, BaseException):
            names.add(name)
        elif getattr(value, "__module__", None) == module.__name__ and (
                callable(value)) and module.__name__ != "torch.cuda":
            names.add(name)  # submodules without __all__ (torch.cuda.streams)
    return names


def _rule_row(ctx, qualname, original):
    """The row the rule gives a name the table lacks, owned by its submodule's owner."""
    sub, _, leaf = qualname.rpartition(".")
    if leaf.startswith("_"):
        return None
    owner = table.owner_of_submodule(sub) if sub else table.DEFAULT_OWNER
    if ctx.has(leaf):
        return table.Row(table.MAPPED, leaf, owner, "")
    if type(original).__name__ == "module":
        return table.Row(table.MODULE, None, owner, "")
    return table.Row(table.UNSUPPORTED, table.NO_EQUIVALENT, owner, "")


def _value(ctx, qualname, row, original, emulations, cover, how):
    """The replacement for one owned row (None: leave torch's object)."""
    api = "torch.cuda." + qualname
    if row.kind in (table.NATIVE, table.MODULE):
        cover[qualname] = (row.kind, how if how == "rule" else how + ":" + row.area)
        return None
    if row.kind == table.MAPPED:
        target = table.target_of(qualname, row)
        if ctx.has(target):
            cover[qualname] = (table.MAPPED, how)
            return ctx.lookup(target)
        if qualname.rsplit(".", 1)[-1].startswith("_"):
            return None  # private torch.cuda name: leave torch's object alone
        cover[qualname] = (table.UNSUPPORTED, how + ":target-missing")
        reason = "%s has no torch.musa.%s" % (ctx.musa_label, target)
        if row.since:
            reason += "; torch_musa %s added it: upgrade torch_musa" % row.since
        return ctx.unsupported(api, reason, like=original)
    if row.kind == table.EMULATED:
        try:
            value = emulations[row.target](ctx)
        except AttributeError as exc:
            # An older torch_musa lacks what the emulation builds on: as for a mapped row
            # whose target is missing, the CUDA name raises, naming what is missing.
            cover[qualname] = (table.UNSUPPORTED, how + ":emulation-base-missing")
            return ctx.unsupported(api, "%s: %s" % (ctx.musa_label, exc), like=original)
        cover[qualname] = (table.EMULATED, how)
        return value
    cover[qualname] = (table.UNSUPPORTED, how)
    return ctx.unsupported(api, row.target, like=original)


class _Name:
    """One torch.cuda name as found before any area wrote: where it lives, torch's object,
    its row (None: the rule decides), the owner of a rule decision, and the top-level name
    it aliases (a submodule name bound to the same object as a top-level one)."""

    __slots__ = ("module", "name", "qualname", "original", "row", "rule_owner", "alias")

    def __init__(self, module, name, qualname, original, rule_owner, alias=None):
        self.module, self.name, self.qualname, self.original = module, name, qualname, original
        self.row, self.rule_owner, self.alias = table.row_for(qualname), rule_owner, alias


_scans = {}  # one scan shared by every owner of one activation (see _scan)


def _signature(cuda):
    modules = [cuda] + [sys.modules.get("torch.cuda." + s) for s in table.WALKED_SUBMODULES]
    return tuple((id(m), len(vars(m)), len(getattr(m, "__all__", None) or ()))
                 for m in modules if m is not None)


def _scan(cuda):
    """Every torch.cuda name the table or the rule handles, computed once and reused while
    torch.cuda's namespaces keep their shape (areas replace names, they never add any);
    a revert forgets it."""
    key = _signature(cuda)
    cached = _scans.get("last")
    if cached is not None and cached[0] == key:
        return cached[1]
    names, top_of = [], {}
    for name in sorted(api_names(cuda) | {n for n in table.PRIVATE if hasattr(cuda, n)}):
        original = getattr(cuda, name)
        top_of.setdefault(id(original), name)
        names.append(_Name(cuda, name, name, original, table.DEFAULT_OWNER))
    for sub in table.WALKED_SUBMODULES:
        # Only submodules torch already imported: importing one here would leave a new
        # torch.cuda attribute behind after revert. Later imports keep torch's own names.
        module = sys.modules.get("torch.cuda." + sub)
        if module is None:
            continue
        walked = sub in table.SUBMODULES  # every API name; torch.cuda.amp: its rows only
        rowed = {k.split(".", 1)[1] for k in table.SUB
                 if k.startswith(sub + ".") and hasattr(module, k.split(".", 1)[1])}
        for name in sorted(rowed | (api_names(module) if walked else set())):
            original = getattr(module, name)
            names.append(_Name(module, name, "%s.%s" % (sub, name), original,
                               table.owner_of_submodule(sub) if walked else None,
                               top_of.get(id(original))))
    _scans["last"] = (key, names)
    return names


def plan(ctx, emulations):
    """[(module, name, value)] for the rows ``ctx.area`` owns, and their coverage."""
    owner = ctx.area
    writes, cover, built = [], {}, {}
    for entry in _scan(ctx.torch.cuda):
        row, how, qualname = entry.row, "table", entry.qualname
        if row is None and entry.alias is not None:
            # same object as a top-level name: that name's row and the same replacement
            alias_row = table.row_for(entry.alias)
            if (alias_row.area if alias_row else table.DEFAULT_OWNER) == owner:
                if id(entry.original) in built:
                    writes.append((entry.module, entry.name, built[id(entry.original)]))
                cover[qualname] = cover.get(entry.alias, (alias_row.kind if alias_row
                                                          else table.MAPPED, "table"))
            continue
        if row is None:
            if entry.rule_owner != owner:
                continue
            row, how = _rule_row(ctx, qualname, entry.original), "rule"
            if row is None:
                continue
        elif row.area != owner:
            continue
        value = _value(ctx, qualname, row, entry.original, emulations, cover, how)
        if value is not None:
            writes.append((entry.module, entry.name, value))
            if entry.module is ctx.torch.cuda:
                built[id(entry.original)] = value
    return writes, cover


def apply_rows(ctx, emulations=None):
    """Write the torch.cuda rows ``ctx.area`` owns (``emulations``: builder name ->
    builder(ctx)); returns the coverage of those rows."""
    writes, cover = plan(ctx, emulations or {})
    for owner, name, value in writes:
        ctx.setattr(owner, name, value)
    ctx.on_revert(_scans.clear)
    ctx.setitem(_coverage, ctx.area, cover)
    return cover
