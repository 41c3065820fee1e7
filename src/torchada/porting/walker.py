"""Port files in place, safely: the only part of the porter that touches the disk.

Safety rules (see docs/porting.md):
* explicit paths must exist and must not be symlinks; symlinked sources inside a tree are
  refused (the whole run stops before anything is written), symlinked directories are not
  followed; system include roots (toolkit, site-packages, /usr/include...) are refused;
* every file that will change is checked for writability first: nothing is written unless
  everything can be;
* each write is atomic (temp file in the same directory, fsync, rename, mode kept);
* before a file is first changed its original bytes are recorded under
  ``user_cache_dir("torchada")/port-records`` (0o700), outside the user's tree, so
  ``revert`` restores it byte for byte and then deletes the record;
* porting is idempotent: a second run changes nothing and keeps the first originals.
"""
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from collections import Counter, namedtuple

from .engine import default_porter, line_of
from .scan import scan_unmapped, scan_unsupported

SOURCE_EXTS = frozenset((
    ".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++",
    ".inl", ".inc", ".ipp", ".tpp", ".txx", ".cuinl", ".ixx", ".cppm",
))
NATIVE_EXTS = frozenset((".mu", ".muh"))  # already MUSA: never touched
DEFAULT_EXCLUDED_NAMES = frozenset((
    ".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", "node_modules",
    ".eggs", ".mypy_cache", ".pytest_cache",
))
EXCLUDE_VAR = "TORCHADA_EXCLUDE_DIRS"


class PortError(Exception):
    """A problem with the input: the message names the thing and the fix. Raised before
    any file is written."""


FileResult = namedtuple("FileResult", "path changed edits findings domains original ported")


class PortReport:
    def __init__(self):
        self.files = []
        self.skipped = []      # (path, reason)
        self.unmapped = {}     # name -> [count, path, line]
        self.bytes = 0
        self.seconds = 0.0

    @property
    def changed(self):
        return [f for f in self.files if f.changed]

    def domain_counts(self):
        total = Counter()
        for f in self.files:
            total.update(f.domains)
        return dict(total)

    def findings(self):
        """(path, line, Finding) for every reported construct."""
        out = []
        for f in self.files:
            for line, finding in f.findings:
                out.append((f.path, line, finding))
        return out

    def to_dict(self):
        return {
            "files": len(self.files), "changed": len(self.changed), "bytes": self.bytes,
            "edits": sum(len(f.edits) for f in self.files), "seconds": self.seconds,
            "domains": self.domain_counts(),
            "findings": [{"path": p, "line": l, "kind": f.kind, "message": f.message, "fix": f.fix}
                         for p, l, f in self.findings()],
            "unmapped": {k: {"count": v[0], "path": v[1], "line": v[2]}
                         for k, v in sorted(self.unmapped.items())},
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
        }


# -- exclusions -----------------------------------------------------------------------------

def parse_exclude_dirs(value, cwd=None):
    """Parse a TORCHADA_EXCLUDE_DIRS value: entries separated by os.pathsep or commas.
    An entry with a path separator (or ~) is a directory path; otherwise it is a name that
    matches one whole path component. Returns (frozenset of real paths, frozenset of names).
    """
    paths, names = set(), set()
    if not value:
        return frozenset(), frozenset()
    cwd = cwd or os.getcwd()
    for raw in value.replace(os.pathsep, ",").split(","):
        entry = raw.strip()
        if not entry:
            continue
        bad = None
        if "\0" in entry:
            bad = "contains a NUL character"
        elif any(ch in entry for ch in "*?["):
            bad = "contains a glob character (globs are not supported)"
        elif entry in (".", ".."):
            bad = "is %r, which names no directory" % entry
        if bad:
            raise PortError(
                "%s entry %r %s. Accepted: directory paths or directory names, separated by "
                "%r or ','; e.g. %s=third_party%sbuild" % (EXCLUDE_VAR, entry, bad, os.pathsep,
                                                          EXCLUDE_VAR, os.pathsep))
        if os.sep in entry or (os.altsep and os.altsep in entry) or entry.startswith("~"):
            paths.add(os.path.realpath(os.path.join(cwd, os.path.expanduser(entry))))
        else:
            names.add(entry)
    return frozenset(paths), frozenset(names)


def exclusions_from_env(environ=None):
    environ = os.environ if environ is None else environ
    return parse_exclude_dirs(environ.get(EXCLUDE_VAR, ""))


