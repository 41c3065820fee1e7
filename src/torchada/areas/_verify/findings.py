"""What verify saw: calls compared and skipped per op, and each mismatch (op, inputs, the
largest error, module path, call site, rank). The report's ``verify`` section and
``torchada run``'s summary are read from here."""
import os
import threading


class VerifyMismatch(RuntimeError):
    """An op's device result differs from the CPU's (TORCHADA_VERIFY=1 stops here)."""


def _rank():
    rank = os.environ.get("RANK")
    return int(rank) if rank is not None and rank.isdigit() else None


class Findings:
    def __init__(self, mode, first, every):
        self.mode, self.first, self.every = mode, first, every
        self._lock = threading.Lock()
        self.calls = {}      # op -> calls seen (the sampling counter)
        self.checked = {}    # op -> calls compared
        self.skipped = {}    # reason -> {op: calls}
        self.mismatches = []
        self.rank = _rank()

    def take(self, op):
        """Whether this call of ``op`` is sampled: the first N calls, then every Kth."""
        with self._lock:
            n = self.calls[op] = self.calls.get(op, 0) + 1
        return n <= self.first or (self.every and n % self.every == 0)

    def compared(self, op):
        with self._lock:
            self.checked[op] = self.checked.get(op, 0) + 1

    def skip(self, op, reason):
        with self._lock:
            ops = self.skipped.setdefault(reason, {})
            ops[op] = ops.get(op, 0) + 1

    def mismatch(self, record):
        record["rank"] = self.rank
        record["call"] = self.calls.get(record["op"])
        with self._lock:
            self.mismatches.append(record)
        return record

    def snapshot(self):
        with self._lock:
            return {"mode": self.mode, "first": self.first, "every": self.every,
                    "rank": self.rank, "compared": dict(self.checked),
                    "compared_calls": sum(self.checked.values()),
                    "skipped": {r: dict(ops) for r, ops in self.skipped.items()},
                    "mismatches": list(self.mismatches)}

    def summary_lines(self, limit=8):
        data = self.snapshot()
        lines = ["  verify    : %d calls of %d ops compared with the CPU, %d mismatch%s%s" % (
            data["compared_calls"], len(data["compared"]), len(data["mismatches"]),
            "" if len(data["mismatches"]) == 1 else "es",
            " (stopped at the first)" if data["mismatches"] and self.mode == "first" else "")]
        for record in data["mismatches"][:limit]:
            lines.append("    " + headline(record))
        if len(data["mismatches"]) > limit:
            lines.append("    ... %d more (TORCHADA_REPORT=<dir> writes them all)"
                         % (len(data["mismatches"]) - limit))
        return lines


def headline(record):
    where = record.get("module") or "no module"
    return "%s in %s at %s: %s" % (record["op"], where, record.get("site") or "torch internals",
                                  _error_text(record))


def _error_text(record):
    if record.get("kind") == "raised":
        return "the device raised %s where the CPU computed a result" % record["device_error"]
    diff = record["difference"]
    if "max_abs_error" not in diff:
        return "%s: device %s, cpu %s" % (diff["what"], diff["device"], diff["cpu"])
    return "output %s differs in %d of %d elements, largest error %.6g at %s (device %s, cpu " \
           "%s; %s)" % (record["output"], diff["mismatched"], diff["numel"],
                        diff["max_abs_error"], diff["largest_at"], diff["device_value"],
                        diff["cpu_value"], diff["what"])


def message(record):
    inputs = ", ".join(record["inputs"]) or "no tensors"
    return ("torchada verify: %s%s\n  inputs: %s\n  module: %s\n  call site: %s\n  "
            "(TORCHADA_VERIFY=all keeps going and tabulates; TORCHADA_VERIFY=0 turns "
            "verify off)" % ("rank %s: " % record["rank"] if record["rank"] is not None else "",
                             headline(record), inputs, record.get("module") or "-",
                             record.get("site") or "torch internals"))
