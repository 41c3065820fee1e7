"""Executable rotation on the simulated device (fresh interpreters): the simulator caps live
executables like the driver (TORCHADA_SIM_GRAPH_EXEC_CAP) and the rotation's native
primitive is built for real against it."""
import json
import uuid
from pathlib import Path

from tests._fresh import last_json, run_argv, run_sim, sim_env

PIECEWISE = Path(__file__).with_name("piecewise_program.py")


def piecewise(**env):
    proc = run_argv([PIECEWISE], env=sim_env(**env), timeout=600)
    return last_json(proc), proc


def test_2160_piecewise_graphs_fail_without_rotation_and_match_eager_with_it():
    off, _ = piecewise(TORCHADA_GRAPH_ROTATION="0")
    assert off["captured"] == 2048 and "musaGraphInstantiate" in off["error"]
    on, _ = piecewise()
    assert on == {"captured": 2160, "mismatches": [], "error": None}


COUNTS = """
import json, random
from torchada.areas._graph_exec import install
x = torch.randn(4, device="cuda")
s = torch.cuda.Stream()
graphs, outs, peak = [], [], 0
with torch.cuda.stream(s):
    for i in range(%(n)d):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            outs.append(x * (i + 1))
        graphs.append(g)
        peak = max(peak, torch.ops.musa_sim.graph_exec_count())
replay_is_torch_musa_s = torch.musa.MUSAGraph.replay.__module__ != "torch.cuda"
order = [random.randrange(%(n)d) for _ in range(200)]
bad = 0
for i in order:
    graphs[i].replay()
    bad += not torch.equal(outs[i].cpu(), (x * (i + 1)).cpu())
    peak = max(peak, torch.ops.musa_sim.graph_exec_count())
r = install.active()
print(json.dumps({"peak": peak, "bad": bad, "cap": r.cap if r else None,
                  "evictions": r.evictions if r else 0,
                  "status": torchada.status().__str__()}))
"""


def counts(n, **env):
    proc = run_sim(COUNTS % {"n": n}, **env)
    return last_json(proc), proc


def test_cap_from_the_environment_bounds_live_executables():
    out, _ = counts(40, TORCHADA_GRAPH_EXEC_CAP=12)
    assert out["cap"] == 12 and out["peak"] == 12 and out["bad"] == 0
    assert out["evictions"] > 28
    assert "exec_rotation: cap 12" in out["status"]


def test_below_the_cap_replay_is_torch_musas_own():
    proc = run_sim("""
        before = torch.musa.MUSAGraph.replay
        x = torch.ones(2, device="cuda"); s = torch.cuda.Stream()
        gs = []
        with torch.cuda.stream(s):
            for _ in range(5):
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g, stream=s):
                    x.add_(1)
                gs.append(g)
        for g in gs:
            g.replay()
        print(torch.musa.MUSAGraph.replay is before, x.tolist())
    """, TORCHADA_GRAPH_EXEC_CAP=8)
    assert proc.stdout.split() == ["True", "[11.0,", "11.0]"]


def test_bad_cap_value_warns_once_and_uses_the_default():
    out, proc = counts(3, TORCHADA_GRAPH_EXEC_CAP="lots")
    assert out["cap"] == 1900 and out["bad"] == 0
    assert proc.stderr.count("TORCHADA_GRAPH_EXEC_CAP='lots' is not valid (valid: an "
                             "integer in 1..1048576)") == 1


def test_rotation_off_reports_it_and_leaves_the_driver_cap():
    out, proc = counts(10, TORCHADA_GRAPH_ROTATION="0", TORCHADA_SIM_GRAPH_EXEC_CAP="100")
    assert out["cap"] is None and out["peak"] == 10
    assert "exec_rotation: off (TORCHADA_GRAPH_ROTATION=0)" in out["status"]


def test_autoprobe_measures_the_fake_driver_limit_once_and_keeps_the_margin():
    name = "MTT S5000 probe-%s" % uuid.uuid4().hex[:8]   # a fresh cache entry
    env = dict(TORCHADA_GRAPH_AUTOPROBE=1, TORCHADA_SIM_GRAPH_EXEC_CAP=300,
               TORCHADA_GRAPH_EXEC_MARGIN=28, TORCHADA_SIM_DEVICE_NAME=name,
               TORCHADA_SIM_GRAPH_INSTANTIATE_US=0)
    out, _ = counts(280, **env)
    assert out["cap"] == 272 and out["peak"] == 272 and out["bad"] == 0
    # The same machine later: the cached limit is used, not measured again (a different
    # fake limit would change the answer if it were).
    env["TORCHADA_SIM_GRAPH_EXEC_CAP"] = 500
    again, _ = counts(3, **env)
    assert again["cap"] == 272


# A primitive that cannot build: tests/areas/graphs/test_graph_exec_background_sim.py.


def test_torch_musa_graphs_and_make_graphed_callables_rotate_too():
    # The extension ready first: this test is about which graphs rotate, not the build
    # (on a cold cache, e.g. a torch release's first run, nothing is freed until it is
    # ready and the count would read 6: test_graph_exec_background_sim covers that).
    proc = run_sim("""
        import json
        from torchada.areas._graph_exec import prepare
        assert prepare.build().wait(900) and prepare.build().error is None
        lin = torch.nn.Linear(4, 4).cuda()
        fns = [torch.cuda.make_graphed_callables(lin, (torch.randn(2, 4, device="cuda"),))
               for _ in range(3)]
        x = torch.ones(1, device="musa"); s = torch.musa.Stream()
        gs = []
        with torch.musa.stream(s):
            for i in range(6):
                g = torch.musa.MUSAGraph()
                with torch.musa.graph(g, stream=s):
                    x.add_(1)
                gs.append(g)
        for g in gs:
            g.replay()
        inp = torch.randn(2, 4, device="cuda")
        same = all(torch.allclose(f(inp), lin(inp)) for f in fns)
        print(json.dumps([torch.ops.musa_sim.graph_exec_count(), x.item(), same]))
    """, TORCHADA_GRAPH_EXEC_CAP=4)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [4, 13.0, True]
