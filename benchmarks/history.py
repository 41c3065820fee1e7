"""Append one benchmark result, with host and versions, to benchmarks/history.jsonl."""

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

HISTORY = Path(__file__).with_name("history.jsonl")


def environment():
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    try:
        info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HISTORY.parent,
                                        capture_output=True, text=True).stdout.strip() or None
    except OSError:
        info["commit"] = None
    for name in ("torch", "torch_musa", "torchada"):
        module = sys.modules.get(name)
        info[name] = getattr(module, "__version__", None) if module else None
    return info


def append(benchmark, results, **extra):
    record = {"benchmark": benchmark, **environment(), **extra, "results": results}
    with HISTORY.open("a") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    return record
