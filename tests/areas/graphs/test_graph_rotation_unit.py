"""The rotation's LRU on stand-in graphs (in process; the simulator tests show it on MUSA)."""
import gc
import threading

import pytest

from torchada.areas._graph_exec import settings
from torchada.areas._graph_exec.lru import NativeUnavailable, Rotation


class Driver:
    """A driver with a hard cap on live executables, like the MUSA one."""

    def __init__(self, cap):
        self.cap, self.live = cap, set()

    def instantiate(self, graph):
        if len(self.live) >= self.cap:
            raise RuntimeError("out of executables")
        self.live.add(id(graph))
        graph.has_exec = True

    def free(self, graph):
        if not graph.has_exec:
            return False
        self.live.discard(id(graph))
        graph.has_exec = False
        return True


class Graph:
    def __init__(self, driver, value):
        self.driver, self.value, self.has_exec, self.replays = driver, value, False, 0

    def capture_end(self):
        self.driver.instantiate(self)

    def replay(self):
        if not self.has_exec:
            raise RuntimeError("replay without an executable")
        self.replays += 1
        return self.value

    def reinstantiate(self):
        self.driver.free(self)
        self.driver.instantiate(self)


def make(cap, driver_cap=None, free=None):
    driver = Driver(driver_cap or cap)
    first = []
    rotation = Rotation(cap, lambda: free or driver.free, on_first_eviction=lambda: first.append(1))
    return driver, rotation, first


def capture(rotation, driver, n):
    graphs = [Graph(driver, i) for i in range(n)]
    for g in graphs:
        rotation.capture_end(g, Graph.capture_end)
    return graphs


def replay(rotation, g):
    return rotation.replay(g, Graph.replay, Graph.reinstantiate)


def test_capture_past_cap_evicts_oldest_and_replay_rebuilds():
    driver, rotation, first = make(cap=3)
    graphs = capture(rotation, driver, 5)
    assert len(driver.live) == 3 and first == [1]
    assert [g.has_exec for g in graphs] == [False, False, True, True, True]
    assert [replay(rotation, g) for g in graphs] == [0, 1, 2, 3, 4]
    assert len(driver.live) == 3 and rotation.reinstantiations >= 2


def test_least_recently_replayed_is_evicted_first():
    driver, rotation, _ = make(cap=3)
    a, b, c, d = capture(rotation, driver, 4)       # a evicted at d's capture
    replay(rotation, b)                              # order now c, d, b
    replay(rotation, a)                              # evicts c (least recent)
    assert (a.has_exec, b.has_exec, c.has_exec, d.has_exec) == (True, True, False, True)


def test_collected_graphs_leave_the_lru():
    driver, rotation, _ = make(cap=4)
    graphs = capture(rotation, driver, 4)
    del graphs[:2]
    gc.collect()
    assert rotation.live_count() == 2


def test_reset_forgets_the_graph():
    driver, rotation, _ = make(cap=2)
    a, b = capture(rotation, driver, 2)
    rotation.reset(a, lambda g: driver.free(g))
    assert rotation.live_count() == 1
    capture(rotation, driver, 1)                     # room without evicting b
    assert b.has_exec and rotation.evictions == 0


def test_missing_native_primitive_turns_rotation_off_and_captures_fail_as_before():
    driver = Driver(2)
    reasons = []

    def load():
        raise NativeUnavailable("no compiler")

    rotation = Rotation(2, load, on_off=reasons.append)
    kept = capture(rotation, driver, 2)
    with pytest.raises(RuntimeError, match="out of executables"):
        capture(rotation, driver, 1)
    assert rotation.off_reason == "no compiler" and reasons == ["no compiler"]
    assert all(g.has_exec for g in kept)             # nothing was evicted


def test_a_failing_free_turns_rotation_off_and_keeps_the_graph():
    driver = Driver(3)
    reasons = []

    def broken_free(graph):
        raise RuntimeError("invalid resource handle")

    rotation = Rotation(2, lambda: broken_free, on_off=reasons.append)
    kept = capture(rotation, driver, 3)               # the third capture needed a free
    assert all(g.has_exec for g in kept) and rotation.evictions == 0
    assert reasons == ["freeing a graph executable failed: RuntimeError: invalid resource handle"]
    assert [replay(rotation, g) for g in kept] == [0, 1, 2]


