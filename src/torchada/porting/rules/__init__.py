"""CUDA -> MUSA porting rules, one data module per API domain.

Each domain module defines ``DOMAIN`` and any of:
  IDENTIFIERS       {cuda: musa}  whole-identifier renames
  PREFIXES          {cuda_prefix: musa_prefix}  identifiers starting with the key
  LITERALS          {text: text}  qualified names such as ``at::cuda`` (whole identifiers at both ends)
  INCLUDES          {header: header}  exact paths inside #include <...> / "..."
  INCLUDE_PREFIXES  {dir/: dir/}  path prefixes inside #include
  NOOP_CALLS        {function: replacement}  ``f()`` calls replaced as a whole
  DISPATCH_MACROS   macro names whose ``CUDA`` key argument becomes PrivateUse1
  LIBRARIES         {cuda lib: musa lib}  for ``libraries=[...]`` of extensions
  NOT_EVIDENCED     keys whose MUSA name torch_musa 2.7.1 does not show (see the module)
This package is imported by the porter, by torchada.naming and by the build
integration; it is stdlib-only and never imports torch.
"""
import importlib

DOMAINS = (
    "aten", "c10", "cuda_runtime", "cuda_driver", "cublas", "cudnn", "cufft", "curand",
    "cusolver", "cusparse", "nccl", "nvjpeg", "libtorch_stable", "flashinfer", "cutlass",
    "thrust", "cuda_arch", "compiler", "data_types",
)
_KINDS = ("IDENTIFIERS", "PREFIXES", "LITERALS", "INCLUDES", "INCLUDE_PREFIXES",
          "NOOP_CALLS", "LIBRARIES")


class RuleTables:
    """Merged tables: every value is (replacement, domain)."""

    def __init__(self):
        self.modules = {}
        for kind in _KINDS:
            setattr(self, kind.lower(), {})
        self.dispatch_macros = {}
        for name in DOMAINS:
            mod = importlib.import_module(__name__ + "." + name)
            self.modules[name] = mod
            for kind in _KINDS:
                table = getattr(self, kind.lower())
                for key, value in getattr(mod, kind, {}).items():
                    if key in table:
                        raise ValueError("rule %s %r defined by both %s and %s"
                                         % (kind, key, table[key][1], name))
                    table[key] = (value, name)
            for macro in getattr(mod, "DISPATCH_MACROS", ()):
                self.dispatch_macros[macro] = name

    def counts(self):
        """{domain: number of rules} over every kind of rule."""
        out = {name: 0 for name in DOMAINS}
        for kind in _KINDS:
            for _, domain in getattr(self, kind.lower()).values():
                out[domain] += 1
        for domain in self.dispatch_macros.values():
            out[domain] += 1
        from . import cuda_arch
        out["cuda_arch"] += len(cuda_arch.ARCH_TABLE)  # one comparison rule per arch tier
        return out

    def not_evidenced(self):
        out = {}
        for name, mod in self.modules.items():
            out[name] = frozenset(getattr(mod, "NOT_EVIDENCED", ()))
        return out


_TABLES = None


def tables():
    global _TABLES
    if _TABLES is None:
        _TABLES = RuleTables()
    return _TABLES
