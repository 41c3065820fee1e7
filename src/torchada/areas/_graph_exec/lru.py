"""An LRU of live graph executables, capped; evicted graphs are re-instantiated at replay.

Until the cap is first reached nothing runs at replay (the graph class keeps its own
``replay``), so the cost below the cap is zero; until then eviction order is capture order.
From the first eviction on, ``replay`` goes through :meth:`Rotation.replay`, which keeps the
order and rebuilds an evicted executable from its template before launching it.
Graphs are held by weak reference: a graph the program drops leaves the LRU.
"""
import collections
import logging
import threading
import time
import weakref

from torchada.areas._kit.extension_builder import NativeUnavailable  # re-exported for the graph area

logger = logging.getLogger("torchada")


class Rotation:
    """Live executables of the graphs captured through the patched class, at most ``cap``.

    ``load_free`` returns the native ``free_executable(graph) -> bool`` (raising
    NativeUnavailable); it is called at the first eviction only. ``on_first_eviction`` is
    called once, when replays start to need tracking. ``on_off(reason)`` reports rotation
    switched off (the native primitive is missing): captures then go on unmanaged."""

    def __init__(self, cap, load_free, on_first_eviction=None, on_off=None):
        self._cap = cap                      # an int, or a callable giving it on first use
        self._load_free = load_free
        self._on_first_eviction = on_first_eviction
        self._on_off = on_off
        self._free = None
        self._lock = threading.RLock()
        self._live = collections.OrderedDict()   # id(graph) -> weakref, oldest use first
        self._evicted = {}                       # id(graph) -> weakref
        self._dead = collections.deque()         # ids whose graph was collected
        self.tracking = False
        self.off_reason = None
        self.evictions = 0
        self.reinstantiations = 0
        self.reinstantiate_seconds = 0.0
        self.over_cap_while_building = 0  # most executables past the cap before it was ready

    @property
    def cap(self):
        if callable(self._cap):
            with self._lock:
                if callable(self._cap):
                    self._cap = self._cap()
        return self._cap

    def live_count(self):
        with self._lock:
            self._purge()
            return len(self._live)

    # -- bookkeeping -----------------------------------------------------------------
    def _ref(self, graph):
        # The callback only queues the id: it may run inside a dict operation of ours (GC).
        return weakref.ref(graph, lambda _ref, key=id(graph), dead=self._dead: dead.append(key))

    def _purge(self):
        while self._dead:
            key = self._dead.popleft()
            ref = self._live.get(key)
            if ref is not None and ref() is None:
                del self._live[key]
            ref = self._evicted.get(key)
            if ref is not None and ref() is None:
                del self._evicted[key]

    def _free_executable(self):
        """The native free, or None while ``load_free`` says it is not ready yet."""
        if self._free is None:
            self._free = self._load_free()
        return self._free

    def _turn_off(self, reason):
        self.off_reason = str(reason)
        logger.warning("torchada: graph executable rotation is off (%s); captures past the "
                       "driver's limit will fail as without torchada", self.off_reason)
        if self._on_off is not None:
            self._on_off(self.off_reason)

    def _make_room(self):
        """Free least-recently-used executables until one more fits under the cap."""
        self._purge()
        if self.off_reason is not None:
            return
        while len(self._live) >= self.cap:
            key, ref = next(iter(self._live.items()))
            graph = ref()
            if graph is None:
                del self._live[key]
                continue
            try:
                free = self._free_executable()
            except NativeUnavailable as exc:
                self._turn_off(exc)
                return
            if free is None:  # still being built off the hot path: past the cap meanwhile
                self.over_cap_while_building = max(self.over_cap_while_building,
                                                   len(self._live) + 1 - self.cap)
                return
            try:
                freed = free(graph)
            except Exception as exc:  # the graph keeps its executable; the program goes on
                self._turn_off("freeing a graph executable failed: %s: %s"
                               % (type(exc).__name__, exc))
                return
            del self._live[key]
            if freed:
                self._evicted[key] = ref
                self.evictions += 1
            if not self.tracking:
                self.tracking = True
                if self._on_first_eviction is not None:
                    self._on_first_eviction()

    def _mark_live(self, graph):
        key = id(graph)
        self._evicted.pop(key, None)
        ref = self._live.pop(key, None)
        self._live[key] = ref if ref is not None and ref() is graph else self._ref(graph)

    # -- the graph methods -------------------------------------------------------------
    def capture_end(self, graph, base):
        """``base(graph)`` ends the capture and instantiates: make room first."""
        with self._lock:
            self._make_room()
            result = base(graph)
            self._mark_live(graph)
            return result

    def _rebuild(self, graph, reinstantiate):
        """An evicted graph about to replay: room for one more, then its executable back."""
        self._make_room()
        start = time.perf_counter()
        reinstantiate(graph)
        self.reinstantiate_seconds += time.perf_counter() - start
        self.reinstantiations += 1
        self._mark_live(graph)

    def replay_method(self, base, reinstantiate):
        """The ``replay`` installed at the first eviction: one frame over ``base``; the lock
        and the LRU's dicts are bound once (a live graph pays a lookup and a move)."""
        lock, live, evicted = self._lock, self._live, self._evicted
        touch = live.move_to_end

        def replay(graph):
            with lock:
                key = id(graph)
                if key in live:
                    touch(key)
                elif key in evicted:
                    self._rebuild(graph, reinstantiate)
                return base(graph)

        return replay

    def replay(self, graph, base, reinstantiate):
        return self.replay_method(base, reinstantiate)(graph)

    def reinstantiate(self, graph, base, restore=None):
        """A program's own reinstantiate_graph call: one more executable if it had none.
        An evicted graph gets its executable back through ``restore`` (torch_musa's own
        refuses a graph without one: MUSAGraph.cpp:219 at v2.7.1)."""
        with self._lock:
            if restore is not None and id(graph) in self._evicted:
                self._rebuild(graph, restore)
                return None
            if id(graph) not in self._live:
                self._make_room()
            result = base(graph)
            self._mark_live(graph)
            return result

    def reset(self, graph, base):
        with self._lock:
            self._live.pop(id(graph), None)
            self._evicted.pop(id(graph), None)
            return base(graph)

    def summary(self):
        with self._lock:
            self._purge()
            cap = self._cap if not callable(self._cap) else "(decided at first capture)"
            text = ("cap %s, live %d, evicted %d, evictions %d, re-instantiations %d (%.1f ms)"
                    % (cap, len(self._live), len(self._evicted), self.evictions,
                       self.reinstantiations, self.reinstantiate_seconds * 1e3))
            if self.over_cap_while_building:
                text += (", up to %d past the cap while the extension was being built"
                         % self.over_cap_while_building)
            return text