def test_cap_decided_lazily_once():
    calls = []
    rotation = Rotation(lambda: calls.append(1) or 7, lambda: None)
    assert (rotation.cap, rotation.cap, calls) == (7, 7, [1])


def test_threads_replaying_share_one_cap():
    driver, rotation, _ = make(cap=8)
    graphs = capture(rotation, driver, 32)
    errors = []

    def worker(offset):
        try:
            for i in range(400):
                g = graphs[(i * 7 + offset) % 32]
                assert replay(rotation, g) == g.value
                assert len(driver.live) <= 8
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(driver.live) == 8


@pytest.mark.parametrize("raw, expected", [("abc", 1900), ("0", 1900), ("-5", 1900),
                                           ("2000000", 1900), ("512", 512), (" 64 ", 64)])
def test_cap_variable(monkeypatch, caplog, raw, expected):
    monkeypatch.setattr("torchada._core.warn_once._SEEN", set())
    monkeypatch.setenv(settings.CAP_VAR, raw)
    assert settings.configured_cap() == expected
    warned = [r.getMessage() for r in caplog.records if settings.CAP_VAR in r.getMessage()]
    assert bool(warned) == (expected == 1900)
    if warned:
        assert "1..1048576" in warned[0]


def test_probed_cap_keeps_a_margin_and_a_floor(monkeypatch):
    monkeypatch.setenv(settings.MARGIN_VAR, "100")
    assert settings.cap_from_probe(2048) == 1948
    assert settings.cap_from_probe(120) == settings.FLOOR


def test_probe_that_cannot_start_or_cache_falls_back_with_one_warning(monkeypatch, caplog):
    from torchada.areas._graph_exec import probe

    def no_cache(torch):
        raise OSError("read-only file system")

    def no_child(*args, **kwargs):
        raise OSError("no such interpreter")

    monkeypatch.setattr(probe, "_cache_file", no_cache)
    monkeypatch.setattr(probe.subprocess, "run", no_child)
    assert probe.measured_limit(None) is None
    warned = [r.getMessage() for r in caplog.records if "probe could not start" in r.getMessage()]
    assert len(warned) == 1 and "no such interpreter" in warned[0]


class MusaLikeGraph(Graph):
    """reinstantiate_graph as torch_musa v2.7.1 has it (csrc/aten/musa/MUSAGraph.cpp:217-226):
    it refuses a graph without an executable, then destroys and instantiates."""

    def reinstantiate(self):
        if not self.has_exec:
            raise RuntimeError("The graph_ and graph_exec_ musa have been created in the graph "
                               "capture stage")
        super().reinstantiate()


def test_evicted_graphs_come_back_through_restore_not_torch_musas_reinstantiate():
    driver, rotation, _ = make(cap=2)
    a, b, c = (MusaLikeGraph(driver, v) for v in "abc")
    for g in (a, b, c):
        rotation.capture_end(g, MusaLikeGraph.capture_end)
    assert not a.has_exec                                    # evicted at c's capture
    with pytest.raises(RuntimeError, match="graph capture stage"):
        a.reinstantiate()                                    # torch_musa's own refuses it
    restore = driver.instantiate
    # a replay of the evicted graph restores it (evicting b, the least recent)
    assert rotation.replay(a, MusaLikeGraph.replay, restore) == "a"
    assert a.has_exec and not b.has_exec and len(driver.live) == 2
    # the program's own reinstantiate_graph on an evicted graph: restored, not refused
    assert rotation.reinstantiate(b, MusaLikeGraph.reinstantiate, restore) is None
    assert b.has_exec and len(driver.live) == 2 and rotation.reinstantiations == 2
    # on a live graph it is torch_musa's own call (destroy, then instantiate)
    rotation.reinstantiate(b, MusaLikeGraph.reinstantiate, restore)
    assert b.has_exec and len(driver.live) == 2
