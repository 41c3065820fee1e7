"""Records of originals and the batch write: the porter's disk IO.

Before a file is first changed its original bytes are recorded under
``<user cache>/port-records`` (0o700, outside the user's tree), so ``revert`` restores it
byte for byte. A run's writes are staged (``Batch``) and made visible together: a crash
leaves every file either old or new, with its original recorded first, and a run that stops
leaves nothing behind.

Layout: ``<id>.orig`` holds a file's original: a hard link to the original's inode when the
file had no other link and the cache is on the same file system (the port replaces the
file by a new inode, so the old one stays unchanged at no copy), else a copy. Its metadata
(path, SHA-256 of the original and of the ported content) is one entry of the run's index,
``run-<time>-<token>.index`` (JSON, ``{id: metadata}``): one file per run, not one per
ported file, because creating files is what a port of thousands of sources spends its
time on (docs/porting.md, "Speed and reach"). ``<id>.json`` files, one per record, are
what torchada wrote before; they are still read and forgotten. Where one id has several
entries, the newest index wins. The original's SHA-256 is checked before every revert.
"""
import hashlib
import json
import os
import secrets
import stat
import time

from torchada._core.files import (discard, fsync_dir, private_dir, temp_beside, temp_name,
                                  write_atomic)

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

    Staged: each new record's original (a link or a copy) and each new content, as
    temporary files beside their final names, unsynced; the metadata in memory. ``stage``
    only writes and returns what it wrote, so forked workers stage their own files (no
    bytes travel back) and the parent ``keep``s them. Every temporary name starts with
    this run's prefix, so ``sweep`` finds those of a worker that stopped before reporting
    them. Commit: the run's index written; one ``os.sync()``; the originals and the index
    renamed into place and their folder synced; then each file renamed over its target;
    one directory sync per directory. A crash leaves every file old or new, and never a new
    file whose original is not recorded. Without ``os.sync`` (not POSIX) each temporary
    file is synced as it is written."""

    def __init__(self, record=True):
        self.record = record
        self.sync_each = not hasattr(os, "sync")
        self.prefix = ".torchada-%s-" % secrets.token_hex(6)
        self.records = []  # (temp, final) of originals
        self.metas = {}    # id -> metadata of this run's index
        self.files = []    # (temp, target)
        self.rdir = records_dir(create=True) if record else None
        # earlier records: a file ported again keeps its first original
        self.known = {m["_id"]: m for m in list_records()} if record else {}

    def add(self, path, original, data):
        self.keep(self.stage(path, original, data))

    def stage(self, path, original, data, st=None):
        """Write the temporaries for one changed file: ([(temp, final) of its original],
        (id, metadata) or None, (temp, target)). ``st``: the file's stat result taken when
        ``original`` was read; with it, a file with no other hard link is recorded by a
        link (by a copy otherwise: a link shared with another tree could change under the
        record). Nothing is kept here; a failure removes what it wrote."""
        records, meta = [], None
        try:
            if self.record:
                linkable = st is not None and st.st_nlink == 1
                meta = self._stage_record(path, original, data, records, linkable)
            mode = stat.S_IMODE(st.st_mode if st is not None else os.stat(path).st_mode)
            return records, meta, (self._temp(path, data, mode), path)
        except BaseException:
            for tmp, _ in records:
                discard(tmp)
            raise

    def keep(self, staged):
        records, meta, file_pair = staged
        self.records += records
        if meta is not None:
            self.metas[meta[0]] = meta[1]
        self.files.append(file_pair)

    def _stage_record(self, path, original, ported, out, linkable):
        fid = file_id(path)
        old = self.known.get(fid)
        if old is not None:
            meta = {k: v for k, v in old.items() if not k.startswith("_")}
        else:
            orig_path = os.path.join(self.rdir, fid + ".orig")
            out.append((self._temp(orig_path, original, 0o600, link_from=path if linkable else None),
                        orig_path))
            meta = {"path": path, "original_sha256": sha256(original), "created": time.time()}
        meta["ported_sha256"] = sha256(ported)
        return fid, meta

    def _temp(self, final, data, mode, link_from=None):
        """A new temporary beside ``final`` holding ``data``, or, with ``link_from``, a hard
        link to that file where the file system allows (named by this run's prefix)."""
        while link_from is not None:
            tmp = temp_name(final, self.prefix)
            try:
                os.link(link_from, tmp)
                return tmp
            except FileExistsError:  # left by an earlier process with the same id
                continue
            except OSError:  # another file system, no hard links: copy
                break
        return temp_beside(final, data, mode, self.sync_each, prefix=self.prefix)

    def discard(self):
        for tmp, _ in self.records + self.files:
            discard(tmp)
        self.records, self.metas, self.files = [], {}, []

    def sweep(self, directories):
        """Remove this run's temporaries from ``directories`` and the records folder: those
        a worker wrote but never reported (it was stopped, or the run failed first)."""
        for directory in set(directories) | ({self.rdir} if self.rdir else set()):
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            for name in names:
                if name.startswith(self.prefix):
                    discard(os.path.join(directory, name))

    def commit(self):
        try:
            if self.metas:
                index = os.path.join(self.rdir, "run-%d-%s.index" % (time.time_ns(), self.prefix[10:-1]))
                data = json.dumps(self.metas, indent=0).encode("utf-8")
                self.records.append((self._temp(index, data, 0o600), index))
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
        self.records, self.metas, self.files = [], {}, []


def _load(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def list_records():
    """Every record, one per id (the newest entry): its metadata plus ``_id`` and
    ``_index`` (the index file holding it, None for a one-file record)."""
    rdir = records_dir()
    if not os.path.isdir(rdir):
        return []
    names = sorted(os.listdir(rdir))
    found = {}
    for name in names:  # one file per record (older torchada)
        if name.endswith(".json"):
            meta = _load(os.path.join(rdir, name))
            if isinstance(meta, dict):
                found[name[:-5]] = dict(meta, _id=name[:-5], _index=None)
    for name in names:  # run indexes, oldest first (the name starts with the time)
        if name.startswith("run-") and name.endswith(".index"):
            index = _load(os.path.join(rdir, name))
            if isinstance(index, dict):
                for fid, meta in index.items():
                    if isinstance(meta, dict):
                        found[fid] = dict(meta, _id=fid, _index=name)
    return [found[fid] for fid in sorted(found)]


def forget(metas):
    """Delete records (each given as list_records returns it): their originals, their
    one-file metadata and their entries in every run index, each index rewritten once
    (deleted when it empties)."""
    if isinstance(metas, dict):
        metas = [metas]
    rdir = records_dir()
    ids = {m["_id"] for m in metas}
    if not ids:
        return
    for fid in ids:
        discard(os.path.join(rdir, fid + ".json"))
    try:
        names = os.listdir(rdir)
    except OSError:
        names = []
    for name in names:
        if not (name.startswith("run-") and name.endswith(".index")):
            continue
        path = os.path.join(rdir, name)
        index = _load(path)
        if not isinstance(index, dict) or not ids & index.keys():
            continue
        kept = {fid: meta for fid, meta in index.items() if fid not in ids}
        if kept:
            write_atomic(path, json.dumps(kept, indent=0).encode("utf-8"), mode=0o600)
        else:
            discard(path)
    for fid in ids:
        discard(os.path.join(rdir, fid + ".orig"))

