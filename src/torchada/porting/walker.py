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
from .engine import default_porter, line_of
from .records import forget, list_records, records_dir, sha256, write_batch
from .report import FileResult, PortError, PortReport
from .scan import scan_unmapped, scan_unsupported

__all__ = ["port_paths", "revert_paths", "PortError", "PortReport", "collect",
           "exclusions_from_env", "parse_exclude_dirs", "list_records", "records_dir"]


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
        forget(meta)
    return restored, untouched, conflicts
