"""Cost of graph executable rotation (issue 10) on the simulated device.

  below    : replay below the cap, rotation on vs TORCHADA_GRAPH_ROTATION=0, paired child
             processes in alternating order, ns per replay (goal: ratio 1.00 within noise;
             below the cap replay is torch_musa's own function, see ``replay_is_torch_musas``);
  tracking : above the cap, replays of live graphs through the rotation's replay vs the
             function it wraps, interleaved in one child (the LRU touch and lock), ns;
  miss     : round-robin over more graphs than the cap, so every replay re-instantiates
             (the worst case): ms per re-instantiation with the simulator's instantiate cost
             (TORCHADA_SIM_GRAPH_INSTANTIATE_US, default 300, issue 10's S5000 figure);
  memory   : bytes the rotation keeps per tracked graph (tracemalloc, lru.py only). The
             templates themselves are torch_musa's: it keeps them for reinstantiate_graph
             with or without torchada, so rotation adds no template memory.

Hardware formula: extra time per replay = miss rate x (t_instantiate + t_free) + the
tracking overhead; t_instantiate is about 0.3 ms on an S5000 (issue 10).

Rerun:  .venv/bin/python benchmarks/graph_rotation.py [--rounds 11]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

CHILD = r'''
import gc, json, statistics, sys, time, tracemalloc
import torch, torchada
mode, n, loops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
x = torch.ones(4, device="cuda")
s = torch.cuda.Stream()
graphs = []
if mode == "memory":
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
with torch.cuda.stream(s):
    for i in range(n):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            x.add_(1)
        graphs.append(g)
gc.freeze()
def per_replay(fn, gs):
    t = time.perf_counter()
    for _ in range(loops):
        for g in gs:
            fn(g)
    return (time.perf_counter() - t) / (loops * len(gs)) * 1e9
cls = torch.musa.MUSAGraph
out = {"replay_is_torch_musas": not hasattr(cls.replay, "__wrapped__")}
if mode == "below":
    per_replay(cls.replay, graphs)
    out["ns"] = per_replay(cls.replay, graphs)
elif mode == "tracking":
    live = graphs[-48:]
    wrapper, base = cls.replay, cls.replay.__wrapped__
    t = {"rotation": [], "base": []}
    for r in range(int(sys.argv[4])):
        for name, fn in ((("rotation", wrapper), ("base", base)) if r % 2 == 0 else (("base", base), ("rotation", wrapper))):
            t[name].append(per_replay(fn, live))
    out.update({k: statistics.median(v) for k, v in t.items()})
elif mode == "miss":
    from torchada.areas._graph_exec import install
    r = install.active()
    start = r.reinstantiations, r.reinstantiate_seconds
    out["ns"] = per_replay(cls.replay, graphs)
    out["reinstantiations"] = r.reinstantiations - start[0]
    out["ms_per_reinstantiate"] = (r.reinstantiate_seconds - start[1]) / max(1, out["reinstantiations"]) * 1e3
elif mode == "memory":
    after = tracemalloc.take_snapshot()
    lru = [st for st in after.compare_to(before, "filename") if st.traceback[0].filename.endswith("lru.py")]
    out["bytes_per_graph"] = sum(st.size_diff for st in lru) / n
print(json.dumps(out))
'''


def child(mode, n, loops, env_extra, rounds=1):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env.update(TORCHADA_SIMULATE_MUSA="1", **env_extra)
    proc = subprocess.run([sys.executable, "-c", CHILD, mode, str(n), str(loops), str(rounds)],
                          env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    results = {}

    below = {"on": [], "off": []}
    same_function = []
    for r in range(args.rounds):
        for name in (("on", "off") if r % 2 == 0 else ("off", "on")):
            env = {} if name == "on" else {"TORCHADA_GRAPH_ROTATION": "0"}
            data = child("below", 64, 40, env)
            below[name].append(data["ns"])
            if name == "on":
                same_function.append(data["replay_is_torch_musas"])
    on, off = statistics.median(below["on"]), statistics.median(below["off"])
    results["below_cap"] = {"on_ns": round(on), "off_ns": round(off), "ratio": round(on / off, 3),
                            "replay_is_torch_musas": all(same_function)}
    print("below the cap   : on %.0f ns, off %.0f ns per replay, ratio %.3f (replay is "
          "torch_musa's own: %s)" % (on, off, on / off, all(same_function)))

    track = child("tracking", 80, 20, {"TORCHADA_GRAPH_EXEC_CAP": "64"}, rounds=args.rounds)
    results["tracking"] = {"rotation_ns": round(track["rotation"]), "base_ns": round(track["base"]),
                           "ratio": round(track["rotation"] / track["base"], 3),
                           "overhead_ns": round(track["rotation"] - track["base"])}
    print("above, all live : rotation %.0f ns vs base %.0f ns per replay, ratio %.3f (+%.0f ns)"
          % (track["rotation"], track["base"], track["rotation"] / track["base"],
             track["rotation"] - track["base"]))

    miss = child("miss", 80, 5, {"TORCHADA_GRAPH_EXEC_CAP": "64"})
    results["miss"] = {"ms_per_reinstantiate": round(miss["ms_per_reinstantiate"], 3),
                       "replay_ns_when_every_replay_misses": round(miss["ns"]),
                       "reinstantiations": miss["reinstantiations"],
                       "sim_instantiate_us": 300}
    print("every replay misses: %.3f ms per re-instantiation (%d of them; simulated "
          "instantiate 0.300 ms), %.0f ns per replay" % (miss["ms_per_reinstantiate"],
                                                          miss["reinstantiations"], miss["ns"]))

    mem = child("memory", 400, 1, {"TORCHADA_GRAPH_EXEC_CAP": "100"})
    results["memory"] = {"rotation_bytes_per_graph": round(mem["bytes_per_graph"])}
    print("rotation bookkeeping: %.0f bytes per graph (templates: torch_musa's own)"
          % mem["bytes_per_graph"])
    results["rounds"] = args.rounds
    if not args.no_history:
        history.append("graph_rotation", results)


if __name__ == "__main__":
    main()
