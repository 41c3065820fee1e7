"""Cost at activation of the warnings for CUDA variables with no effect on MUSA (env_mirror
area, issue 23 part 5), when no such variable is set: the normal case, which must stay ~free.

In one child on the simulated device (TORCHADA_SIMULATE_MUSA=1, torchada active), interleaved
rounds of the area's check (one pass over os.environ's names for the table's names and the
TORCH_NCCL_ prefix; the switch is read only when something is found) and of an empty call of
the same signature (activation before this check), N calls each; the median paired difference
per call is what the warnings add to an activation (the check runs once per process).

Rerun:  .venv/bin/python benchmarks/env_warning_cost.py [--rounds 31] [--calls 2000]
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

CHILD = r'''
import json, logging, os, statistics, sys, time
import torch, torchada
from torchada.areas import env_mirror
rounds, calls = int(sys.argv[1]), int(sys.argv[2])
logger = logging.getLogger("torchada")
def empty(logger, environ):
    return None
funcs = {"check": env_mirror._warn_without_effect, "empty": empty}
times = {"check": [], "empty": []}
for r in range(rounds):
    for mode in (("check", "empty") if r % 2 == 0 else ("empty", "check")):
        f = funcs[mode]
        t = time.perf_counter()
        for _ in range(calls):
            f(logger, os.environ)
        times[mode].append((time.perf_counter() - t) / calls * 1e6)
med = statistics.median
diffs = [a - b for a, b in zip(times["check"], times["empty"])]
print(json.dumps({"check_us": med(times["check"]), "empty_us": med(times["empty"]),
                  "added_us": med(diffs), "environ_size": len(os.environ),
                  "on_musa": torch.cuda.get_device_properties(0).name.startswith("MTT")}))
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    from torchada.areas import _env_without_effect as table

    # none of the table's variables set: the case that must cost nothing
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TORCHADA_", table.TORCH_NCCL_PREFIX))
           and k not in {row.name for row in table.NAMED}}
    env["TORCHADA_SIMULATE_MUSA"] = "1"
    out = subprocess.run([sys.executable, "-c", CHILD, str(args.rounds), str(args.calls)],
                         env=env, capture_output=True, text=True, check=True, timeout=600)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    results = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in data.items()}
    results.update(rounds=args.rounds, calls=args.calls, target="added_us < 20 per activation")
    print("check %.2f us, empty call %.2f us: added %.2f us per activation "
          "(os.environ of %d names)" % (data["check_us"], data["empty_us"], data["added_us"],
                                         data["environ_size"]))
    if not args.no_history:
        history.append("env_warning_cost", results)


if __name__ == "__main__":
    main()
