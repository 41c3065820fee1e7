"""``revert_paths``: give back what the user had before each port (docs/porting.md, "Revert").

A file ported by several runs has a stack of records, one per port that changed it: the
content just before that port (byte for byte, with its mode and times) and the SHA-256 of
what the port wrote. Revert walks a file's stack from the newest record down:

* the file holds what that port wrote: the content before the port is restored (content,
  mode, mtime; atomically, synced) and the record dropped; the walk goes on;
* the file already holds the content before that port: the record is dropped, nothing
  written; the walk goes on;
* anything else (the user edited the file after that port): the walk stops. For the newest
  record that is a refusal naming the file and ``--force`` (``force`` restores that
  record's content anyway, overwriting the edits); for an older one, the file keeps the
  content just restored (the user's newest pre-port content) and the older records stay.

So a file ported, edited, ported again and reverted gets back its edited content (new
functions included), never the older original; a second revert refuses (the file is not
what the first port wrote) unless forced. Nothing recorded under the paths: ``nothing``.

The file is replaced only if it is still the one that was hashed (device, inode, size,
mtime, checked again just before the rename): an edit made meanwhile is never lost, the
file is left alone and named. The restored file gets the recorded mode without setuid,
setgid, sticky or write-for-others bits, and the current file's owner, group and extended
attributes; what could not be kept is in ``notes``.
"""
import os
from collections import namedtuple

from torchada._core.files import discard, fsync_dir, temp_beside

from .collect import within
from .file_meta import carry, kept_mode
from .reading import NotPorted, read_regular
from .records import forget, fsync_file, list_records, sha256, signature, signature_of
from .report import PortError


class RevertReport(namedtuple("RevertReport", "restored untouched conflicts")):
    """``restored``: paths written back; ``untouched``: paths already holding their content
    before the port; ``conflicts``: (path, reason) left alone. ``earlier``: (path, number
    of older records kept: the file was edited after those ports). ``records``: how many
    records were found under the paths (0: nothing to revert). ``notes``: (path, what the
    restored file could not keep: mode bits, owner, extended attributes)."""

    def __new__(cls, restored, untouched, conflicts, earlier=(), records=0, notes=()):
        self = super().__new__(cls, restored, untouched, conflicts)
        self.earlier = list(earlier)
        self.records = records
        self.notes = list(notes)
        return self


def revert_paths(paths, force=False):
    """Revert every recorded file under ``paths`` (see the module); returns a
    RevertReport, which unpacks as (restored, untouched, conflicts)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    roots = []
    for given in paths:
        given = os.fspath(given)
        if not os.path.lexists(given):
            raise PortError("%s does not exist: give the file or directory you ported" % given)
        roots.append(os.path.realpath(given))
    stacks = {}
    for entry in list_records():
        if any(within(entry["path"], r) for r in roots):
            stacks.setdefault(entry["_id"], []).append(entry)
    restored, untouched, conflicts, earlier, notes = [], [], [], [], []
    done = []  # forgotten together: a run index is rewritten once, not once per file
    try:
        for fid in sorted(stacks, key=lambda f: stacks[f][0]["path"]):
            _revert_file(stacks[fid], force, restored, untouched, conflicts, earlier, done,
                         notes)
    finally:
        forget(done)
    return RevertReport(restored, untouched, conflicts, earlier,
                        sum(len(s) for s in stacks.values()), notes)


def _revert_file(stack, force, restored, untouched, conflicts, earlier, done, notes):
    path = stack[-1]["path"]
    wrote = False
    left = len(stack)
    for entry in reversed(stack):
        try:
            data, st = read_regular(path)
            current = sha256(data)
        except FileNotFoundError:
            reason = "deleted since it was ported"
            break
        except NotPorted as exc:
            reason = "%s now" % str(exc).split(":")[0]
            break
        if current == entry["original_sha256"]:
            pass  # already the content before this port
        elif current == entry.get("ported_sha256") or (force and left == len(stack)):
            reason = _restore(path, entry, st, notes)
            if reason:
                break
            wrote = True
        else:
            reason = ("edited since it was ported (torchada port --revert --force %s restores "
                      "its content before that port; the edits are then lost)" % path)
            break
        done.append(entry)
        left -= 1
    if left == len(stack):
        conflicts.append((path, reason))
        return
    (restored if wrote else untouched).append(path)
    if left:
        earlier.append((path, left))


CHANGED_DURING_REVERT = ("changed while it was being reverted: left alone, your new content "
                         "is kept (run torchada port --revert again)")


def _restore(path, entry, st, notes):
    """Write back the content before ``entry``'s port, with its mode (masked) and times,
    over the file ``st`` describes (the one whose content was hashed); a reason string when
    the recorded original cannot be trusted or the file changed since it was hashed."""
    try:
        with open(entry["_orig"], "rb") as fh:
            original = fh.read()
    except OSError:
        return "the recorded original is missing"
    if sha256(original) != entry["original_sha256"]:
        return "the recorded original is damaged"
    mode = entry.get("mode")
    mode, note = kept_mode(mode if isinstance(mode, int) else st.st_mode)
    tmp = temp_beside(path, original, mode, False)
    try:
        lost = ["%s not kept" % what for what in carry(st, path, tmp)]
        times = (entry.get("atime_ns"), entry.get("mtime_ns"))
        if all(isinstance(t, int) for t in times):
            os.utime(tmp, ns=times)
        fsync_file(tmp)
        if signature_of(path) != signature(st):  # edited since it was hashed: keep the edit
            discard(tmp)
            return CHANGED_DURING_REVERT
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise
    fsync_dir(os.path.dirname(path))
    if note or lost:
        notes.append((path, "; ".join(([note] if note else []) + lost)))
    return None

