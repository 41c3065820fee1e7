"""Records of originals and the batch write: the porter's disk IO.

Every port that changes a file first records the bytes it read (the file's content just
before that port), with their mode and times, under ``<user cache>/port-records`` (0o700,
outside the user's tree), so ``revert`` gives back the newest content the user had before
each port, byte for byte (docs/porting.md, "Revert"). Revert writes what is there back into
the user's tree, so the folder is held to the native cache's trust rules
(``native_cache.trusted_dir``, torchada's one folder policy: a real folder of this user's or
root's that nobody else can write, in folders nobody else can swap) before anything in it is read or written; an existing one
that others can read is made 0o700 (it holds copies of the user's sources). The new file
keeps the old one's owner, group and extended attributes (``file_meta``). A run's writes are staged (``Batch``)
and made visible together: a crash leaves every file either old or new, with its original
recorded and synced first, and a run that stops leaves nothing behind.

Layout: ``<id>-<run token>.orig`` holds one port's original: a hard link to the original's
inode when the file had no other link and the cache is on the same file system (the port
replaces the file by a new inode, so the old one stays unchanged at no copy), else a copy.
A link counts only when it is checked to be the very file that was read (device, inode,
size, mtime). Its metadata (path, SHA-256 of the original and of the ported content, the
original's mode and times, the ``orig`` file name) is one entry of the run's index,
``run-<time>-<token>.index`` (JSON, ``{id: metadata}``): one file per run, not one per
ported file, because creating files is what a port of thousands of sources spends its
time on (docs/porting.md, "Speed and reach"). A file ported by several runs has one entry
per run: its stack of records, oldest first.

Older layouts are still read and reverted: ``<id>.json`` files (one per record) and index
entries without ``orig`` (their original is ``<id>.orig``, shared by every run that ported
the file again); for one id these count as one record, the newest entry, below any newer
ones. The original's SHA-256 is checked before every revert.
"""
import hashlib
import json
import os
import secrets
import stat
import time

from torchada._core.files import discard, fsync_dir, temp_beside, temp_name, write_atomic

from .file_meta import carry, kept_mode
from .report import PortError

# Above this many files or folders, commit syncs them from a few threads: fsync waits on
# the disk with the GIL released, and the file system batches concurrent syncs in one
# journal commit (measured on this project's VM: a folder's fsync alone costs about 5 ms,
# a journal commit; a port touching 760 folders spent 3.8 s syncing them one by one).
_PARALLEL_SYNC_MIN = 16
_SYNC_THREADS = 8


RECORDS = "port-records"


def records_path():
    """Where the records live (for messages; not checked)."""
    from torchada._core.files import user_cache_root

    return os.path.join(user_cache_root(), RECORDS)


def records_dir(create=False):
    """The records folder after the trust checks (see the module); without ``create`` a
    missing folder's path (nothing there to trust). PortError naming the folder and the fix
    when it fails them: nothing is recorded or reverted from a folder others could write."""
    from torchada._core.native_cache import CacheRefused, trusted_dir

    try:
        path = trusted_dir(RECORDS, create=create)
    except FileNotFoundError:
        return records_path()
    except CacheRefused as exc:
        raise PortError("%s. The porter keeps the originals it restores there: it records and "
                        "reverts nothing until then" % str(exc).rstrip(".")) from None
    if stat.S_IMODE(os.lstat(path).st_mode) & 0o077:  # others may read users' sources
        os.chmod(path, 0o700)
    return path


