"""torchada start-up hook: decide cheaply whether this is a MUSA machine.

Runs in every Python process of an environment that has torchada installed (from
``torchada_autoload.pth`` or ``hooks/``), so it is stdlib only, imports nothing heavy, never
imports torch, writes no file, sets no environment variable, touches no device and never
raises. The public name ``activate`` is frozen: installed .pth/.start files call it.

Decision order (documented in docs/activation.md):
  1. ``-X torchada=off|0|false``            -> nothing happens
  2. ``TORCHADA_PLATFORM=off|cuda|cpu``      -> platform recorded, nothing patched
     ``TORCHADA_PLATFORM=musa``              -> activate
     anything else                           -> one warning, then auto-detection
  3. ``TORCHADA_SIMULATE_MUSA=1|force``      -> simulated torch_musa put on sys.path, activate
  4. torch_musa findable (stat of <entry>/torch_musa/__init__.py per sys.path entry, or an
     editable-install finder naming torch_musa on sys.meta_path) -> activate
  otherwise nothing is installed.
"""

import os
import sys

__all__ = ["activate", "decision"]

PLATFORM_VALUES = ("musa", "cuda", "cpu", "off")
_OFF_WORDS = ("off", "0", "false", "no")

# The decision of this process: None until activate() ran, then a (platform, reason) tuple.
# platform is one of "musa", "cuda", "cpu", "off" or None (auto-detection found no MUSA).
decision = None
# "<exception type>: <message>" when activating torchada raised (the decision may still say
# musa: the machine is one, torchada is not running on it); read by `torchada doctor`.
error = None


def _warn(message):
    try:
        sys.stderr.write("torchada: warning: %s\n" % message)
    except Exception:
        pass


def _xoption():
    value = getattr(sys, "_xoptions", {}).get("torchada")
    if value is None:
        return None
    if value is True:  # bare ``-X torchada``
        return "on"
    value = str(value).strip().lower()
    if value in _OFF_WORDS:
        return "off"
    if value in ("on", "1", "true", "yes", "auto"):
        return "on"
    _warn(
        "-X torchada=%s is not understood; use -X torchada=off (or 0, false) to disable "
        "torchada; continuing with auto-detection" % value
    )
    return "on"


def _forced_platform():
    raw = os.environ.get("TORCHADA_PLATFORM")
    if raw is None or not raw.strip():
        return None
    value = raw.strip().lower()
    if value in PLATFORM_VALUES:
        return value
    _warn(
        "TORCHADA_PLATFORM=%r is not one of %s; using auto-detection"
        % (raw, ", ".join(PLATFORM_VALUES))
    )
    return None


def simulator_root():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "torchada", "testing", "_simroot")


def _search_dirs():
    """sys.path, then the site directories site adds after the .pth files already read:
    in a --system-site-packages venv the base site-packages joins sys.path only after the
    venv's own .pth files ran."""
    dirs = list(sys.path)
    site = sys.modules.get("site")
    if site is not None and hasattr(site, "getsitepackages"):
        try:
            dirs += [d for d in site.getsitepackages() if d not in dirs]
        except Exception:  # a replaced or embedded site module
            pass
    return dirs


def real_torch_musa_entry():
    """The sys.path entry holding an installed torch_musa, or None (stat only, no import)."""
    sim = simulator_root()
    for entry in _search_dirs():
        if not entry or not isinstance(entry, str) or os.path.abspath(entry) == sim:
            continue
        try:
            if os.path.isfile(os.path.join(entry, "torch_musa", "__init__.py")):
                return entry
        except (OSError, ValueError):
            continue
    for finder in sys.meta_path:
        # setuptools editable installs register a finder named after the distribution.
        if "torch_musa" in getattr(type(finder), "__module__", ""):
            return "<editable install>"
    return None


def _simulation_request():
    raw = os.environ.get("TORCHADA_SIMULATE_MUSA")
    if raw is None or not raw.strip():
        return None
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return "on"
    if value == "force":
        return "force"
    if value in _OFF_WORDS:
        return None
    _warn("TORCHADA_SIMULATE_MUSA=%r is not one of 1, force, 0; simulation stays off" % raw)
    return None


def _enable_simulator(request):
    real = real_torch_musa_entry()
    if real is not None and request != "force":
        _warn(
            "TORCHADA_SIMULATE_MUSA=1 ignored: a real torch_musa is installed (%s); "
            "set TORCHADA_SIMULATE_MUSA=force to shadow it with the simulator" % real
        )
        return False
    root = simulator_root()
    if not os.path.isdir(os.path.join(root, "torch_musa")):
        _warn("TORCHADA_SIMULATE_MUSA is set but the simulator is missing at %s" % root)
        return False
    if root not in sys.path:
        sys.path.insert(0, root)
    return True


def _decide():
    if _xoption() == "off":
        return "off", "-X torchada=off"
    forced = _forced_platform()
    if forced in ("off", "cuda", "cpu"):
        return forced, "TORCHADA_PLATFORM=%s" % forced
    simulate = _simulation_request()
    if simulate and _enable_simulator(simulate):
        return "musa", "simulated torch_musa (TORCHADA_SIMULATE_MUSA)"
    if forced == "musa":
        return "musa", "TORCHADA_PLATFORM=musa"
    entry = real_torch_musa_entry()
    if entry is not None:
        return "musa", "torch_musa found in %s" % entry
    return None, "no torch_musa found"


def activate():
    """Entry point of the start-up hook. Idempotent; never raises."""
    global decision, error
    if decision is not None:
        return decision
    try:
        decision = _decide()
        if decision[0] == "musa":
            from torchada._core import activation

            activation.activate_musa(decision[1])
    except Exception as exc:  # the user's program must run whatever happens here
        decision = decision or ("off", "boot error")
        error = "%s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:300])
        _warn("start-up hook failed (%s: %s); torchada is inactive. Disable it with "
              "TORCHADA_PLATFORM=off" % (type(exc).__name__, exc))
    return decision
