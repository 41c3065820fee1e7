"""The whole ``torchada port`` command against the peer's porter, on a large corpus of real
CUDA sources (issue 14).

    .venv/bin/python benchmarks/porter_command.py [--rounds 3] [--packages deepspeed==0.19.8 ...]

Downloads at run time (never committed) the sdists of several projects with CUDA sources
from PyPI's JSON API (plain HTTPS: nothing of them is built or executed) into
benchmarks/_work/, and keeps their C/C++/CUDA sources as the corpus. Each round, on fresh
copies of the corpus, paired and alternating:

- **ours**: ``python -m torchada port <copy>`` as a user runs it, timed from outside (start-up,
  imports, rule compilation, porting, both diagnostic scans, revert records, atomic writes and
  their syncs all included), revert records in a throwaway cache;
- **peer**: the public torchada 0.1.103's porter function (its ``modify_file``, what its
  BuildExtension runs) over the same files, timed inside its process around the loop only
  (its start-up excluded, which favours it), torch stubbed out as in porter_throughput.py.

Prints MB/s (corpus bytes / seconds) and the ratio peer / ours; medians over rounds. Appends
one JSON line to benchmarks/history.jsonl.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work"
sys.path.insert(0, str(HERE))
import history  # noqa: E402
from porter_throughput import UPSTREAM, UPSTREAM_RUNNER, pypi_file, unpack  # noqa: E402

PACKAGES = ("deepspeed==0.19.8", "flash-attn==2.8.3.post2", "xformers==0.0.35", "vllm==0.34.0",
            "mamba-ssm==2.3.2.post1", "causal-conv1d==1.7.0")
SOURCE_EXTS = (".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl",
               ".inc", ".ipp", ".tpp", ".txx")


def sdist(requirement):
    """The sdist of name==version, fetched with the JSON API (no pip metadata step)."""
    name, version = requirement.split("==")
    folder = WORK / "sdists"
    folder.mkdir(parents=True, exist_ok=True)
    base = "https://pypi.org/pypi/%s/json" % name
    data = json.load(urllib.request.urlopen(base, timeout=120))
    files = [u for u in data["releases"].get(version, []) if u["packagetype"] == "sdist"]
    if not files:
        raise SystemExit("%s has no sdist on PyPI" % requirement)
    target = folder / files[0]["filename"]
    if not target.exists():
        tmp = target.with_name(target.name + ".part")
        urllib.request.urlretrieve(urllib.parse.urljoin(base, files[0]["url"]), tmp)
        tmp.rename(target)
    return target


def build_corpus(packages):
    """One folder holding every package's C/C++/CUDA sources (other files left out)."""
    corpus = WORK / ("corpus-" + "-".join(p.split("==")[0] for p in packages))
    if corpus.exists():
        return corpus
    tmp = corpus.with_name(corpus.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for requirement in packages:
        with tarfile.open(sdist(requirement)) as tf:
            members = [m for m in tf.getmembers() if m.isfile()
                       and m.name.lower().endswith(SOURCE_EXTS)
                       and not m.name.startswith("/") and ".." not in Path(m.name).parts]
            if hasattr(tarfile, "data_filter"):
                tf.extractall(tmp, members=members, filter="data")
            else:
                tf.extractall(tmp, members=members)
    tmp.rename(corpus)
    return corpus


def files_of(root):
    return sorted(os.path.join(d, n) for d, _, names in os.walk(root) for n in names)


def run_ours(corpus, scratch, env):
    tree = scratch / "ours"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(corpus, tree)
    subprocess.run(["sync"], check=True)  # the copy's dirty pages are not ours to flush
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "torchada", "port", "--quiet", str(tree)],
                          env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit("torchada port failed:\n" + proc.stderr[-3000:])
    return seconds, proc.stdout.strip().splitlines()[-1]


def run_peer(corpus, scratch, wheel_dir):
    tree = scratch / "peer"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(corpus, tree)
    files = files_of(tree)
    manifest = scratch / "peer_manifest.json"
    manifest.write_text(json.dumps({"root": str(tree), "files": files, "originals": files}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA") and k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", UPSTREAM_RUNNER, str(wheel_dir), str(manifest), "1"],
                          capture_output=True, text=True, env=env, timeout=7200)
    if proc.returncode != 0:
        raise SystemExit("peer porter failed:\n" + proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])["seconds"][0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--packages", nargs="+", default=list(PACKAGES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-history", action="store_true")
    args = ap.parse_args(argv)
    corpus = build_corpus(args.packages)
    size = sum(os.path.getsize(f) for f in files_of(corpus))
    wheel_dir = unpack(pypi_file(UPSTREAM, "wheel"), WORK / "upstream-0.1.103")
    scratch = Path(tempfile.mkdtemp(prefix="torchada-port-bench-", dir=WORK))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA")}
    env["XDG_CACHE_HOME"] = str(scratch / "cache")  # revert records of our runs
    env["PYTHONPATH"] = str(ROOT / "src")
    ours, peer, summary = [], [], None
    try:
        for i in range(args.rounds):
            order = ("ours", "peer") if i % 2 == 0 else ("peer", "ours")
            for who in order:
                if who == "ours":
                    seconds, summary = run_ours(corpus, scratch, env)
                    ours.append(seconds)
                else:
                    peer.append(run_peer(corpus, scratch, wheel_dir))
            print("round %d: ours %.2f s, peer %.2f s" % (i + 1, ours[-1], peer[-1]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    m_ours, m_peer = statistics.median(ours), statistics.median(peer)
    result = {"packages": args.packages, "files": len(files_of(corpus)), "bytes": size,
              "rounds": args.rounds, "cpus": len(os.sched_getaffinity(0)),
              "ours_seconds": round(m_ours, 3), "peer_seconds": round(m_peer, 3),
              "ours_mb_per_s": round(size / 1e6 / m_ours, 2),
              "peer_mb_per_s": round(size / 1e6 / m_peer, 2),
              "ratio": round(m_peer / m_ours, 2), "ours_summary": summary}
    print(json.dumps(result, indent=1))
    if not args.no_history:
        history.append("porter_command", result)


if __name__ == "__main__":
    main()
