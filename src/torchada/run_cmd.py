"""`torchada run [--simulate] [--example NAME] PROG [ARGS]`: run an unmodified program with
torchada active (on the simulated torch_musa with --simulate) in a fresh interpreter, and
print a short summary at exit: platform, device, areas applied, and (with the translation
report on, the default here) translated calls, unsupported paths hit and a False answer of
torch.cuda.is_available()."""
import os
import subprocess
import sys

USAGE = """usage: torchada run [--simulate] [--force-simulate] [--no-summary] [--verify[=all]] (PROG | --example NAME) [ARGS...]

  --simulate        run on torchada's simulated torch_musa (sets TORCHADA_SIMULATE_MUSA=1 for
                    the program; refused if a real torch_musa is installed)
  --force-simulate  the same, even when a real torch_musa is installed
  --example NAME    run a bundled example instead of PROG (available: {examples})
  --no-summary      do not print the summary at exit (nor count translated calls: without
                    it `torchada run` sets TORCHADA_TRACE=1 for the program unless set)
  --verify[=all]    rerun every op on a MUSA tensor on the CPU and compare (TORCHADA_VERIFY;
                    docs/verify.md): stop at the first mismatch, or with =all tabulate them
  --verify-first N  compare only the first N calls of each op (TORCHADA_VERIFY_FIRST)
  --verify-every K  and then every Kth call of each op (TORCHADA_VERIFY_EVERY)
  --report DIR      write the report (translated calls, CPU fallbacks, verify findings) as
                    JSON into DIR, one file per process (TORCHADA_REPORT)
  --cuda-unavailable  keep torch.cuda.is_available() False on MUSA (torchada's default for
                    imported use). Without it, `torchada run` sets
                    TORCHADA_FORCE_CUDA_AVAILABLE=1 for the program (unless already set):
                    you asked to run a CUDA program, and CUDA-only programs check
                    is_available() before anything else.
"""

# Runs inside the child: makes sure torchada is active, registers the summary, runs PROG
# as __main__ with its own argv and sys.path[0], and keeps its exit status.
_WRAPPER = r"""
import atexit, os, runpy, sys
prog = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(prog))
import torchada_boot
torchada_boot.activate()

def _summary():
    try:
        import torchada
        from torchada.run_cmd import format_summary
        sys.stderr.write(format_summary(torchada.status()) + "\n")
    except Exception as exc:
        sys.stderr.write("torchada run: no summary (%s: %s)\n" % (type(exc).__name__, exc))

from torchada._core.settings import read
from torchada.run_cmd import no_musa_hint

_hint = []

def _at_exit():  # after the program's traceback, if any: the summary, then the hint
    if read("_TORCHADA_RUN_SUMMARY"):
        _summary()
    sys.stderr.writelines(_hint)

atexit.register(_at_exit)
try:
    runpy.run_path(prog, run_name="__main__")
except BaseException as exc:
    _hint.append(no_musa_hint(exc, torchada_boot.decision, sys.argv[0]))
    raise
"""

# What plain torch says when a CUDA program meets a machine without CUDA.
_NO_CUDA_WORDS = ("not compiled with cuda", "found no nvidia driver", "no cuda gpus are available")


def no_musa_hint(exc, decision, prog):
    """One hint line when a program failed for want of CUDA on a machine where torchada found
    no MUSA (so it stayed off); "" otherwise."""
    platform, reason = decision or (None, "torchada was not started")
    if platform == "musa" or not any(w in str(exc).lower() for w in _NO_CUDA_WORDS):
        return ""
    return ("torchada run: no MUSA device was found on this machine (%s), so torchada stayed "
            "off and the program ran on plain torch, which has no CUDA here. To run it on "
            "torchada's simulated MUSA device: torchada run --simulate %s\n" % (reason, prog))


def examples_dir():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")


def list_examples():
    try:
        return sorted(f[:-3] for f in os.listdir(examples_dir()) if f.endswith(".py") and not f.startswith("_"))
    except OSError:
        return []


def _device_name(platform):
    torch = sys.modules.get("torch")
    if torch is None:
        return "none (torch not imported)"
    try:
        if platform == "musa" and hasattr(torch, "musa") and torch.musa.device_count() > 0:
            return "%s x%d" % (torch.musa.get_device_name(0), torch.musa.device_count())
        if torch.cuda.is_available():
            return "%s x%d" % (torch.cuda.get_device_name(0), torch.cuda.device_count())
    except Exception as exc:
        return "unknown (%s)" % type(exc).__name__
    return "cpu"


