"""torchada start-up hook for environments that skip .pth files (docs/activation.md).

Put this folder on PYTHONPATH (or copy this file into a folder on sys.path). It activates
torchada exactly as torchada_autoload.pth would, then runs the sitecustomize that it hides,
if there is one further down sys.path, so an existing site customisation keeps working.
"""


def _torchada_activate():
    try:
        import torchada_boot
    except Exception:  # torchada not installed here: stay silent
        return
    torchada_boot.activate()


def _run_hidden_sitecustomize():
    import importlib.machinery
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    for entry in list(sys.path):
        try:
            if os.path.abspath(entry or os.getcwd()) == here:
                continue
            spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [entry])
        except Exception:
            continue
        if spec is None or spec.loader is None or spec.origin == os.path.abspath(__file__):
            continue
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the same courtesy site.py gives a failing sitecustomize
            sys.stderr.write("Error in sitecustomize (%s, chained by torchada): %s: %s\n"
                             % (spec.origin, type(exc).__name__, exc))
        return


_torchada_activate()
_run_hidden_sitecustomize()
del _torchada_activate, _run_hidden_sitecustomize