def protected_roots():
    """Directories the porter never writes into: toolkits, interpreters, site-packages."""
    import sysconfig

    roots = {"/usr/include", "/usr/local/include", "/usr/local/cuda", "/usr/local/musa",
             "/opt/cuda", "/opt/musa", "/usr/lib", "/usr/share"}
    for key in ("purelib", "platlib", "include", "platinclude", "stdlib", "platstdlib"):
        try:
            roots.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        roots.add(os.path.join(prefix, "include"))
        roots.add(os.path.join(prefix, "lib"))
    for var in ("CUDA_HOME", "CUDA_PATH", "MUSA_HOME", "MUSA_PATH"):
        if os.environ.get(var):
            roots.add(os.environ[var])
    return sorted({os.path.realpath(r) for r in roots if r})


def _within(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


# -- collection -----------------------------------------------------------------------------

def collect(paths, exclude=None, report=None):
    """Source files to port under ``paths`` (files or directories), sorted.

    Raises PortError for a missing path, a symlinked root or source, or a protected root.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    ex_paths, ex_names = exclude if exclude is not None else exclusions_from_env()
    ex_names = ex_names | DEFAULT_EXCLUDED_NAMES
    protected = protected_roots()
    files, symlinks = [], []
    for given in paths:
        given = os.fspath(given)
        absolute = os.path.abspath(given)
        if not os.path.lexists(absolute):
            raise PortError("%s does not exist: give an existing file or directory" % given)
        if os.path.islink(absolute):
            raise PortError("%s is a symbolic link: port the directory it points to (%s) "
                            "instead, so that files outside the tree are never rewritten"
                            % (given, os.path.realpath(absolute)))
        real = os.path.realpath(absolute)
        for root in protected:
            if _within(real, root):
                raise PortError("%s is inside the system/toolkit directory %s, which the "
                                "porter never modifies: copy the sources into your project "
                                "first" % (given, root))
        if os.path.isfile(real):
            if _ext(real) in SOURCE_EXTS:
                files.append(real)
            elif report is not None:
                report.skipped.append((real, "not a C/C++/CUDA source"))
            continue
        for dirpath, dirnames, filenames in os.walk(real):
            keep = []
            for d in sorted(dirnames):
                full = os.path.join(dirpath, d)
                if d in ex_names or full in ex_paths:
                    if report is not None:
                        report.skipped.append((full, "excluded"))
                elif os.path.islink(full):
                    if report is not None:
                        report.skipped.append((full, "symbolic link to a directory: not followed"))
                else:
                    keep.append(d)
            dirnames[:] = keep
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                ext = _ext(name)
                if ext not in SOURCE_EXTS:
                    continue
                if os.path.islink(full):
                    symlinks.append(full)
                else:
                    files.append(full)
    if symlinks:
        raise PortError("refusing to port symbolic links (their targets may lie outside the "
                        "tree): %s. Replace them by copies, or exclude their directory with %s"
                        % (", ".join(symlinks[:5]) + (" ..." if len(symlinks) > 5 else ""),
                           EXCLUDE_VAR))
    return sorted(set(files))


def _ext(path):
    return os.path.splitext(path)[1].lower()


# -- records of originals -------------------------------------------------------------------

def cache_dir(create=False):
    """torchada's private cache directory (platformdirs user cache), 0o700 when created."""
    from platformdirs import user_cache_dir

    base = user_cache_dir("torchada")
    if create and not os.path.isdir(base):
        os.makedirs(base, mode=0o700, exist_ok=True)
        os.chmod(base, 0o700)
    return base


def records_dir(create=False):
    path = os.path.join(cache_dir(create), "port-records")
    if create and not os.path.isdir(path):
        os.makedirs(path, mode=0o700, exist_ok=True)
        os.chmod(path, 0o700)
    return path


def _file_id(path):
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:40]


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def _write_private(path, data, sync=True):
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        if sync:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(path + ".tmp", path)


def _record(path, original, ported, sync=True):
    """Remember ``original`` for ``path`` unless already remembered; note the new hash."""
    rdir = records_dir(create=True)
    fid = _file_id(path)
    meta_path = os.path.join(rdir, fid + ".json")
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as fh:
            meta = json.load(fh)
    else:
        _write_private(os.path.join(rdir, fid + ".orig"), original, sync)
        meta = {"path": path, "original_sha256": _sha(original), "created": time.time()}
    meta["ported_sha256"] = _sha(ported)
    _write_private(meta_path, json.dumps(meta, indent=1).encode("utf-8"), sync)


def _sync_all():
    """Flush every written file to disk once (instead of one fsync per file)."""
    if hasattr(os, "sync"):
        os.sync()
        return True
    return False


