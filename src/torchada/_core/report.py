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
    note: Optional[str] = None  # what an applied area chose (its ctx.note lines)
    fixes: list = field(default_factory=list)  # [{"name", "state", "reason"}] per fix unit
    # a row that fires per trigger: [{"name": trigger, "state", "reason", "note"}] each
    fired: list = field(default_factory=list)


@dataclass
class Report:
    platform: str
    active: bool
    reason: str
    torch_version: Optional[str]
    torch_musa_version: Optional[str]
    areas: List[AreaStatus] = field(default_factory=list)
    torchada_version: str = field(default_factory=lambda: _own_version())
    simulated: bool = False  # torch_musa is torchada's simulator

    def by_state(self, state):
        return [a.name for a in self.areas if a.state == state]

    def to_json(self):
        return json.dumps(asdict(self), indent=2, default=str)

    def __str__(self):
        musa = self.torch_musa_version or "not imported"
        if self.simulated and self.torch_musa_version:
            musa += (" (simulated: torch_musa 2.7.1's API, labelled for this torch; "
                     "TORCHADA_SIM_TORCH_MUSA_VERSION picks the release)")
        lines = [
            "torchada status",
            "  torchada   : %s" % self.torchada_version,
            "  platform   : %s (%s)" % (self.platform, self.reason),
            "  active     : %s" % ("yes" if self.active else "no"),
            "  torch      : %s" % (self.torch_version or "not imported"),
            "  torch_musa : %s" % musa,
        ]
        reasons = {(a.state, a.reason) for a in self.areas}
        if not self.active and len(reasons) == 1 and self.areas:
            # Off MUSA every area is skipped for the one reason the platform line gives.
            state, reason = reasons.pop()
            lines.append("  areas      : all %d %s - %s" % (len(self.areas), state, reason))
            lines.append("  hint       : torchada changes nothing here. To try a CUDA program on "
                         "the simulated MUSA device: torchada run --simulate PROG; "
                         "--json lists every area")
            return "\n".join(lines)
        lines.append("  areas      :")
        width = max([22] + [len(a.name) for a in self.areas])  # the state column lines up
        fired = max([20] + [len(x["name"]) for a in self.areas for x in a.fired])  # triggers
        for a in self.areas:
            detail = " - %s" % a.reason if a.reason else ""
            timing = " (%.1f ms, %d writes)" % (a.seconds * 1e3, a.writes) if a.state == "applied" else ""
            note = " [%s]" % a.note if a.note else ""
            lines.append("    %-*s %-8s%s%s%s" % (width, a.name, a.state, timing, detail, note))
            for one in a.fired:
                detail = " - %s" % one["reason"] if one["reason"] else ""
                note = " [%s]" % one["note"] if one["note"] else ""
                lines.append("      %-*s %-8s%s%s" % (fired, one["name"], one["state"], detail, note))
            for fix in a.fixes:
                detail = " - %s" % fix["reason"] if fix["reason"] else ""
                lines.append("      %-20s %-8s%s" % (fix["name"], fix["state"], detail))
        return "\n".join(lines)


def _own_version():
    from torchada import __version__

    return __version__


def build_report():
    import torchada_boot
    from torchada._core import activation

    platform, reason = torchada_boot.activate()
    versions = [getattr(sys.modules.get(m), "__version__", None) for m in ("torch", "torch_musa")]
    simulated = getattr(sys.modules.get("torch_musa"), "_sim", None) is not None
    registry = activation.registry
    if registry is None:
        why = "torchada inactive: %s" % reason
        areas = [AreaStatus(n, "skipped", why) for n in activation.area_names()]
        return Report(platform or _seen_platform(), False, reason, *versions, areas=areas,
                      simulated=simulated)
    grouped = {}
    for record in registry.records:  # a per-trigger row has one record per trigger
        grouped.setdefault(record.name, []).append(record)
    areas = [_area_status(records) for records in grouped.values()]
    return Report(platform, True, reason, *versions, areas=areas, simulated=simulated)


# The state a per-trigger area shows: its most telling trigger's.
_RANK = ("applied", "failed", "applying", "pending", "reverted", "skipped")


def _area_status(records):
    first = records[0]
    fixes = [{"name": n, "state": st, "reason": why} for n, (st, why) in first.fix_states.items()]
    if first.fired_by is None:
        return AreaStatus(first.name, first.state, first.reason, first.triggers,
                          first.seconds, first.writes, _note(first), fixes)
    fired = [{"name": r.fired_by, "state": r.state, "reason": r.reason, "note": _note(r)}
             for r in records]
    state = min((r.state for r in records), key=_RANK.index)
    reasons = {r.reason for r in records if r.state == state}
    return AreaStatus(first.name, state, reasons.pop() if len(reasons) == 1 else None,
                      tuple(r.fired_by for r in records),
                      sum(r.seconds for r in records), sum(r.writes for r in records),
                      None, fixes, fired)


def _note(record):
    """The area's notes (``ctx.note``: strings, or functions called now) and the modules it
    supplied, joined; applied only."""
    if record.state != "applied":
        return None
    notes = [_text(n) for n in record.journal.notes]
    notes = [n for n in notes if n]
    if record.provided:  # modules the finder took from the area (manifest ``provides``)
        notes.append("supplied: %s" % ", ".join(record.provided))
    return "; ".join(notes) or None


def _text(note):
    if not callable(note):
        return note
    try:
        return note()
    except Exception as exc:  # a report must never raise
        return "note failed: %s" % exc


def _seen_platform():
    """Without a boot decision: what torch sees, if torch is imported (status never imports it)."""
    if "torch" not in sys.modules:
        return "auto (torch not imported)"
    from torchada.detection import detect_platform

    return detect_platform().value
