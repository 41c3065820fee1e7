"""The registry: every area, its state, and the loop that applies the ones that are due.

State lives under one RLock, but area code (and any import it does) runs outside it.
A thread-local flag makes ``process`` re-entrant: an area that imports a trigger module
while applying only marks the registry dirty, and the outer loop picks the new work up.
"""

import importlib
import logging
import sys
import threading
import time

from torchada._core import area_run
from torchada._core.area_run import one_line
from torchada._core.gate import module_version
from torchada._core.journal import Journal
from torchada._core.manifest import BEFORE_BACKEND
from torchada._core import settings

logger = logging.getLogger("torchada")

PENDING, APPLYING, APPLIED, SKIPPED, FAILED, REVERTED = (
    "pending", "applying", "applied", "skipped", "failed", "reverted")

_tls = threading.local()


class AreaRecord:
    """One area (or, for a row that fires per trigger, one trigger of it: ``fired_by``).
    Its module is imported lazily, on the first pass after torch is imported, so activation
    on MUSA costs no area imports at interpreter start."""

    __slots__ = ("name", "package", "module", "triggers", "gate", "phase", "state", "reason",
                 "seconds", "journal", "writes", "fixes", "fix_states", "provides", "provided",
                 "fired_by", "units")

    def __init__(self, area, package, fired_by=None):
        self.name, self.package = area.name, package
        self.fired_by = fired_by
        self.triggers = (fired_by,) if fired_by else tuple(area.triggers)
        self.provides = frozenset(area.provides)
        self.provided = []  # module names the area supplied (shown by status)
        self.gate, self.phase = area.gate(fired_by), area.phase
        self.fixes = dict(zip(area.fix_names(), area.fixes))  # "<area>.<fix>" -> Fix
        # "<area>.<fix>" -> (state, reason); pending until the area runs
        self.fix_states = {full: (PENDING, None) for full in self.fixes}
        self.module = self.journal = self.units = None
        self.state, self.reason = PENDING, None
        self.seconds, self.writes = 0.0, 0

    def load(self):
        """Import the area module; False (and the area failed) when it cannot be loaded."""
        if self.module is not None:
            return True
        try:
            module = importlib.import_module("%s.%s" % (self.package, self.name))
            # the row's fixes and the module's @_kit.fix units, one to one
            self.units = area_run.check_shape(module, [f.name for f in self.fixes.values()])
        except Exception as exc:  # a broken area module costs that area only
            self.state, self.reason = FAILED, "cannot load area module: " + one_line(exc)
            logger.warning("torchada: area %r %s. The program continues without it; silence "
                           "this with %s=%s", self.name, self.reason, settings.DISABLE_AREAS_VAR,
                           self.name)
            return False
        self.module = module
        return True


def loading():
    """Names whose module body has run in this thread but whose import has not returned yet."""
    names = getattr(_tls, "loading", None)
    if names is None:
        names = _tls.loading = set()
    return names


def module_ready(name):
    if name in loading():
        return True
    module = sys.modules.get(name)
    if module is None:
        return False
    return not getattr(getattr(module, "__spec__", None), "_initializing", False)


