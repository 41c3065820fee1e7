"""``torchada doctor``: is torchada installed and working here, and if not, what to do.

Checks, each giving one line (and one line of fix per problem):
  versions     torchada, Python, torch, torch_musa (simulated or real), the MUSA runtime,
               driver and toolkit where visible, triton, mccl
  hook         the start-up hook file in a site directory, and that it fires (a child
               interpreter with TORCHADA_PLATFORM=off must have loaded the boot module)
  platform     what the hook decides here (a child with TORCHADA_PLATFORM unset), and the
               torch / torch_musa imports as a program would do them
  native       the compiled device prefilter, and the run-time native caches, the user's
               and the system's (trusted or refused; each library verified against its
               recorded digest; failure markers with their reason)
  finders      other sys.meta_path finders that could see torch's imports first
  environment  CUDA_* / NCCL_* variables whose MUSA / MCCL twins are set to something else
  areas        every area and fix unit: applied, skipped (why), or for an area whose trigger
               was not imported, whether its gate would let it apply

Broken (exit status 1):
  * the hook file is in no site directory, or it is there and does not fire;
  * torch does not import;
  * on a MUSA machine (a torch_musa is findable, or the simulator is asked for): the hook
    does not activate torchada (it did not run, or activating raised), torch_musa does not
    import, or an area failed;
  * the probe could not read the hook's decision or torchada's status (``boot_error``,
    ``areas_error``); its other steps' errors (versions, finders, native) are warnings.
Everything else is a warning (exit status 0): torchada still runs the program.
"""
import json
import os
import shutil
import subprocess
import sys

from torchada.doctor_finders import owner

OK, INFO, WARN, FAIL = "ok", "info", "warn", "FAIL"
HOOK_FILES = ("torchada_autoload.pth", "torchada_autoload.start")
# Not `pip install torchada`: that name on PyPI is an unrelated package (README).
REINSTALL = ("reinstall torchada into this interpreter's environment from its checkout or "
             "wheel: %s -m pip install --force-reinstall --no-deps ./torchada (or "
             "dist/torchada-*.whl); it puts torchada_autoload.pth into site-packages"
             % os.path.basename(sys.executable))
REPORT = "report it with the output of `torchada doctor --json`"
# The probe's steps (doctor_probe.probe): what each reads, and whether its error breaks.
PROBE_STEPS = (("boot", "the start-up hook's decision", FAIL),
               ("areas", "torchada.status()", FAIL),
               ("versions", "the versions of torch_musa, triton and mccl", WARN),
               ("finders", "the import finders", WARN),
               ("native", "the native pieces", WARN))
CHILD_TIMEOUT_S = 300


class Finding:
    __slots__ = ("level", "topic", "text", "fix")

    def __init__(self, level, topic, text, fix=None):
        self.level, self.topic, self.text, self.fix = level, topic, text, fix

    def as_dict(self):
        return {"level": self.level, "topic": self.topic, "text": self.text, "fix": self.fix}


# -- children ----------------------------------------------------------------------------------
def _child_env(**changes):
    from torchada.run_cmd import child_pythonpath

    env = dict(os.environ)
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = child_pythonpath(src, env.get("PYTHONPATH", ""))
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _run_child(code, env):
    """(last JSON line of stdout or None, a one-line error or None)."""
    try:
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, "%s: %s" % (type(exc).__name__, exc)
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith(("{", "[", "true", "false")):
            try:
                return json.loads(line), None
            except ValueError:
                break
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return None, "the child interpreter exited with %d: %s" % (proc.returncode, tail[:300])


_HOOK_CODE = ("import sys, json; b = sys.modules.get('torchada_boot'); "
              "print(json.dumps(bool(b is not None and b.decision)))")


def hook_fires():
    """Whether the start-up hook loads the boot module in a fresh interpreter, asked with
    TORCHADA_PLATFORM=off (which loads it on every machine, then patches nothing)."""
    fired, error = _run_child(_HOOK_CODE, _child_env(TORCHADA_PLATFORM="off"))
    return fired is True, error


