"""Records of originals and the batch write: the porter's disk IO.

Before a file is first changed its original bytes are recorded under
``<user cache>/port-records`` (0o700, outside the user's tree), so ``revert`` restores it
byte for byte. New contents are written beside their targets and renamed over them, so a
crash leaves every file either old or new, with its original recorded first.
"""
import hashlib
import json
import os
import stat
import time

from torchada._core.files import discard, fsync_dir, private_dir, temp_beside, write_atomic


def records_dir(create=False):
    return private_dir("port-records", create=create)


def file_id(path):
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:40]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def _record(path, original, ported, sync=True):
    """Remember ``original`` for ``path`` unless already remembered; note the new hash."""
    rdir = records_dir(create=True)
    fid = file_id(path)
    meta_path = os.path.join(rdir, fid + ".json")
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as fh:
            meta = json.load(fh)
    else:
        write_atomic(os.path.join(rdir, fid + ".orig"), original, mode=0o600, sync=sync)
        meta = {"path": path, "original_sha256": sha256(original), "created": time.time()}
    meta["ported_sha256"] = sha256(ported)
    write_atomic(meta_path, json.dumps(meta, indent=1).encode("utf-8"), mode=0o600, sync=sync)


def write_batch(items, record=True):
    """Atomically replace each ``path`` by ``data`` for ``(path, original, data)`` items.

    Order: originals recorded, synced; new contents written to temp files beside their
    targets (mode kept), synced; then each temp renamed over its target; directories
    synced. Two global syncs replace 2N fsyncs; without os.sync, per-file fsync."""
    batch = hasattr(os, "sync")
    if record:
        for path, original, data in items:
            _record(path, original, data, sync=not batch)
        if batch:
            os.sync()
    temps = []
    try:
        for path, _, data in items:
            mode = stat.S_IMODE(os.stat(path).st_mode)
            temps.append((path, temp_beside(path, data, mode, sync=not batch)))
        if batch:
            os.sync()
        for path, tmp in temps:
            os.replace(tmp, path)
    except BaseException:
        for _, tmp in temps:
            discard(tmp)
        raise
    for directory in sorted({os.path.dirname(p) for p, _ in temps}):
        fsync_dir(directory)


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