class Registry:
    def __init__(self, platform, areas, package="torchada.areas"):
        """``areas``: manifest rows (torchada._core.manifest.Area), in application order."""
        self.platform = platform
        self._lock = threading.RLock()
        self.records = [AreaRecord(area, package, trigger)
                        for area in areas
                        for trigger in (area.triggers if area.per_trigger else (None,))]
        self.triggers = frozenset(t for r in self.records for t in r.triggers)
        self.provided = frozenset(n for r in self.records for n in r.provides)
        known = {r.name for r in self.records} | {f for r in self.records for f in r.fixes}
        self._disabled = disabled = settings.disabled_areas(known)
        for record in self.records:
            if record.name in disabled:
                record.state, record.reason = SKIPPED, "disabled by %s" % settings.DISABLE_AREAS_VAR
        self.backend_error = None
        self._backend_tried = False

    # -- applying -------------------------------------------------------------------------
    def process(self):
        """Apply every pending area whose trigger (and torch) is fully imported."""
        if getattr(_tls, "busy", False):
            return  # re-entered from an area's own imports: the outer loop rescans
        _tls.busy = True
        try:
            if self.platform == "musa" and module_ready("torch"):
                if not self._backend_tried:
                    self._run_before_backend()
                self._load_backend()  # torch.musa exists as soon as torch is imported
            progressed = True
            while progressed:
                progressed = False
                for record in self.records:
                    if self._claim(record):
                        self._run(record)
                        progressed = True
        finally:
            _tls.busy = False

    def _run_before_backend(self):
        """Areas of the before-backend phase (environment mirroring) run once torch is
        imported but before torch_musa, which reads its environment at import."""
        for record in self.records:
            if record.phase == BEFORE_BACKEND and record.state == PENDING and self._claim(record):
                self._run(record, before_backend=True)

    def _claim(self, record):
        with self._lock:
            if record.state != PENDING or not module_ready("torch"):
                return False
            if not any(module_ready(t) for t in record.triggers):
                return False
            record.state = APPLYING
            return True

    def _run(self, record, before_backend=False):
        started = time.perf_counter()
        if self.platform == "musa" and not before_backend and self._load_backend():
            self._finish(record, SKIPPED, "torch_musa unavailable (%s)" % self.backend_error,
                         started)
            return
        if not record.load():
            return
        reason = self._gate_reason(record)
        if reason is not None:
            self._finish(record, SKIPPED, reason, started)
            return
        journal = Journal(record.name)
        fixes = self._decide_fixes(record)
        trigger = record.fired_by or next((t for t in record.triggers if module_ready(t)), None)
        try:
            unit_states = area_run.run(record.module, journal, fixes, trigger, record.name)
        except Exception as exc:
            errors = journal.revert()
            error = one_line(exc)
            extra = " (and %d rollback errors)" % len(errors) if errors else ""
            self._finish(record, FAILED, error, started)
            logger.warning(
                "torchada: area %r failed and was rolled back%s: %s. The program continues "
                "without it; silence this with %s=%s",
                record.name, extra, error, settings.DISABLE_AREAS_VAR, record.name)
            return
        record.journal, record.writes = journal, journal.writes
        for name, state in unit_states.items():
            record.fix_states["%s.%s" % (record.name, name)] = state
        self._finish(record, APPLIED, None, started)

    def _decide_fixes(self, record):
        """Gate each fix unit of an area about to apply; returns the names that may apply."""
        enabled = []
        for full, fix in record.fixes.items():
            if full in self._disabled:
                reason = "disabled by %s" % settings.DISABLE_AREAS_VAR
            else:
                try:
                    reason = fix.gate(record.gate.platforms).check(
                        self.platform, module_version("torch"), module_version("torch_musa"))
                except Exception as exc:  # a broken gate skips its fix, nothing more
                    reason = "gate check raised %s: %s" % (type(exc).__name__, exc)
            record.fix_states[full] = (APPLYING, None) if reason is None else (SKIPPED, reason)
            if reason is None:
                enabled.append(fix.name)
        return enabled

    def _finish(self, record, state, reason, started):
        with self._lock:
            record.state, record.reason = state, reason
            record.seconds = time.perf_counter() - started
            for full, (fix_state, _) in record.fix_states.items():
                if fix_state in (PENDING, APPLYING):  # the fix follows its area
                    why = reason if fix_state == APPLYING else "area %s %s" % (record.name, state)
                    record.fix_states[full] = (state, why)

    def _gate_reason(self, record):
        try:
            return record.gate.check(self.platform, module_version("torch"),
                                     module_version("torch_musa"))
        except Exception as exc:  # a broken probe skips its area, nothing more
            return "gate check raised %s: %s" % (type(exc).__name__, exc)

    def _load_backend(self):
        """Import torch_musa once, after torch; its failure skips the MUSA areas."""
        if not self._backend_tried:
            self._backend_tried = True
            try:
                importlib.import_module("torch_musa")
            except BaseException as exc:  # SystemExit from a broken build too
                if isinstance(exc, KeyboardInterrupt):
                    raise
                self.backend_error = one_line(exc)
                logger.warning(
                    "torchada: importing torch_musa failed (%s); CUDA APIs are not mapped to "
                    "MUSA. Fix the torch_musa install, or silence this with TORCHADA_PLATFORM=off",
                    self.backend_error)
        return self.backend_error

    def provide(self, fullname, real_spec):
        """The spec an area supplies for ``fullname`` (a manifest ``provides`` name), or None
        to keep ``real_spec``. Gated like the area; a disabled or failed area supplies nothing."""
        for record in self.records:
            if fullname not in record.provides or record.state in (SKIPPED, FAILED, REVERTED):
                continue
            if self._gate_reason(record) is not None or not record.load():
                return None
            provide = getattr(record.module, "provide", None)
            spec = provide(fullname, real_spec) if provide is not None else None
            if spec is not None and fullname not in record.provided:
                record.provided.append(fullname)
            return spec
        return None

    # -- undoing --------------------------------------------------------------------------
    def revert(self, names=None):
        """Undo applied areas (all, or those named), newest first; they stay reverted."""
        for record in reversed(self.records):
            if names is not None and record.name not in names:
                continue
            with self._lock:
                if record.state != APPLIED:
                    continue
                record.state = REVERTED
            errors = record.journal.revert()
            if errors:
                logger.warning("torchada: reverting area %r met %d errors: %s",
                               record.name, len(errors), errors[0])

    def reapply(self, names=None):
        with self._lock:
            for record in self.records:
                if record.state == REVERTED and (names is None or record.name in names):
                    record.state = PENDING
        self.process()