def _fsync_dir(directory):
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def write_batch(items, record=True):
    """Atomically replace each ``path`` by ``data`` for ``(path, original, data)`` items.

    Order: originals recorded, synced; new contents written to temp files beside their
    targets (mode kept), synced; then each temp renamed over its target; directories
    synced. A crash at any point leaves every file either old or new, with its original
    recorded first. Two global syncs replace 2N fsyncs; without os.sync, per-file fsync."""
    batch = hasattr(os, "sync")
    if record:
        for path, original, data in items:
            _record(path, original, data, sync=not batch)
        if batch:
            _sync_all()
    temps = []
    try:
        for path, _, data in items:
            st = os.stat(path)
            fd, tmp = tempfile.mkstemp(prefix=".torchada-", suffix=".tmp",
                                       dir=os.path.dirname(path))
            temps.append((path, tmp))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                if not batch:
                    fh.flush()
                    os.fsync(fh.fileno())
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if batch:
            _sync_all()
        done = 0
        for path, tmp in temps:
            os.replace(tmp, path)
            done += 1
    except BaseException:
        for _, tmp in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise
    for directory in sorted({os.path.dirname(p) for p, _ in temps}):
        _fsync_dir(directory)


def atomic_write(path, data):
    """Replace ``path`` by ``data`` atomically, keeping its permission bits."""
    st = os.stat(path)
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".torchada-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# -- the operations -------------------------------------------------------------------------

def port_paths(paths, dry_run=False, exclude=None, porter=None, record=True, scan=True):
    """Port every source under ``paths`` in place (or only report, with ``dry_run``)."""
    porter = porter or default_porter()
    report = PortReport()
    started = time.perf_counter()
    files = collect(paths, exclude, report)
    pending = []
    for path in files:
        with open(path, "rb") as fh:
            raw = fh.read()
        report.bytes += len(raw)
        text = raw.decode("utf-8", "surrogateescape")
        result = porter.port(text)
        findings = [(line_of(text, f.offset), f) for f in result.findings]
        if scan:
            findings += [(line_of(text, f.offset), f) for f in scan_unsupported(text)]
            findings.sort(key=lambda lf: (lf[0], lf[1].kind))
            for name, hit in scan_unmapped(result.text).items():
                entry = report.unmapped.get(name)
                if entry is None:
                    report.unmapped[name] = [hit.count, path, line_of(result.text, hit.first_offset)]
                else:
                    entry[0] += hit.count
        changed = result.text != text
        domains = Counter(e.domain for e in result.edits)
        report.files.append(FileResult(path, changed, result.edits, findings, domains,
                                       text if changed else None, result.text if changed else None))
        if changed:
            pending.append((path, raw, result.text.encode("utf-8", "surrogateescape")))
    if not dry_run and pending:
        blocked = [p for p, _, _ in pending
                   if not os.access(p, os.W_OK) or not os.access(os.path.dirname(p), os.W_OK)]
        if blocked:
            raise PortError("cannot write %s (read-only). Make them writable (chmod u+w) or "
                            "exclude their directory with %s; nothing was changed"
                            % (", ".join(blocked[:5]) + (" ..." if len(blocked) > 5 else ""),
                               EXCLUDE_VAR))
        write_batch(pending, record=record)
    report.seconds = time.perf_counter() - started
    return report


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


def revert_paths(paths, force=False):
    """Restore every recorded file under ``paths`` byte for byte; delete the records.
    Returns (restored, already_original, conflicts)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    roots = []
    for given in paths:
        given = os.fspath(given)
        if not os.path.lexists(given):
            raise PortError("%s does not exist: give the file or directory you ported" % given)
        roots.append(os.path.realpath(given))
    rdir = records_dir()
    records = [m for m in list_records() if any(_within(m["path"], r) for r in roots)]
    restored, untouched, conflicts = [], [], []
    for meta in records:
        path = meta["path"]
        orig_file = os.path.join(rdir, meta["_id"] + ".orig")
        if not os.path.exists(path):
            conflicts.append((path, "deleted since it was ported"))
            continue
        with open(path, "rb") as fh:
            current = _sha(fh.read())
        if current == meta["original_sha256"]:
            untouched.append(path)
        elif current == meta.get("ported_sha256") or force:
            with open(orig_file, "rb") as fh:
                original = fh.read()
            if _sha(original) != meta["original_sha256"]:
                conflicts.append((path, "the recorded original is damaged"))
                continue
            atomic_write(path, original)
            restored.append(path)
        else:
            conflicts.append((path, "edited since it was ported (use --force to restore the "
                                    "original anyway)"))
            continue
        for suffix in (".json", ".orig"):
            try:
                os.unlink(os.path.join(rdir, meta["_id"] + suffix))
            except OSError:
                pass
    return restored, untouched, conflicts
