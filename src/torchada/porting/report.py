"""What a port run found and did: the report object and the input-error type."""
from collections import Counter, namedtuple


class PortError(Exception):
    """A problem with the input: the message names the thing and the fix. Raised before
    any file is written."""


FileResult = namedtuple("FileResult", "path changed edits findings domains original ported")


class PortReport:
    def __init__(self):
        self.files = []
        self.skipped = []      # (path, reason): directories and files the walk left out
        self.not_ported = []   # (path, reason): sources read or looked at, left alone
        self.notes = []        # (path, note): sources ported with a remark (not UTF-8)
        self.unmapped = {}     # name -> [count, path, line]
        self.bytes = 0
        self.seconds = 0.0

    @property
    def changed(self):
        return [f for f in self.files if f.changed]

    def domain_counts(self):
        total = Counter()
        for f in self.files:
            total.update(f.domains)
        return dict(total)

    def findings(self):
        """(path, line, Finding) for every reported construct."""
        out = []
        for f in self.files:
            for line, finding in f.findings:
                out.append((f.path, line, finding))
        return out

    def to_dict(self):
        return {
            "files": len(self.files), "changed": len(self.changed), "bytes": self.bytes,
            "edits": sum(len(f.edits) for f in self.files), "seconds": self.seconds,
            "domains": self.domain_counts(),
            "findings": [{"path": p, "line": l, "kind": f.kind, "message": f.message, "fix": f.fix}
                         for p, l, f in self.findings()],
            "unmapped": {k: {"count": v[0], "path": v[1], "line": v[2]}
                         for k, v in sorted(self.unmapped.items())},
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "not_ported": [{"path": p, "reason": r} for p, r in self.not_ported],
            "notes": [{"path": p, "note": n} for p, n in self.notes],
        }
