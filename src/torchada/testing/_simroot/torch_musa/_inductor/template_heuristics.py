"""torch_musa's own Inductor template heuristics for "musa" (from release 2.11.0.post2).

Modelled on torch_musa/_inductor/template_heuristics.py, called from
_init_inductor_backend_registration in torch_musa/_inductor/__init__.py at e205050
(2.11.0.post2): MUSA subclasses of Triton's config heuristic with the mm / bmm / addmm /
baddbmm / scaled_mm / int_mm / mm_plus_mm mixins are registered under "musa", and cached
"musa" lookups are dropped.  Releases before 2.11.0.post2 register none (seed fix table:
the inductor_heuristics area fills them).  The real registration runs at Inductor backend
registration; the simulator runs it when the registry module is imported, before any lookup.
"""


def _classes(triton):
    base = type("MUSAConfigHeuristic", (triton.BaseConfigHeuristic,), {})
    mm = type("MUSAMMTemplateConfigHeuristic", (triton.MMTemplateConfigMixin, base), {})
    addmm = type("MUSAAddMMTemplateConfigHeuristic", (triton.AddMMConfigMixin, mm), {})

    def configs(attr):
        def __init__(self):
            base.__init__(self)
            self.mm_configs = self.exhaustive_configs = getattr(self, attr)
        return __init__

    scaled = type("MUSAScaledMMTemplateConfigHeuristic", (triton.ScaledMMConfigMixin, base),
                  {"__init__": configs("scaled_mm_configs")})
    int8 = type("MUSAInt8MMTemplateConfigHeuristic", (triton.INT8MMTemplateConfigMixin, base),
                {"__init__": configs("int8_mm_configs")})
    plus = type("MUSAMMPlusMMTemplateConfigHeuristic",
                (triton.MMPlusMMTemplateConfigMixin, base),
                {"__init__": configs("mm_plus_mm_configs")})
    return base, mm, addmm, scaled, int8, plus


def register(_module=None):
    from torch._inductor.template_heuristics import registry
    from torch._inductor.template_heuristics import triton

    base, mm, addmm, scaled, int8, plus = _classes(triton)
    for cls in (base, mm, addmm, scaled, int8, plus):
        setattr(triton, cls.__name__, cls)
    rows = ((triton.mm_template.uid, None, mm), (triton.bmm_template.uid, None, mm),
            (triton.mm_template.uid, "addmm", addmm), (triton.bmm_template.uid, "baddbmm", addmm),
            (triton.mm_template.uid, "scaled_mm", scaled), (triton.mm_template.uid, "int_mm", int8),
            (triton.mm_plus_mm_template.uid, None, plus))
    for template, op_name, cls in rows:
        registry.register_template_heuristic(template, "musa", op_name=op_name)(cls)
    cache = getattr(registry, "_HEURISTIC_CACHE", None)
    if isinstance(cache, dict):
        for key in [k for k in cache if len(k) > 1 and k[1] == "musa"]:
            cache.pop(key, None)
