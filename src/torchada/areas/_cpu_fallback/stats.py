"""What ran on the CPU: per operator, calls, seconds and the first call site; one warning
per operator. The translation report and ``torchada run``'s summary read ``snapshot``."""
import threading
import warnings

SWITCH = "TORCHADA_CPU_FALLBACK=0"
CPU_COPY = "it ran on the CPU (inputs copied there, results back to the device: slower)"


class FallbackStats:
    def __init__(self, musa_label):
        self.musa_label = musa_label
        self._lock = threading.Lock()
        self._ops = {}  # name -> [calls, seconds, first site]

    def hit(self, name, seconds, why, how=None):
        with self._lock:
            entry = self._ops.get(name)
            first = entry is None
            if first:
                entry = self._ops[name] = [0, 0.0, None]
            entry[0] += 1
            entry[1] += seconds
        if first:
            site = _site()
            entry[2] = site
            warnings.warn("torchada: %s %s; %s%s. %s makes it raise as torch_musa does" % (
                name, why, how or CPU_COPY, " at %s" % site if site else "", SWITCH),
                RuntimeWarning, stacklevel=4)

    def snapshot(self):
        with self._lock:
            return {name: {"count": e[0], "seconds": round(e[1], 6), "first_site": e[2]}
                    for name, e in sorted(self._ops.items(), key=lambda kv: -kv[1][0])}

    def summary_lines(self, limit=8):
        ops = self.snapshot()
        if not ops:
            return ["  cpu fallback: no operator ran on the CPU"]
        lines = ["  cpu fallback: %d operators ran on the CPU (no kernel in %s; %s makes "
                 "them raise)" % (len(ops), self.musa_label, SWITCH)]
        for name, entry in list(ops.items())[:limit]:
            lines.append("    %-34s x%-6d %8.1f ms  first at %s" % (
                name, entry["count"], entry["seconds"] * 1e3, entry["first_site"] or
                "torch internals"))
        if len(ops) > limit:
            lines.append("    ... %d more (TORCHADA_REPORT=<dir> writes them all)"
                         % (len(ops) - limit))
        return lines


def _site():
    try:
        from torchada._core.trace import call_site

        return call_site(3)
    except Exception:  # a site is a nicety: never fail the op over it
        return None
