"""TORCHADA_GRAPH_AUTOPROBE=1: measure the driver's live-executable limit once, in a child.

The child captures one-kernel graphs until instantiate fails (or LIMIT graphs live) and
prints the count; it runs with a time limit and rotation off. The answer is cached per
machine under the user cache, keyed by torch_musa release, MUSA version and device name,
so later processes do not probe again. Any failure: one warning, the configured cap.
"""
import hashlib
import json
import logging
import os
import subprocess
import sys

from torchada.areas._graph_exec import settings

logger = logging.getLogger("torchada")
LIMIT = 1 << 16
TIMEOUT_S = 180


def _cache_file(torch):
    from torchada._core.native_cache import trusted_dir

    musa = getattr(torch, "musa")
    key = "|".join(str(part) for part in (
        getattr(sys.modules.get("torch_musa"), "__version__", "?"),
        getattr(torch.version, "musa", "?"), musa.get_device_name(0)))
    name = hashlib.sha256(key.encode()).hexdigest()[:16] + ".json"
    return os.path.join(trusted_dir("graph_exec_cap"), name)


def measured_limit(torch):
    """The live-executable limit of this machine's driver, or None (with one warning).
    An unwritable cache only costs a probe per process."""
    from torchada._core.files import write_atomic
    from torchada._core.native_cache import CacheRefused

    path = None  # stays None when the cache directory cannot be made or is refused
    try:
        path = _cache_file(torch)
        with open(path) as f:
            return int(json.load(f)["limit"])
    except (OSError, ValueError, KeyError, TypeError, CacheRefused):
        pass
    env = dict(os.environ, **{settings.ROTATION_VAR: "0", settings.AUTOPROBE_VAR: "0"})
    try:
        proc = subprocess.run([sys.executable, "-m", "torchada.areas._graph_exec.probe"],
                              env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        logger.warning("torchada: %s=1: the graph limit probe took over %d s; using %s",
                       settings.AUTOPROBE_VAR, TIMEOUT_S, settings.CAP_VAR)
        return None
    except OSError as exc:
        logger.warning("torchada: %s=1: the graph limit probe could not start (%s); using %s",
                       settings.AUTOPROBE_VAR, exc, settings.CAP_VAR)
        return None
    try:
        limit = int(json.loads(proc.stdout.strip().splitlines()[-1])["limit"])
    except (ValueError, KeyError, IndexError, TypeError):
        logger.warning("torchada: %s=1: the graph limit probe failed (exit %s: %s); using %s",
                       settings.AUTOPROBE_VAR, proc.returncode,
                       (proc.stderr.strip().splitlines() or ["no output"])[-1][:200],
                       settings.CAP_VAR)
        return None
    if path is not None:
        try:
            write_atomic(path, json.dumps({"limit": limit}).encode())
        except OSError:
            pass
    return limit


def _child():
    import torch
    import torch_musa  # noqa: F401  (the real one, or the simulator's)

    x = torch.zeros(1, device="musa")
    stream = torch.musa.Stream()
    graphs = []
    with torch.musa.stream(stream):
        while len(graphs) < LIMIT:
            graph = torch.musa.MUSAGraph()
            try:
                with torch.musa.graph(graph, stream=stream):
                    x.add_(1)
            except RuntimeError:
                break
            graphs.append(graph)
    print(json.dumps({"limit": len(graphs)}))


if __name__ == "__main__":
    _child()