def format_summary(report):
    platform, reason = report.platform, report.reason
    applied, failed = report.by_state("applied"), report.by_state("failed")
    lines = ["", "torchada summary",
             "  platform : %s%s" % (platform, " (%s)" % reason if reason else ""),
             "  device   : %s" % _device_name(platform),
             "  applied  : %s" % (", ".join(applied) if applied else "none")]
    if failed:
        lines.append("  failed   : %s" % ", ".join(failed))
    trace = sys.modules.get("torchada._core.trace")
    if trace is not None and trace.ENABLED:
        lines += trace.summary_lines(platform)
    return "\n".join(lines)


_VALUED = {"--verify-first": "TORCHADA_VERIFY_FIRST", "--verify-every": "TORCHADA_VERIFY_EVERY",
           "--report": "TORCHADA_REPORT"}


def _error(msg):
    sys.stderr.write("torchada run: %s\n" % msg)
    return 2


def child_pythonpath(src, current, site_dirs=None):
    """PYTHONPATH for the child: torchada's source tree first when it is not installed
    there, but never a site directory. PYTHONPATH entries precede the standard library, so a
    site-packages there would let any installed distribution shadow a stdlib module."""
    if site_dirs is None:
        import site

        site_dirs = list(site.getsitepackages()) + [site.getusersitepackages()]
    entries = [p for p in current.split(os.pathsep) if p]
    real = {os.path.realpath(d) for d in site_dirs}
    if os.path.realpath(src) in real or src in entries:
        return os.pathsep.join(entries)
    return os.pathsep.join([src] + entries)


def main(argv):
    argv = list(argv)
    simulate = force = False
    summary = True
    cuda_available = True
    example = None
    extra_env = {}
    while argv and argv[0].startswith("-"):
        opt = argv.pop(0)
        if opt in ("-h", "--help"):
            print(USAGE.format(examples=", ".join(list_examples()) or "none"))
            return 0
        if opt == "--simulate":
            simulate = True
        elif opt == "--force-simulate":
            simulate = force = True
        elif opt == "--no-summary":
            summary = False
        elif opt == "--cuda-unavailable":
            cuda_available = False
        elif opt in ("--verify", "--verify=first", "--verify=all"):
            extra_env["TORCHADA_VERIFY"] = "all" if opt.endswith("=all") else "1"
        elif opt.startswith("--verify="):
            return _error("--verify takes =first or =all (got %r)" % opt)
        elif opt in _VALUED:
            value = argv.pop(0) if argv else ""
            if opt != "--report" and not value.isdigit():
                return _error("%s needs a whole number (got %r)" % (opt, value))
            if not value:
                return _error("%s needs a folder" % opt)
            extra_env[_VALUED[opt]] = value
        elif opt == "--example" or opt.startswith("--example="):
            example = opt.split("=", 1)[1] if "=" in opt else (argv.pop(0) if argv else None)
            if not example:
                return _error("--example needs a NAME (available: %s)" % ", ".join(list_examples()))
            break  # the rest are the example's arguments
        elif opt == "--":
            break
        else:
            return _error("unknown option %r (see torchada run --help)" % opt)
    if example is not None:
        prog = os.path.join(examples_dir(), example + ".py")
        if not os.path.isfile(prog):
            return _error("no bundled example %r (available: %s)" % (example, ", ".join(list_examples())))
    else:
        if not argv:
            return _error("no program given; usage: torchada run [--simulate] PROG [ARGS...]")
        prog = argv.pop(0)
        if not os.path.isfile(prog):
            return _error("program %r not found" % prog)

    env = dict(os.environ)
    env["PYTHONPATH"] = child_pythonpath(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), env.get("PYTHONPATH", ""))
    if simulate:
        from torchada.testing import real_torch_musa_present

        from torchada._core.settings import read

        if real_torch_musa_present() and not force and read("TORCHADA_SIMULATE_MUSA", env) != "force":
            return _error("a real torch_musa is installed; --simulate would shadow it. Use --force-simulate "
                          "(or TORCHADA_SIMULATE_MUSA=force) to simulate anyway")
        env["TORCHADA_SIMULATE_MUSA"] = "force" if force or read("TORCHADA_SIMULATE_MUSA", env) == "force" else "1"
    if cuda_available:
        env.setdefault("TORCHADA_FORCE_CUDA_AVAILABLE", "1")
    env.update(extra_env)
    env["_TORCHADA_RUN_SUMMARY"] = "1" if summary else "0"
    if summary:
        env.setdefault("TORCHADA_TRACE", "1")  # the summary's translated-call lines
    try:
        return subprocess.call([sys.executable, "-c", _WRAPPER, prog] + argv, env=env)
    except KeyboardInterrupt:
        return 130
