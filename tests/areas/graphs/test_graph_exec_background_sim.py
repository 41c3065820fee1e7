"""The graph executable extension is built off the hot path (issue 16 part 3): no capture
waits on a compiler; until the extension is ready the rotation frees nothing (live
executables pass the cap), and the first capture after it is ready evicts back under the
cap, or turns rotation off with one warning when the build failed. Replayed numbers are
compared with eager ones."""
from tests._fresh import FIXTURES, last_json, run_sim

TEST_CXX = FIXTURES / "test_cxx.sh"   # the real compiler, but refusing torchada's extensions

PROGRAM = """
import json, time
from torchada.areas._graph_exec import install, prepare
x = torch.randn(4, device="cuda")
s = torch.cuda.Stream()
graphs, outs, seconds, peak = [], [], [], 0
def capture(i):
    global peak
    g = torch.cuda.CUDAGraph()
    t = time.perf_counter()
    with torch.cuda.stream(s):
        with torch.cuda.graph(g, stream=s):
            outs.append(x * (i + 1))
    seconds.append(time.perf_counter() - t)
    graphs.append(g)
    peak = max(peak, torch.ops.musa_sim.graph_exec_count())
for i in range(6):
    capture(i)
while_building = [torch.ops.musa_sim.graph_exec_count(), prepare.build().done]
prepare.build().wait(900)
capture(6)                         # the first capture after the build: evicts, or turns off
live_after = torch.ops.musa_sim.graph_exec_count()
bad = 0
for i, g in enumerate(graphs):
    g.replay()
    bad += not torch.equal(outs[i].cpu(), (x * (i + 1)).cpu())
print(json.dumps({"max_capture_s": max(seconds), "while_building": while_building,
                  "live_after": live_after, "peak": peak, "bad": bad,
                  "status": str(torchada.status())}))
"""


def test_captures_past_the_cap_go_on_while_the_extension_builds_then_rotation_evicts():
    out = last_json(run_sim(PROGRAM, TORCHADA_GRAPH_EXEC_CAP=4,
                            TORCHADA_SIM_GRAPH_EXEC_CAP=100))
    if not out["while_building"][1]:     # the build was still running: nothing freed
        assert out["while_building"][0] == 6
        assert "past the cap while the extension was being built" in out["status"]
    assert out["live_after"] == 4 and out["bad"] == 0


def test_a_build_that_fails_off_the_hot_path_turns_rotation_off_with_one_warning(tmp_path):
    from torchada._core.files import user_cache_root

    proc = run_sim(PROGRAM, TORCHADA_GRAPH_EXEC_CAP=4, TORCHADA_SIM_GRAPH_EXEC_CAP=100,
                   XDG_CACHE_HOME=tmp_path,                   # no built extension to reuse
                   TORCHADA_SIM_CACHE_DIR=user_cache_root(),  # the built simulator
                   CXX=TEST_CXX, TORCHADA_TEST_CXX="fail")
    out = last_json(proc)
    assert out["while_building"][0] == 6 and out["live_after"] == 7 and out["peak"] == 7
    assert out["bad"] == 0
    assert "exec_rotation: off (the graph executable extension did not build" in out["status"]
    assert proc.stderr.count("graph executable rotation is off") == 1


def test_no_capture_waits_on_the_compiler(tmp_path):
    from torchada._core.files import user_cache_root

    proc = run_sim(PROGRAM.replace("prepare.build().wait(900)", ""),
                   TORCHADA_GRAPH_EXEC_CAP=4, TORCHADA_SIM_GRAPH_EXEC_CAP=100,
                   XDG_CACHE_HOME=tmp_path, TORCHADA_SIM_CACHE_DIR=user_cache_root(),
                   CXX=TEST_CXX, TORCHADA_TEST_CXX="slow")   # 60 s before it refuses
    out = last_json(proc)
    assert out["max_capture_s"] < 5, out["max_capture_s"]
    assert out["while_building"] == [6, False] and out["live_after"] == 7 and out["bad"] == 0
    assert "up to 3 past the cap while the extension was being built" in out["status"]
