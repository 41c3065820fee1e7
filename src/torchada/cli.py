"""The ``torchada`` command: ``status``, ``run``, ``port``, ``lint``, ``tune-moe`` and ``build``."""

import argparse
import sys

USAGE = """usage: torchada <command> [args]    (torchada --version: this torchada's version)

commands:
  status [--json] [--no-import]   report every area: applied / skipped / failed / pending
  run [--simulate] [--cuda-unavailable] [--no-summary] PROG [ARGS]
                                  run an unmodified CUDA program with torchada active
                                  (see: torchada run --help)
  port PATH [options]             port CUDA C++ sources to MUSA (see: torchada port --help)
  lint PATH... [--json]           find CUDA-only checks no runtime patch can fix on MUSA
  tune-moe [options]              fused-MoE tables: measure (MUSA GPU), ingest, materialize
  build [--simulate] [--system]   build ahead what this machine needs at run time (native code;
                                  --system: into the cache every user reads)
  doctor [--json]                 check the install; one line of fix per problem (exit 1: broken)
"""


def _status(argv):
    parser = argparse.ArgumentParser(prog="torchada status")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--no-import", action="store_true",
                        help="do not import torch first (areas stay pending)")
    args = parser.parse_args(argv)
    if not args.no_import:
        try:
            import torch  # noqa: F401  (fires the triggers so the report is complete)
        except ImportError as exc:
            print("torchada: torch is not importable (%s); install torch first" % exc,
                  file=sys.stderr)
    import torchada

    report = torchada.status()
    print(report.to_json() if args.json else report)
    return 1 if report.by_state("failed") else 0


def main(argv=None):
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        # The reader went away (``torchada status | head``): stop quietly, and point stdout at
        # devnull so the interpreter's final flush does not raise again.
        import os

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0


def _main(argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-V", "--version"):
        from torchada import __version__

        print("torchada %s" % __version__)
        return 0
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "status":
        return _status(rest)
    if command == "run":
        from torchada.run_cmd import main as run_main

        return run_main(rest)
    if command == "port":
        from torchada.porting.cli import main as port_main

        return port_main(rest)
    if command == "lint":
        from torchada.lint.cli import main as lint_main

        return lint_main(rest)
    if command == "doctor":
        from torchada.doctor import main as doctor_main

        return doctor_main(rest)
    if command == "build":
        from torchada.build_cmd import main as build_main

        return build_main(rest)
    if command == "tune-moe":
        from torchada.moe.tune import main as tune_main

        return tune_main(rest)
    print("torchada: unknown command %r\n\n%s" % (command, USAGE), file=sys.stderr)
    return 2
