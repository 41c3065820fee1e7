"""Port files in place, and revert them: ``port_paths`` and ``revert_paths``.

Safety rules (see docs/porting.md):
* explicit paths must exist and must not be symlinks; symlinked sources inside a tree are
  refused (the whole run stops before anything is written), symlinked directories are not
  followed; system include roots (toolkit, site-packages, /usr/include...) are refused
  (``collect``);
* every file that will change is checked for writability first: nothing is written unless
  everything can be;
* each write is atomic and each original is recorded before its file first changes
  (``records``), so ``revert`` restores it byte for byte and then deletes the record;
* porting is idempotent: a second run changes nothing and keeps the first originals.
"""
import os
import time
from collections import Counter

from torchada._core.files import write_atomic

from .collect import EXCLUDE_VAR, collect, exclusions_from_env, parse_exclude_dirs, within
from .engine import Edit, default_porter, lines_of
from .records import Batch, forget, list_records, records_dir, sha256
from .report import FileResult, PortError, PortReport
from .scan import diagnose

__all__ = ["port_paths", "revert_paths", "PortError", "PortReport", "collect",
           "exclusions_from_env", "parse_exclude_dirs", "list_records", "records_dir"]


# Below this much source a worker pool costs more (fork, result transfer) than it saves.
POOL_MIN_BYTES = 4 << 20


def port_paths(paths, dry_run=False, exclude=None, porter=None, record=True, scan=True,
               workers=1, detail=True):
    """Port every source under ``paths`` in place (or only report, with ``dry_run``).

    ``workers`` > 1 ports files in that many forked processes when the sources are large
    (the ``torchada port`` command passes the CPU count); the report and every write are
    the same as with one, in the same order. Library callers keep the default of 1: forking
    a process that runs threads (torch's, a build's) is not safe. ``detail=False`` is the
    command's lighter report (it asks for detail only for ``--diff``): ``FileResult``'s
    ``original`` and ``ported`` None and, from workers, its edits plain ``(offset, old,
    new, domain)`` tuples (equal to the ``Edit`` namedtuples, without their attributes)."""
    porter = porter or default_porter()
    report = PortReport()
    started = time.perf_counter()
    files = collect(paths, exclude, report)
    results = [None] * len(files)
    # Writes are staged as files are ported (by the workers, when there are some), made
    # visible only when every changed file proved writable: nothing changes unless
    # everything can.
    batch = None if dry_run else Batch(record)
    blocked = []
    ported = _port_all(files, porter, scan, workers, batch, detail)
    try:
        for index, result, staged in ported:
            results[index] = result
            if staged == _BLOCKED:
                blocked.append((index, result[0]))
            elif staged is not None:
                batch.keep(staged)
        if blocked:
            names = [path for _, path in sorted(blocked)]
            raise PortError("cannot write %s (read-only). Make them writable (chmod u+w) or "
                            "exclude their directory with %s; nothing was changed"
                            % (", ".join(names[:5]) + (" ..." if len(names) > 5 else ""),
                               EXCLUDE_VAR))
        if batch is not None:
            batch.commit()
    except BaseException:
        ported.close()  # stops the workers (they may still be staging) before the sweep
        if batch is not None:
            batch.discard()
            batch.sweep({os.path.dirname(path) for path in files})
        raise
    for path, size, file_result, unmapped in results:  # the report, in file order
        report.bytes += size
        report.files.append(file_result)
        for name, (count, line) in unmapped.items():
            entry = report.unmapped.get(name)
            if entry is None:
                report.unmapped[name] = [count, path, line]
            else:
                entry[0] += count
    report.seconds = time.perf_counter() - started
    return report


_BLOCKED = "blocked"  # a changed file that cannot be written (a string: it crosses a pipe)


