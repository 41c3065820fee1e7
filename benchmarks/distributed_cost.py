"""Cost of the distributed area on the simulated device (issue 09), one process, world size 1.

Interleaved rounds in one child with TORCHADA_SIMULATE_MUSA=1:
  init       : init_process_group("nccl") (translated) vs init_process_group("mccl"), each
               followed by destroy_process_group, wall time per pair in ms;
  collective : N all_reduce calls on a 4-element musa tensor in a group made with "nccl" vs
               one made with "mccl" (same process, two groups), ns per call.
Goal: collectives +0 (translation happens at group creation only).

Rerun:  .venv/bin/python benchmarks/distributed_cost.py [--rounds 31] [--calls 500]
(SWAP=1 creates the 'mccl' group first, to see that group order, not the name, moves it.)
"""
import argparse
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

CHILD = r'''
import json, os, statistics, sys, time
import torch, torch.distributed as dist
rounds, calls, port = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, RANK="0", WORLD_SIZE="1")
init_t = {"nccl": [], "mccl": []}
for r in range(rounds):
    for name in (("nccl", "mccl") if r % 2 == 0 else ("mccl", "nccl")):
        t = time.perf_counter()
        dist.init_process_group(name)
        dist.destroy_process_group()
        init_t[name].append((time.perf_counter() - t) * 1e3)
dist.init_process_group("mccl")
made = [(n, dist.new_group([0], backend=n)) for n in (("mccl", "nccl") if os.environ.get("SWAP") else ("nccl", "mccl"))]
groups = dict(made)
x = torch.ones(4, device="cuda")
coll_t = {k: [] for k in groups}
for r in range(rounds):
    for name in (list(groups) if r % 2 == 0 else list(groups)[::-1]):
        g = groups[name]
        dist.all_reduce(x, group=g)
        t = time.perf_counter()
        for _ in range(calls):
            dist.all_reduce(x, group=g)
        coll_t[name].append((time.perf_counter() - t) / calls * 1e9)
dist.destroy_process_group()
med = statistics.median
unwrapped = "torchada" not in dist.all_reduce.__code__.co_filename
print(json.dumps({"all_reduce_is_torchs": unwrapped,
                  "init_ms": {k: med(v) for k, v in init_t.items()},
                  "all_reduce_ns": {k: med(v) for k, v in coll_t.items()}}))
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env["TORCHADA_SIMULATE_MUSA"] = "1"
    out = subprocess.run([sys.executable, "-c", CHILD, str(args.rounds), str(args.calls), str(port)],
                         env=env, capture_output=True, text=True, check=True, timeout=600)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    results = {"all_reduce_is_torchs": data["all_reduce_is_torchs"]}
    print("dist.all_reduce is torch's own function (not wrapped):", data["all_reduce_is_torchs"])
    for measure in ("init_ms", "all_reduce_ns"):
        v = data[measure]
        ratio = v["nccl"] / v["mccl"]
        results[measure] = dict(v, ratio=round(ratio, 3))
        print("%-14s 'nccl' %10.3f  'mccl' %10.3f  ratio %.3f" % (measure, v["nccl"], v["mccl"], ratio))
    results.update(rounds=args.rounds, calls=args.calls)
    if not args.no_history:
        history.append("distributed_cost", results)


if __name__ == "__main__":
    main()
