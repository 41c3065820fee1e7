"""Port files in place: ``port_paths`` (``revert_paths`` lives in ``revert``).

Safety rules (see docs/porting.md):
* explicit paths must exist and must not be symlinks; symlinked sources inside a tree are
  refused (the whole run stops before anything is written), symlinked directories are not
  followed; system include roots (toolkit, site-packages, /usr/include...) are refused
  (``collect``);
* only regular files are read, binary and UTF-16/32 files are never rewritten, and a file
  that changes while it is ported is left alone (``reading``, ``records``); each is
  reported by name with the reason;
* every file that will change is checked for writability first: nothing is written unless
  everything can be;
* each write is atomic and each port records the content it read before its file changes
  (``records``), so ``revert`` gives back the newest content before each port;
* porting is idempotent: a second run changes nothing and records nothing.
"""
import os
import time
from collections import Counter

from .collect import EXCLUDE_VAR, collect, exclusions_from_env, parse_exclude_dirs
from .engine import Edit, default_porter, lines_of, one_per_line
from .reading import NotPorted, decode_source, read_regular
from .records import Batch, FileChanged, list_records, records_dir
from .report import FileResult, PortError, PortReport
from .revert import revert_paths
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
    new, domain)`` tuples (equal to the ``Edit`` namedtuples, without their attributes).

    Sources that are not regular files, hold NUL bytes, are UTF-16/32, or changed while
    they were ported are left alone and listed in ``report.not_ported`` with the reason;
    a source that is not valid UTF-8 is ported (its other bytes kept as they are) and
    named in ``report.notes``."""
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
        left_alone = set(batch.commit()) if batch is not None else set()
    except BaseException:
        ported.close()  # stops the workers (they may still be staging) before the sweep
        if batch is not None:
            batch.discard()
            batch.sweep({os.path.dirname(path) for path in files})
        raise
    for path, size, file_result, unmapped, notice in results:  # the report, in file order
        if file_result is None or path in left_alone:
            report.not_ported.append((path, notice or _CHANGED_WHILE_PORTED))
            continue
        if notice:
            report.notes.append((path, notice))
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
_CHANGED_WHILE_PORTED = ("changed while it was being ported: not ported, your new content is "
                         "untouched (run torchada port again)")


def _port_one(path, porter, scan, batch, detail):
    """Read, port, scan and stage one file: ((path, bytes, FileResult or None,
    {name: (count, line)}, notice), staged). ``notice``: why the file was not ported
    (FileResult None), or a note on a ported one, or None. ``staged``: what
    ``batch.stage`` wrote for a changed file, ``_BLOCKED`` when the file or its folder is
    read-only, else None."""
    try:
        raw, st = read_regular(path)
        text, notice = decode_source(raw)
    except NotPorted as exc:
        return (path, 0, None, {}, str(exc)), None
    result, regions = porter.port_hot(text)
    findings = list(result.findings)
    unmapped = {}
    if scan:
        reported, unmapped = diagnose(text, result, regions)
        findings += reported
    findings = one_per_line(zip(lines_of(text, [f.offset for f in findings]), findings))
    if scan:
        findings.sort(key=lambda lf: (lf[0], lf[1].kind))
    changed = result.text != text
    staged = None
    if changed and batch is not None:
        if not os.access(path, os.W_OK) or not os.access(os.path.dirname(path), os.W_OK):
            staged = _BLOCKED
        else:
            try:
                staged = batch.stage(path, raw, result.text.encode("utf-8", "surrogateescape"), st)
            except FileChanged:
                return (path, 0, None, {}, _CHANGED_WHILE_PORTED), None
            if staged[3]:  # what the new file could not keep of the old (owner, mode, xattrs)
                notice = "; ".join(([notice] if notice else []) + staged[3])
    keep = changed and detail
    domains = Counter(e.domain for e in result.edits)
    return (path, len(raw), FileResult(path, changed, result.edits, findings, domains,
                                       text if keep else None,
                                       result.text if keep else None), unmapped, notice), staged


_pool_job = None  # (files, porter, scan, batch, detail) of the parent, inherited by workers


def _pool_port(index):
    """One file in a worker, packed small for the trip back: edits as plain tuples (a
    namedtuple pickles as a class call per edit); the ported bytes stay on disk, staged."""
    files, porter, scan, batch, detail = _pool_job
    (path, size, res, unmapped, notice), staged = _port_one(files[index], porter, scan, batch,
                                                            detail)
    if res is not None:
        res = res._replace(edits=[tuple(e) for e in res.edits])
    return index, (path, size, res, unmapped, notice), staged


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
                    for index, (path, size, res, unmapped, notice), staged in \
                            pool.imap_unordered(_pool_port, order, chunksize=8):
                        if detail and res is not None:
                            res = res._replace(edits=[Edit._make(e) for e in res.edits])
                        yield index, (path, size, res, unmapped, notice), staged
            finally:
                _pool_job = None
            return
    for index, path in enumerate(files):
        yield (index, *_port_one(path, porter, scan, batch, detail))


def _start_methods():
    import multiprocessing

    return multiprocessing.get_all_start_methods()