def probe():
    """What a program started here gets (torchada.doctor_probe, TORCHADA_PLATFORM unset)."""
    from torchada.doctor_probe import PRELUDE

    return _run_child(PRELUDE, _child_env(TORCHADA_PLATFORM=None))


# -- facts read in this process ----------------------------------------------------------------
def site_dirs():
    import site

    dirs = []
    try:
        dirs += site.getsitepackages()
    except Exception:  # a replaced site module
        pass
    try:
        dirs.append(site.getusersitepackages())
    except Exception:
        pass
    return [d for d in dict.fromkeys(dirs) if d]


def hook_files(dirs=None):
    return [os.path.join(d, name) for d in (site_dirs() if dirs is None else dirs)
            for name in HOOK_FILES if os.path.isfile(os.path.join(d, name))]


def _command_line(argv, timeout=10):
    """First non-empty output line of a tool, or None (missing, failing or slow)."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.strip():
            return line.strip()[:200]
    return None


def _read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()[:200] or None
    except OSError:
        return None


def musa_system():
    """The MUSA driver and toolkit where this machine shows them (all optional)."""
    from torchada.detection import musa_home

    facts = {}
    home = musa_home()
    facts["toolkit"] = home
    mcc = os.path.join(home, "bin", "mcc") if home else None
    if not (mcc and os.path.isfile(mcc)):
        mcc = shutil.which("mcc")
    facts["mcc"] = _command_line([mcc, "--version"]) if mcc else None
    facts["driver"] = _read_first_line("/sys/module/mtgpu/version")
    gmi = shutil.which("mthreads-gmi")
    if gmi:
        facts["mthreads-gmi"] = _command_line([gmi]) or gmi
    return facts


def environment_conflicts(environ=None):
    """[(cuda name, musa name, cuda value, musa value)] for every mirrored pair (the
    env_mirror area's table) set to different values: the MUSA name wins on MUSA."""
    from torchada.areas._cuda_env_names import PAIRS

    environ = os.environ if environ is None else environ
    return [(c, m, environ[c], environ[m]) for c, m in PAIRS
            if c in environ and m in environ and environ[c] != environ[m]]


# -- the checks --------------------------------------------------------------------------------
def _versions(found, facts, data, system):
    import torchada

    add = found.append
    add(Finding(INFO, "torchada", "%s (%s)" % (torchada.__version__,
                                              os.path.dirname(os.path.abspath(torchada.__file__)))))
    add(Finding(INFO, "python", "%s (%s)" % (sys.version.split()[0], sys.executable)))
    if data is None:
        return
    musa = data.get("torch_musa")
    if musa and data.get("simulated"):
        musa += " (torchada's simulator)"
    elif not musa and data.get("torch_musa_entry"):
        musa = "in %s, version unknown" % data["torch_musa_entry"]
    add(Finding(INFO, "torch", data.get("torch") or "not importable"))
    add(Finding(INFO, "torch_musa", musa or "not installed"))
    add(Finding(INFO, "MUSA", "runtime %s, driver %s, toolkit %s%s%s" % (
        data.get("musa_runtime") or "-", system.get("driver") or "not visible",
        system.get("toolkit") or "not found",
        " (mcc: %s)" % system["mcc"] if system.get("mcc") else "",
        "; mthreads-gmi: %s" % system["mthreads-gmi"] if system.get("mthreads-gmi") else "")))
    add(Finding(INFO, "triton", data.get("triton") or "not installed"))
    add(Finding(INFO, "mccl", data.get("mccl") or "not available"))
    facts["versions"] = {k: data.get(k) for k in ("torch", "torch_musa", "simulated",
                                                  "musa_runtime", "triton", "mccl")}
    facts["versions"].update(system)


def _hook(found, files, fires, error):
    if not files:
        found.append(Finding(FAIL, "hook", "torchada_autoload.pth is in none of this "
                             "interpreter's site directories (%s)" % ", ".join(site_dirs()),
                             REINSTALL))
    elif not fires:
        found.append(Finding(FAIL, "hook", "%s is installed but did not load torchada's boot "
                             "module in a fresh interpreter%s" % (files[0], " (%s)" % error
                                                                   if error else ""),
                             "check that torchada is importable from that environment (%s -c "
                             "'import torchada_boot'), then %s" % (
                                 os.path.basename(sys.executable), REINSTALL)))
    else:
        found.append(Finding(OK, "hook", "%s fires in a fresh interpreter" % files[0]))


def _platform(found, data):
    from torchada._core import settings

    user = settings.read("TORCHADA_PLATFORM", default=None)  # a malformed value warns
    if user:
        found.append(Finding(WARN, "platform", "TORCHADA_PLATFORM=%s is set here: it overrides "
                             "what is reported below (checked without it)" % user,
                             "unset TORCHADA_PLATFORM to let torchada detect the platform"))
    musa_machine = bool(data.get("torch_musa_entry")) or data.get("platform") == "musa"
    if "torch_error" in data:
        found.append(Finding(FAIL, "torch", "import torch fails: %s" % data["torch_error"],
                             "install torch (and the torch_musa built for it)"))
        return musa_machine
    if not musa_machine:
        found.append(Finding(OK, "platform", "no torch_musa found: torchada stays inactive "
                             "here (nothing is patched; TORCHADA_SIMULATE_MUSA=1 or "
                             "`torchada run --simulate` runs on the simulated device)"))
        return False
    decision = data.get("hook_decision")
    if not data.get("hook_fired") or not decision or decision[0] != "musa":
        found.append(Finding(FAIL, "platform", "torch_musa is installed (%s) but the start-up "
                             "hook did not activate torchada (%s)" % (
                                 data.get("torch_musa_entry") or "simulated",
                                 decision[1] if decision else "it did not run"),
                             REINSTALL))
    elif data.get("activated") is False or data.get("activation_error"):
        found.append(Finding(FAIL, "platform", "this is a MUSA machine (%s) but torchada is "
                             "not running: activating it raised %s" % (
                                 decision[1], data.get("activation_error") or "no error, and "
                                 "no registry was made"),
                             "%s; if that does not help, %s (TORCHADA_PLATFORM=off runs "
                             "programs without torchada meanwhile)" % (REINSTALL, REPORT)))
        return True
    else:
        found.append(Finding(OK, "platform", "musa: %s" % decision[1]))
    if data.get("torch_musa_error"):
        found.append(Finding(FAIL, "torch_musa", "import torch_musa fails: %s"
                             % data["torch_musa_error"],
                             "reinstall the torch_musa wheel built for torch %s and this MUSA "
                             "driver (see docs/migrate.md, compatibility)" % data.get("torch")))
    elif data.get("devices") == 0:
        found.append(Finding(WARN, "devices", "torch_musa imports but sees no MUSA device",
                             "check the driver (mthreads-gmi) and MUSA_VISIBLE_DEVICES"))
    return True


def _native(found, data):
    native = data.get("native") or {}
    if (data.get("platform") != "musa" or data.get("torch_musa_error")
            or data.get("activated") is False):
        return  # nothing native is loaded without torch_musa, or without torchada running
    if native.get("prefilter"):
        found.append(Finding(WARN, "native", "device prefilter: %s" % native["prefilter"],
                             "reinstall torchada from a wheel (or with a C++ compiler)"))
    else:
        found.append(Finding(OK, "native", "device prefilter: compiled, loaded (route: %s)"
                             % native.get("route")))
    _cache(found, "run-time", native, "until then native pieces fall back to their Python "
           "versions")
    system = native.get("system")
    if system:
        _cache(found, "system", system, "this user builds its own cache instead (the user's "
               "cache is searched first)")


def _cache(found, label, cache, meanwhile):
    """The findings of one native cache (the user's "run-time" one, or the system's)."""
    if cache.get("cache_refused"):
        found.append(Finding(WARN, "native", "%s native cache refused: %s"
                             % (label, cache["cache_refused"]), meanwhile))
    for failed in cache.get("failed_builds") or ():
        found.append(Finding(WARN, "native", "%s failed to build (not retried with this key): %s"
                             % (os.path.basename(failed["path"]), failed["reason"]),
                             "fix the cause it names, then run `torchada build` (it retries); "
                             "until then the Python fallbacks answer"))
    libraries = cache.get("libraries") or []
    bad = [lib for lib in libraries if lib.get("problem")]
    if libraries or cache.get("cache"):
        found.append(Finding(OK if not bad else WARN, "native", "%s cache %s: %d "
                             "libraries, %d verified" % (label, cache.get("cache"), len(libraries),
                                                         len(libraries) - len(bad)),
                             None if not bad else "a library that fails verification is "
                             "never loaded and is rebuilt on use; first: %s %s"
                             % (bad[0]["path"], bad[0]["problem"])))


def _finders(found, data):
    finders = data.get("meta_path") or []
    mine = next((i for i, f in enumerate(finders) if f.endswith("TorchadaFinder")), None)
    if data.get("active") and mine is None:
        found.append(Finding(FAIL, "finders", "torchada is active but its import finder is "
                             "not on sys.meta_path", REPORT))
    known = []
    for i, name in enumerate(finders):
        who = owner(name)
        if who is not None:
            if who not in ("the interpreter", "torchada"):
                known.append("%s (%s)" % (name, who))
            continue
        where = "before" if mine is not None and i < mine else "after"
        found.append(Finding(WARN, "finders", "%s is on sys.meta_path %s torchada's finder: "
                             "if it supplies torch modules, areas may apply late or not "
                             "at all" % (name, where if mine is not None else "(torchada "
                                         "inactive)"),
                             "check `torchada status` after import torch in your program"))
    if known:
        found.append(Finding(INFO, "finders", "known: %s" % ", ".join(known)))


def _probe_errors(found, data):
    """One finding per probe step that raised (a FAIL for the ones the verdict rests on)."""
    named = {step for step, _, _ in PROBE_STEPS}
    for step, what, level in PROBE_STEPS:
        # a failed activation fails status() the same way: one problem, said once
        if data.get(step + "_error") and data[step + "_error"] != data.get("activation_error"):
            found.append(Finding(level, "probe",
                                 "reading %s in a fresh interpreter raised %s"
                                 % (what, data[step + "_error"]), REPORT))
    handled = named | {"torch", "torch_musa", "activation"}
    for key in sorted(data):
        if key.endswith("_error") and data[key] and key[:-len("_error")] not in handled:
            found.append(Finding(WARN, "probe", "%s: %s" % (key, data[key]), REPORT))


def _environment(found):
    for cuda, musa, cuda_value, musa_value in environment_conflicts():
        found.append(Finding(WARN, "environment", "%s=%r but %s=%r: on MUSA the %s value wins"
                             % (cuda, cuda_value, musa, musa_value, musa),
                             "unset %s (torchada mirrors %s into it) or make them equal"
                             % (musa, cuda)))


def _areas(found, data):
    areas = data.get("areas") or []
    if not data.get("active"):
        if areas:
            found.append(Finding(INFO, "areas", "none apply: %s" % areas[0].get("reason")))
        return
    for area in areas:
        state, reason = area["state"], area.get("reason")
        if state == "pending":
            gate = area.get("gate")
            text = ("would apply when %s is imported" % " or ".join(area["triggers"])
                    if gate is None else "would be skipped: %s" % gate)
            found.append(Finding(INFO, "areas", "%s pending: %s" % (area["name"], text)))
        elif state == "failed":
            found.append(Finding(FAIL, "areas", "%s failed: %s" % (area["name"], reason),
                                 "TORCHADA_DISABLE_AREAS=%s silences it; please report the "
                                 "error" % area["name"]))
        else:
            found.append(Finding(INFO, "areas", "%s %s%s" % (area["name"], state,
                                                            " - %s" % reason if reason else "")))
        for fix in area.get("fixes") or ():
            found.append(Finding(INFO, "areas", "  %s %s%s" % (
                fix["name"], fix["state"], " - %s" % fix["reason"] if fix["reason"] else "")))


def _operators(found, data):
    ops = data.get("operators")
    if not ops:
        return
    from torchada._core import settings

    if not ops["missing"]:
        found.append(Finding(OK, "operators", "torch_musa %s has a kernel for every aten "
                             "operator with a CPU kernel (%s)" % (ops["release"], ops["source"])))
        return
    on = settings.read("TORCHADA_CPU_FALLBACK", default=True)
    found.append(Finding(INFO if on else WARN, "operators", "torch_musa %s has no kernel for "
                         "%d aten operators (%s); %s: %s" % (
                             ops["release"], len(ops["missing"]), ops["source"],
                             "they run on the CPU when called (docs/cpu_fallback.md)" if on else
                             "they raise (TORCHADA_CPU_FALLBACK=0)", ", ".join(ops["missing"])),
                         None if on else "unset TORCHADA_CPU_FALLBACK to run them on the CPU"))


def diagnose():
    """(findings, facts): everything the doctor found."""
    found, facts = [], {}
    files = hook_files()
    fires, hook_error = hook_fires()
    data, error = probe()
    facts.update(hook_files=files, hook_fires=fires, probe=data, probe_error=error)
    system = _guarded(found, "the MUSA driver and toolkit", musa_system) or {}
    _versions(found, facts, data, system)
    _hook(found, files, fires, hook_error)
    if data is None:
        found.append(Finding(FAIL, "platform", "a fresh interpreter could not be examined: %s"
                             % error, "run `%s -c 'import torch, torchada'` to see why"
                             % os.path.basename(sys.executable)))
    else:
        _probe_errors(found, data)
        if "boot_error" not in data:  # without the decision the rest has nothing to read
            _platform(found, data)
            _native(found, data)
            _finders(found, data)
            _areas(found, data)
            _operators(found, data)
    _guarded(found, "the CUDA / MUSA variables", _environment, found)
    return found, facts


def _guarded(found, what, step, *args):
    """``step(*args)``, or None and a warning when it raises: these steps import parts of
    torchada in this process, and the doctor must describe a broken install, not crash."""
    try:
        return step(*args)
    except Exception as exc:
        found.append(Finding(WARN, "doctor", "reading %s raised %s: %s" % (
            what, type(exc).__name__, " ".join(str(exc).split())[:300]), REPORT))
        return None


def format_findings(found):
    lines = ["torchada doctor"]
    for f in found:
        lines.append("  %-5s %-11s %s" % (f.level if f.level != INFO else "", f.topic, f.text))
        if f.fix and f.level in (WARN, FAIL):
            lines.append("  %-5s %-11s fix: %s" % ("", "", f.fix))
    problems = [f for f in found if f.level == FAIL]
    warnings = [f for f in found if f.level == WARN]
    lines.append("result: %s" % ("broken install (%d problem%s)" % (
        len(problems), "s" if len(problems) > 1 else "") if problems else
        "healthy%s" % (" (%d warning%s)" % (len(warnings), "s" if len(warnings) > 1 else "")
                       if warnings else "")))
    return "\n".join(lines)


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="torchada doctor", description=(
        "check the torchada install here; exit status 1 when it is broken"))
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    found, facts = diagnose()
    broken = any(f.level == FAIL for f in found)
    if args.json:
        print(json.dumps({"broken": broken, "findings": [f.as_dict() for f in found],
                          "facts": facts}, indent=1, default=str))
    else:
        print(format_findings(found))
    return 1 if broken else 0
