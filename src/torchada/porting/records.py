"""Records of originals and the batch write: the porter's disk IO.

Before a file is first changed its original bytes are recorded under
``<user cache>/port-records`` (0o700, outside the user's tree), so ``revert`` restores it
byte for byte. A run's writes are staged (``Batch``) and made visible together: a crash
leaves every file either old or new, with its original recorded first, and a run that stops
leaves nothing behind.
"""
import hashlib
import json
import os
import stat
import time

from torchada._core.files import discard, fsync_dir, private_dir, temp_beside


def records_dir(create=False):
    return private_dir("port-records", create=create)


def file_id(path):
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:40]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class Batch:
    """The writes of one port run, staged while files are still being ported and made
    visible together by ``commit``; ``discard`` leaves no trace (the user's tree and the
    records as they were).

    Staged: each original's record (``.orig`` for a new record, the metadata JSON) and each
    new content, as temporary files beside their final names, unsynced. Commit: one
    ``os.sync()``; the records renamed into place and their folder synced; then each file
    renamed over its target; one directory sync per directory. A crash leaves every file old
    or new, and never a new file whose original is not recorded. Without ``os.sync`` (not
    POSIX) each temporary file is synced as it is written."""

    def __init__(self, record=True):
        self.record = record
        self.sync_each = not hasattr(os, "sync")
        self.records = []  # (temp, final), in the order they must appear
        self.files = []    # (temp, target)
        self.rdir = records_dir(create=True) if record else None

    def add(self, path, original, data):
        if self.record:
            self._stage_record(path, original, data)
        mode = stat.S_IMODE(os.stat(path).st_mode)
        self.files.append((temp_beside(path, data, mode, sync=self.sync_each), path))

    def _stage_record(self, path, original, ported):
        fid = file_id(path)
        meta_path = os.path.join(self.rdir, fid + ".json")
        if os.path.exists(meta_path):
            with open(meta_path, encoding="utf-8") as fh:
                meta = json.load(fh)
        else:
            orig_path = os.path.join(self.rdir, fid + ".orig")
            self.records.append((temp_beside(orig_path, original, 0o600, self.sync_each), orig_path))
            meta = {"path": path, "original_sha256": sha256(original), "created": time.time()}
        meta["ported_sha256"] = sha256(ported)
        data = json.dumps(meta, indent=1).encode("utf-8")
        self.records.append((temp_beside(meta_path, data, 0o600, self.sync_each), meta_path))

    def discard(self):
        for tmp, _ in self.records + self.files:
            discard(tmp)
        self.records, self.files = [], []

    def commit(self):
        try:
            if not self.sync_each and (self.records or self.files):
                os.sync()
            for tmp, final in self.records:
                os.replace(tmp, final)
            if self.records:
                fsync_dir(self.rdir)
            for tmp, target in self.files:
                os.replace(tmp, target)
        except BaseException:
            self.discard()  # temps not renamed yet; a renamed one is already in place
            raise
        for directory in sorted({os.path.dirname(p) for _, p in self.files}):
            fsync_dir(directory)
        self.records, self.files = [], []


def list_records():
    rdir = records_dir()
    out = []
    if not os.path.isdir(rdir):
        return out
    for name in sorted(os.listdir(rdir)):
        if name.endswith(".json"):
            try:
                with open(os.path.join(rdir, name), encoding="utf-8") as fh:
                    meta = json.load(fh)
            except (OSError, ValueError):
                continue
            meta["_id"] = name[:-5]
            out.append(meta)
    return out


def forget(meta):
    """Delete one record (its metadata and its copy of the original)."""
    for suffix in (".json", ".orig"):
        discard(os.path.join(records_dir(), meta["_id"] + suffix))
