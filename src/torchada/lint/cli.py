"""``torchada lint PATH...``: prints file:line:col, the rule, why and the fix; ``--json``;
exit 1 when something is found, 2 on bad input, 0 when clean."""
import argparse
import json
import os
import sys
import tokenize

from torchada.lint.checks import check_source
from torchada.lint.rules import RULES, fix_text
from torchada.lint.walk import LintPathError, python_files


def _codes(text, option):
    if not text:
        return None
    codes = {c.strip().upper() for c in text.split(",") if c.strip()}
    unknown = sorted(codes - set(RULES))
    if unknown:
        raise LintPathError("torchada lint: %s names unknown rules %s; known: %s"
                            % (option, ", ".join(unknown), ", ".join(sorted(RULES))))
    return codes


def _read(path):
    with tokenize.open(path) as f:  # honours the coding cookie, like the interpreter
        return f.read()


def lint(paths, select=None, ignore=frozenset(), exclude=("", "")):
    """(findings, problems, checked): findings sorted by file and line; problems are files
    that could not be read or parsed (reported, never fatal); checked counts the files read."""
    from torchada._core.settings import read
    from torchada.porting.collect import parse_exclude_dirs

    exclude_paths, exclude_names = parse_exclude_dirs(read("TORCHADA_EXCLUDE_DIRS"))
    findings, problems, checked = [], [], 0
    for path in python_files(paths, exclude_paths, exclude_names):
        checked += 1
        try:
            found = check_source(_read(path), path)
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError) as exc:
            problems.append((path, "%s: %s" % (type(exc).__name__, exc)))
            continue
        findings.extend(f for f in found
                        if (select is None or f.code in select) and f.code not in ignore)
    return findings, problems, checked - len(problems)


def main(argv):
    parser = argparse.ArgumentParser(
        prog="torchada lint",
        description="Find CUDA-only checks that no runtime patch can fix on MUSA.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--select", help="only these rule codes (comma list)")
    parser.add_argument("--ignore", help="skip these rule codes (comma list)")
    args = parser.parse_args(argv)
    try:
        select = _codes(args.select, "--select")
        ignore = _codes(args.ignore, "--ignore") or frozenset()
        findings, problems, checked = lint(args.paths, select, ignore)
    except LintPathError as exc:
        print(exc, file=sys.stderr)
        return 2
    except Exception as exc:  # e.g. a bad TORCHADA_EXCLUDE_DIRS: its own message names it
        print("torchada lint: %s" % exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({
            "findings": [dict(f._asdict(), rule=RULES[f.code].name, why=RULES[f.code].why,
                              fix=fix_text(RULES[f.code], f.negated)) for f in findings],
            "unreadable": [{"path": p, "error": e} for p, e in problems]}, indent=1))
    else:
        for f in findings:
            rule = RULES[f.code]
            print("%s:%d:%d: %s %s: %s\n    %s\n    fix: %s"
                  % (f.path, f.line, f.col, f.code, rule.name, rule.why, f.source,
                     fix_text(rule, f.negated)))
        for path, error in problems:
            print("%s: not checked (%s)" % (path, error), file=sys.stderr)
        files = len({f.path for f in findings})
        plural = lambda n: "" if n == 1 else "s"  # noqa: E731
        where = ("in %d file%s of %d checked" % (files, plural(files), checked) if findings
                 else "in %d file%s checked" % (checked, plural(checked)))
        print("torchada lint: %d finding%s %s" % (len(findings), plural(len(findings)), where),
              file=sys.stderr)
    return 1 if findings else 0
