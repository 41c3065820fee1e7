"""The .pth pre-check line alone, two revisions paired in one process (median of 40 rounds).

    python benchmarks/pth_precheck.py OLD_REV [NEW_REV]     # NEW_REV defaults to the work tree

Times exec() of the compiled line (CPython compiles it once per start as well; not timed)."""
import statistics
import subprocess
import sys
import timeit


def line(rev):
    text = open("torchada_autoload.pth").read() if rev is None else subprocess.run(
        ["git", "show", f"{rev}:torchada_autoload.pth"], capture_output=True, text=True, check=True).stdout
    return compile(next(l for l in text.splitlines() if l.startswith("import")), "pth", "exec")


def main():
    old, new = line(sys.argv[1]), line(sys.argv[2] if len(sys.argv) > 2 else None)
    ra, rb = [], []
    for _ in range(40):
        ra.append(timeit.timeit(lambda: exec(old, {}), number=500) / 500 * 1e6)
        rb.append(timeit.timeit(lambda: exec(new, {}), number=500) / 500 * 1e6)
    ma, mb = statistics.median(ra), statistics.median(rb)
    print(f"old {ma:.2f} us, new {mb:.2f} us, delta {mb - ma:+.2f} us, ratio {mb / ma:.3f}")


if __name__ == "__main__":
    main()