def file_id(path):
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:40]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def signature(st):
    """What must not change between reading a file and replacing it (or recording it)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class FileChanged(Exception):
    """The file on disk is no longer the one that was read: it is not ported."""


def fsync_file(path):
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_files(paths, sync=fsync_file):
    """``sync`` (fsync_file, or fsync_dir for folders) each of ``paths``, from threads
    when there are many (see _PARALLEL_SYNC_MIN)."""
    paths = list(paths)
    if len(paths) < _PARALLEL_SYNC_MIN:
        for path in paths:
            sync(path)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(_SYNC_THREADS, len(paths))) as pool:
        for _ in pool.map(sync, paths):
            pass


class Batch:
    """The writes of one port run, staged while files are still being ported and made
    visible together by ``commit``; ``discard`` leaves no trace (the user's tree and the
    records as they were).

    Staged: each record's original (a link or a copy) and each new content, as temporary
    files beside their final names, not yet synced; the metadata in memory. ``stage`` only
    writes and returns what it wrote, so forked workers stage their own files (no bytes
    travel back) and the parent ``keep``s them. Every temporary name starts with this run's
    prefix, so ``sweep`` finds those of a worker that stopped before reporting them.

    Commit: every temporary fsynced (the linked originals' inodes included); the run's index
    written and synced; the originals and the index renamed into place and their folder
    synced; then each file, if it is still the file that was read (device, inode, size,
    mtime), renamed over its target (one that changed is left alone, its record dropped and
    its path returned); one directory sync per directory. A crash leaves every file old or
    new, and never a new file whose original is not durably recorded. No system-wide sync."""

    def __init__(self, record=True):
        self.record = record
        self.prefix = ".torchada-%s-" % secrets.token_hex(6)
        self.token = self.prefix[len(".torchada-"):-1]
        self.records = []  # (temp, final) of originals
        self.metas = {}    # id -> metadata of this run's index
        self.files = []    # (temp, target, signature when read, id or None)
        self.rdir = records_dir(create=True) if record else None

    def stage(self, path, original, data, st):
        """Write the temporaries for one changed file: ([(temp, final) of its original],
        (id, metadata) or None, (temp, target, signature, id)). ``st``: the file's stat
        result taken when ``original`` was read. A file with no other hard link is recorded
        by a link, kept only if it is that same file (else FileChanged: the file was
        replaced or changed since it was read); with another link, by a copy of
        ``original`` (the other link could change under the record). Nothing is kept
        here; a failure removes what it wrote."""
        records, meta, temp = [], None, None
        sig = signature(st)
        try:
            if self.record:
                meta = self._stage_record(path, original, data, st, records)
            mode, note = kept_mode(st.st_mode)
            temp = temp_beside(path, data, mode, False, prefix=self.prefix)
            notes = ([note] if note else []) + ["%s not kept" % what
                                                for what in carry(st, path, temp)]
            return records, meta, (temp, path, sig, meta[0] if meta else None), notes
        except BaseException:
            for tmp, _ in records:
                discard(tmp)
            if temp is not None:
                discard(temp)
            raise

    def keep(self, staged):
        """Take over what ``stage`` wrote (its notes are the caller's to report)."""
        records, meta, file_entry = staged[:3]
        self.records += records
        if meta is not None:
            self.metas[meta[0]] = meta[1]
        self.files.append(file_entry)

    def _stage_record(self, path, original, ported, st, out):
        fid = file_id(path)
        name = "%s-%s.orig" % (fid, self.token)
        orig_path = os.path.join(self.rdir, name)
        tmp = self._link(path, orig_path, st) if st.st_nlink == 1 else None
        if tmp is None:
            tmp = temp_beside(orig_path, original, 0o600, False, prefix=self.prefix)
        out.append((tmp, orig_path))
        return fid, {"path": path, "orig": name, "original_sha256": sha256(original),
                     "ported_sha256": sha256(ported), "mode": stat.S_IMODE(st.st_mode),
                     "atime_ns": st.st_atime_ns, "mtime_ns": st.st_mtime_ns,
                     "created": time.time()}

    def _link(self, path, final, st):
        """A hard link to ``path`` beside ``final`` (named by this run's prefix) that is
        checked to be the file read as ``st``; None where the file system has no links
        (the caller copies). FileChanged when ``path`` is another file now."""
        while True:
            tmp = temp_name(final, self.prefix)
            try:
                os.link(path, tmp, follow_symlinks=False)
                break
            except FileExistsError:  # left by an earlier process with the same id
                continue
            except NotImplementedError:
                return None
            except OSError:  # another file system, no hard links: copy
                return None
        try:
            linked = os.lstat(tmp)
        except OSError:
            linked = None
        if linked is None or not stat.S_ISREG(linked.st_mode) or signature(linked) != signature(st):
            discard(tmp)
            raise FileChanged(path)
        return tmp

    def discard(self):
        for tmp, _ in self.records:
            discard(tmp)
        for entry in self.files:
            discard(entry[0])
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
        """Make the staged writes visible (see the class); returns the targets left alone
        because they changed since they were read."""
        changed = []
        index = None
        try:
            fsync_files([tmp for tmp, _ in self.records] + [entry[0] for entry in self.files])
            if self.metas:
                index = os.path.join(self.rdir, "run-%d-%s.index" % (time.time_ns(), self.token))
                data = json.dumps(self.metas, indent=0).encode("utf-8")
                self.records.append((temp_beside(index, data, 0o600, True, prefix=self.prefix),
                                     index))
            for tmp, final in self.records:
                os.replace(tmp, final)
            if self.records:
                fsync_dir(self.rdir)
            for tmp, target, sig, fid in self.files:
                if signature_of(target) != sig:  # changed since it was read: left alone
                    discard(tmp)
                    changed.append((target, fid))
                    continue
                os.replace(tmp, target)
        except BaseException:
            self.discard()  # temps not renamed yet; a renamed one is already in place
            raise
        fsync_files(sorted({os.path.dirname(entry[1]) for entry in self.files}), fsync_dir)
        if changed and index is not None:
            self._drop(index, [fid for _, fid in changed if fid is not None])
        self.records, self.metas, self.files = [], {}, []
        return [target for target, _ in changed]

    def _drop(self, index, fids):
        """Remove the just committed records of files that were not replaced after all."""
        kept = {fid: meta for fid, meta in self.metas.items() if fid not in fids}
        if kept:
            write_atomic(index, json.dumps(kept, indent=0).encode("utf-8"), mode=0o600)
        else:
            discard(index)
        for fid in fids:
            discard(os.path.join(self.rdir, self.metas[fid]["orig"]))


def signature_of(path):
    """``signature`` of what is at ``path`` now (never following a link), None if nothing."""
    try:
        return signature(os.lstat(path))
    except OSError:
        return None


def _load(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _orig_name(fid, meta):
    """The records-folder file name of an entry's original (a plain name, never a path)."""
    name = meta.get("orig")
    if isinstance(name, str) and name.endswith(".orig") and os.path.basename(name) == name:
        return name
    return fid + ".orig"


def list_records():
    """Every record entry: its metadata plus ``_id``, ``_index`` (the index file holding
    it, None for a one-file record) and ``_orig`` (the path of its original). Grouped by
    id (sorted), oldest first within an id: a file's stack of records."""
    rdir = records_dir()
    if not os.path.isdir(rdir):
        return []
    names = sorted(os.listdir(rdir))
    legacy, stacks = {}, {}
    for name in names:  # one file per record (older torchada)
        if name.endswith(".json"):
            meta = _load(os.path.join(rdir, name))
            if isinstance(meta, dict) and isinstance(meta.get("path"), str):
                legacy[name[:-5]] = dict(meta, _id=name[:-5], _index=None)
    for name in names:  # run indexes, oldest first (the name starts with the time)
        if name.startswith("run-") and name.endswith(".index"):
            index = _load(os.path.join(rdir, name))
            if not isinstance(index, dict):
                continue
            for fid, meta in index.items():
                if not isinstance(meta, dict) or not isinstance(meta.get("path"), str):
                    continue
                entry = dict(meta, _id=fid, _index=name)
                if "orig" in meta:
                    stacks.setdefault(fid, []).append(entry)
                else:  # older layout: one shared <id>.orig, the newest entry counts
                    legacy[fid] = entry
    out = []
    for fid in sorted(set(legacy) | set(stacks)):
        stack = ([legacy[fid]] if fid in legacy else []) + stacks.get(fid, [])
        for entry in stack:
            entry["_orig"] = os.path.join(rdir, _orig_name(fid, entry))
        out += stack
    return out


def forget(entries):
    """Delete record entries (each as list_records returns it): their entries in every run
    index, each index rewritten once (deleted when it empties), then their originals."""
    if isinstance(entries, dict):
        entries = [entries]
    if not entries:
        return
    rdir = records_dir()
    legacy = {e["_id"] for e in entries if "orig" not in e}
    by_index = {}
    for e in entries:
        if "orig" in e:
            by_index.setdefault(e["_index"], set()).add(e["_id"])
    for fid in legacy:
        discard(os.path.join(rdir, fid + ".json"))
    try:
        names = os.listdir(rdir)
    except OSError:
        names = []
    for name in names:
        if not (name.startswith("run-") and name.endswith(".index")):
            continue
        gone = by_index.get(name, set())
        if not gone and not legacy:
            continue
        path = os.path.join(rdir, name)
        index = _load(path)
        if not isinstance(index, dict):
            continue
        kept = {fid: meta for fid, meta in index.items()
                if not (fid in gone or (fid in legacy and isinstance(meta, dict)
                                        and "orig" not in meta))}
        if len(kept) == len(index):
            continue
        if kept:
            write_atomic(path, json.dumps(kept, indent=0).encode("utf-8"), mode=0o600)
        else:
            discard(path)
    for e in entries:
        discard(e["_orig"])
