"""``torchada port PATH...``: port CUDA C++ sources to MUSA in place (no torch needed)."""
import argparse
import difflib
import json
import os
import sys

DESCRIPTION = """Port CUDA C/C++ sources and headers to MUSA in place, keeping file names.
Originals are recorded outside the tree (user cache) so --revert restores them byte for
byte. Constructs with no MUSA equivalent are reported with file and line, never rewritten.
Directories named in TORCHADA_EXCLUDE_DIRS (paths or names, separated by '%s' or ',') are
skipped.""" % os.pathsep


def _parser():
    p = argparse.ArgumentParser(prog="torchada port", description=DESCRIPTION)
    p.add_argument("paths", nargs="+", metavar="PATH", help="source file or directory")
    p.add_argument("--dry-run", action="store_true", help="change nothing; report what would change")
    p.add_argument("--diff", action="store_true", help="print a unified diff of the changes")
    p.add_argument("--stats", action="store_true", help="print rules applied per domain")
    p.add_argument("--revert", action="store_true",
                   help="restore the originals recorded when PATH was ported")
    p.add_argument("--force", action="store_true",
                   help="with --revert: restore a file's content from before its last port "
                        "even though it was edited since (those edits are lost)")
    p.add_argument("--json", action="store_true", help="machine-readable report on stdout")
    p.add_argument("--quiet", "-q", action="store_true", help="summary only")
    return p


def _workers():
    from torchada._core.settings import read

    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return read("TORCHADA_PORT_WORKERS", default=cpus)


def _rel(path):
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _print_revert(result, out):
    restored, untouched, conflicts = result
    for path in restored:
        print("restored %s" % _rel(path), file=out)
    for path, reason in conflicts:
        print("not restored %s: %s" % (_rel(path), reason), file=sys.stderr)
    for path, note in result.notes:
        print("note %s: %s" % (_rel(path), note), file=sys.stderr)
    for path, count in result.earlier:
        print("kept %d earlier port record%s of %s: the file was edited after %s (it now "
              "holds its content from just before the later port; --revert --force goes "
              "back further)" % (count, "s" if count > 1 else "", _rel(path),
                                 "those ports" if count > 1 else "that port"), file=out)
    print("%d restored, %d already original, %d not restored"
          % (len(restored), len(untouched), len(conflicts)), file=out)


def main(argv=None):
    from .walker import PortError, port_paths, records_dir, revert_paths

    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    out = sys.stdout
    try:
        if args.revert:
            result = revert_paths(args.paths, force=args.force)
            restored, untouched, conflicts = result
            if args.json:
                json.dump({"restored": restored, "unchanged": untouched,
                           "conflicts": [{"path": p, "reason": r} for p, r in conflicts],
                           "earlier_records_kept": [{"path": p, "records": n}
                                                    for p, n in result.earlier],
                           "notes": [{"path": p, "note": n} for p, n in result.notes],
                           "records": result.records}, out, indent=1)
                out.write("\n")
            else:
                _print_revert(result, out)
            if not result.records:
                print("torchada port: nothing to revert under %s: no port of it is recorded "
                      "(records are kept in %s)" % (" ".join(args.paths), records_dir()),
                      file=sys.stderr)
            return 1 if conflicts or not result.records else 0
        report = port_paths(args.paths, dry_run=args.dry_run, workers=_workers(),
                             detail=args.diff)
    except PortError as exc:
        print("torchada port: error: %s" % exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print("torchada port: error: %s: %s (nothing else was changed)"
              % (exc.filename or "", exc.strerror or exc), file=sys.stderr)
        return 2
    if args.json:
        json.dump(report.to_dict(), out, indent=1)
        out.write("\n")
        return 0
    for path, reason in report.not_ported:  # never silent: the user expects these ported
        print("not ported %s: %s" % (_rel(path), reason), file=sys.stderr)
    for path, note in report.notes:
        print("note %s: %s" % (_rel(path), note), file=sys.stderr)
    if args.diff:
        for f in report.changed:
            rel = _rel(f.path)
            out.writelines(difflib.unified_diff(
                f.original.splitlines(True), f.ported.splitlines(True),
                "a/" + rel, "b/" + rel))
    if not args.quiet:
        for path, line, finding in report.findings():
            print("%s:%d: %s: %s (%s)" % (_rel(path), line, finding.kind, finding.message,
                                          finding.fix), file=out)
        if report.unmapped:
            print("CUDA identifiers left unmapped (%d):" % len(report.unmapped), file=out)
            for name, (count, path, line) in sorted(report.unmapped.items(),
                                                    key=lambda kv: (-kv[1][0], kv[0])):
                print("  %-40s x%-5d first at %s:%d" % (name, count, _rel(path), line), file=out)
    if args.stats:
        print("rules applied per domain:", file=out)
        for domain, n in sorted(report.domain_counts().items(), key=lambda kv: -kv[1]):
            print("  %-16s %d" % (domain, n), file=out)
    verb = "would change" if args.dry_run else "changed"
    print("%s %d of %d source files (%d edits, %d findings, %d unmapped names%s)"
          % (verb, len(report.changed), len(report.files),
             sum(len(f.edits) for f in report.files), len(report.findings()),
             len(report.unmapped),
             ", %d not ported" % len(report.not_ported) if report.not_ported else ""), file=out)
    return 0
