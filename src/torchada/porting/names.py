"""One CUDA name -> its MUSA spelling through the porter's rule tables (identifiers,
prefixes, headers), optionally limited to some domains ("nccl", "cublas", ...).

Lives in the porter so its own modules (flags) use it without going through the public
``torchada.naming``, which wraps this: the dependency runs one way only."""


def convert(name, domains=None):
    """The MUSA spelling of ``name``, or ``name`` unchanged when no rule applies."""
    from torchada.porting.engine import default_porter

    if not isinstance(name, str):
        raise TypeError("expected a str name, got %s" % type(name).__name__)
    porter = default_porter()
    hit = porter.ident.get(name)
    if hit is not None:
        return hit[0] if domains is None or hit[1] in domains else name
    for prefix, (value, domain) in porter.prefixes.items():
        if name.startswith(prefix) and (domains is None or domain in domains):
            return value + name[len(prefix):]
    include = porter.map_include(name)
    if include is not None and (domains is None or include[1] in domains):
        return include[0]
    return name
