"""``torchada.status()``: what was applied, skipped (why), failed (error) or is pending."""

import json
import sys
from dataclasses import asdict, dataclass, field
from typing import List, Optional


@dataclass
class AreaStatus:
    name: str
    state: str
    reason: Optional[str] = None
    triggers: tuple = ()
    seconds: float = 0.0
    writes: int = 0
    note: Optional[str] = None  # what an applied area chose (an area's status_note())
    fixes: list = field(default_factory=list)  # [{"name", "state", "reason"}] per fix unit


@dataclass
class Report:
    platform: str
    active: bool
    reason: str
    torch_version: Optional[str]
    torch_musa_version: Optional[str]
    areas: List[AreaStatus] = field(default_factory=list)

    def by_state(self, state):
        return [a.name for a in self.areas if a.state == state]

    def to_json(self):
        return json.dumps(asdict(self), indent=2, default=str)

    def __str__(self):
        lines = [
            "torchada status",
            "  platform   : %s (%s)" % (self.platform, self.reason),
            "  active     : %s" % ("yes" if self.active else "no"),
            "  torch      : %s" % (self.torch_version or "not imported"),
            "  torch_musa : %s" % (self.torch_musa_version or "not imported"),
            "  areas      :",
        ]
        for a in self.areas:
            detail = " - %s" % a.reason if a.reason else ""
            timing = " (%.1f ms, %d writes)" % (a.seconds * 1e3, a.writes) if a.state == "applied" else ""
            note = " [%s]" % a.note if a.note else ""
            lines.append("    %-22s %-8s%s%s%s" % (a.name, a.state, timing, detail, note))
            for fix in a.fixes:
                detail = " - %s" % fix["reason"] if fix["reason"] else ""
                lines.append("      %-20s %-8s%s" % (fix["name"], fix["state"], detail))
        return "\n".join(lines)


def build_report():
    import torchada_boot
    from torchada._core import activation

    platform, reason = torchada_boot.activate()
    versions = [getattr(sys.modules.get(m), "__version__", None) for m in ("torch", "torch_musa")]
    registry = activation.registry
    if registry is None:
        why = "torchada inactive: %s" % reason
        areas = [AreaStatus(n, "skipped", why) for n in activation.area_names()]
        return Report(platform or _seen_platform(), False, reason, *versions, areas=areas)
    areas = [AreaStatus(r.name, r.state, r.reason, r.triggers, r.seconds, r.writes, _note(r),
                        [{"name": n, "state": st, "reason": why}
                         for n, (st, why) in r.fix_states.items()])
             for r in registry.records]
    return Report(platform, True, reason, *versions, areas=areas)


def _note(record):
    """The area's notes (kit ``ctx.note``), the modules it supplied and its ``status_note()``,
    joined; applied only."""
    if record.state != "applied":
        return None
    notes = list(getattr(record.journal, "notes", ()))
    if record.provided:  # modules the finder took from the area (manifest ``provides``)
        notes.append("supplied: %s" % ", ".join(record.provided))
    dynamic = getattr(record.module, "status_note", None)
    if dynamic is not None:
        try:
            text = dynamic()
        except Exception as exc:  # a report must never raise
            text = "status_note failed: %s" % exc
        if text:
            notes.append(text)
    return "; ".join(notes) or None


def _seen_platform():
    """Without a boot decision: what torch sees, if torch is imported (status never imports it)."""
    if "torch" not in sys.modules:
        return "auto (torch not imported)"
    from torchada.detection import detect_platform

    return detect_platform().value