def _port_one(path, porter, scan, batch, detail):
    """Read, port, scan and stage one file: ((path, bytes, FileResult,
    {name: (count, line)}), staged), where staged is what ``batch.stage`` wrote for a
    changed file, ``_BLOCKED`` when the file or its folder is read-only, else None."""
    raw, st = _read(path)
    text = raw.decode("utf-8", "surrogateescape")
    result, regions = porter.port_hot(text)
    findings = list(result.findings)
    unmapped = {}
    if scan:
        reported, unmapped = diagnose(text, result, regions)
        findings += reported
    findings = list(zip(lines_of(text, [f.offset for f in findings]), findings))
    if scan:
        findings.sort(key=lambda lf: (lf[0], lf[1].kind))
    changed = result.text != text
    staged = None
    if changed and batch is not None:
        if not os.access(path, os.W_OK) or not os.access(os.path.dirname(path), os.W_OK):
            staged = _BLOCKED
        else:
            staged = batch.stage(path, raw, result.text.encode("utf-8", "surrogateescape"), st)
    keep = changed and detail
    domains = Counter(e.domain for e in result.edits)
    return (path, len(raw), FileResult(path, changed, result.edits, findings, domains,
                                       text if keep else None,
                                       result.text if keep else None), unmapped), staged


def _read(path):
    """(bytes, stat result) of one file, with os-level calls (no buffered file object:
    thousands of files per run)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        chunks = []
        size = st.st_size
        while True:
            chunk = os.read(fd, max(size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            size = 1 << 16
        return (chunks[0] if len(chunks) == 1 else b"".join(chunks)), st
    finally:
        os.close(fd)


_pool_job = None  # (files, porter, scan, batch, detail) of the parent, inherited by workers


def _pool_port(index):
    """One file in a worker, packed small for the trip back: edits as plain tuples (a
    namedtuple pickles as a class call per edit); the ported bytes stay on disk, staged."""
    files, porter, scan, batch, detail = _pool_job
    (path, size, res, unmapped), staged = _port_one(files[index], porter, scan, batch, detail)
    packed = res._replace(edits=[tuple(e) for e in res.edits])
    return index, (path, size, packed, unmapped), staged


def _port_all(files, porter, scan, workers, batch, detail):
    """(index, result, staged) for every file (as _port_one), as they are ready; in a
    fork pool when asked for and worth it (then in completion order)."""
    global _pool_job
    if workers > 1 and len(files) > 1 and "fork" in _start_methods():
        sizes = []
        for path in files:
            try:
                sizes.append(os.stat(path).st_size)
            except OSError:
                sizes.append(0)
        if sum(sizes) >= POOL_MIN_BYTES:
            import multiprocessing

            # largest files first, small chunks: the workers finish together
            order = sorted(range(len(files)), key=lambda i: -sizes[i])
            _pool_job = (files, porter, scan, batch, detail)
            try:
                with multiprocessing.get_context("fork").Pool(workers) as pool:
                    for index, (path, size, res, unmapped), staged in pool.imap_unordered(
                            _pool_port, order, chunksize=8):
                        if detail:
                            res = res._replace(edits=[Edit._make(e) for e in res.edits])
                        yield index, (path, size, res, unmapped), staged
            finally:
                _pool_job = None
            return
    for index, path in enumerate(files):
        yield (index, *_port_one(path, porter, scan, batch, detail))


def _start_methods():
    import multiprocessing

    return multiprocessing.get_all_start_methods()


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
    records = [m for m in list_records() if any(within(m["path"], r) for r in roots)]
    restored, untouched, conflicts = [], [], []
    done = []  # forgotten together: a run index is rewritten once, not once per file
    try:
        _revert_each(records, rdir, force, restored, untouched, conflicts, done)
    finally:
        forget(done)
    return restored, untouched, conflicts


def _revert_each(records, rdir, force, restored, untouched, conflicts, done):
    for meta in records:
        path = meta["path"]
        orig_file = os.path.join(rdir, meta["_id"] + ".orig")
        if not os.path.exists(path):
            conflicts.append((path, "deleted since it was ported"))
            continue
        with open(path, "rb") as fh:
            current = sha256(fh.read())
        if current == meta["original_sha256"]:
            untouched.append(path)
        elif current == meta.get("ported_sha256") or force:
            with open(orig_file, "rb") as fh:
                original = fh.read()
            if sha256(original) != meta["original_sha256"]:
                conflicts.append((path, "the recorded original is damaged"))
                continue
            write_atomic(path, original)
            restored.append(path)
        else:
            conflicts.append((path, "edited since it was ported (use --force to restore the "
                                    "original anyway)"))
            continue
        done.append(meta)
