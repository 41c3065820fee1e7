"""One journal for every write an area makes, so a half-applied area rolls back whole."""

import types

from torchada._core import trace as _trace

_MISSING = object()


class Journal:
    """Records (owner, name, old value) for each write; ``revert`` undoes them in reverse."""

    def __init__(self, area):
        self.area = area
        self.notes = []  # lines ``torchada status`` shows beside the area
        self.writes = 0  # attribute and item writes (undo steps also count on_revert hooks)
        self._undo = []

    def note(self, text):
        """A status line: a string, or a function returning one (called by status)."""
        self.notes.append(text if callable(text) else str(text))

    def savepoint(self):
        """A mark ``rollback`` undoes back to (one fix unit's writes and notes)."""
        return len(self._undo), self.writes, len(self.notes)

    def rollback(self, mark):
        """Undo the steps recorded since ``mark``, newest first; returns the errors met."""
        steps, writes, notes = mark
        errors = []
        while len(self._undo) > steps:
            try:
                self._undo.pop()()
            except Exception as exc:  # keep undoing the rest
                errors.append(exc)
        self.writes = writes
        del self.notes[notes:]
        return errors

    def __len__(self):
        return len(self._undo)

    def setattr(self, owner, name, value):
        if _trace.ENABLED:  # decided once at activation: off, the area's object goes in as is
            value = _trace.wrap(owner, name, value)
        old = owner.__dict__.get(name, _MISSING) if _has_dict(owner) else getattr(owner, name, _MISSING)
        setattr(owner, name, value)
        self.writes += 1
        self._undo.append(lambda: _restore_attr(owner, name, old))
        return old if old is not _MISSING else None

    def setitem(self, mapping, key, value):
        old = mapping.get(key, _MISSING)
        mapping[key] = value
        self.writes += 1
        self._undo.append(lambda: _restore_item(mapping, key, old))

    def on_revert(self, callback):
        self._undo.append(callback)

    def revert(self):
        """Undo every recorded step, newest first; returns the errors met (never raises)."""
        errors = []
        while self._undo:
            step = self._undo.pop()
            try:
                step()
            except Exception as exc:  # keep undoing the rest
                errors.append(exc)
        return errors


def _has_dict(owner):
    # Classes and modules (ModuleType subclasses included, e.g. torch's PropModule behind
    # torch.backends.cudnn): look in their own __dict__ so inherited or forwarded attributes
    # are not copied down, and revert deletes what was not there.
    return isinstance(owner, (type, types.ModuleType))


def _restore_attr(owner, name, old):
    if old is _MISSING:
        try:
            delattr(owner, name)
        except AttributeError:
            pass
    else:
        setattr(owner, name, old)


def _restore_item(mapping, key, old):
    if old is _MISSING:
        mapping.pop(key, None)
    else:
        mapping[key] = old
