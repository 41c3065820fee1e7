"""Porter throughput and reach on real CUDA sources from PyPI source distributions,
side by side with the public upstream torchada 0.1.103 porter.

    python benchmarks/porter_throughput.py [--package deepspeed==0.19.8 ...] [--repeat 5]

Downloads (at run time, never committed) each sdist and the upstream wheel into
benchmarks/_work/ with ``pip download --no-deps`` (pip prepares an sdist's metadata; nothing
else of the downloads is executed), ports every C/C++/CUDA source with both porters on one core, and prints:
files, bytes, rules applied, unmapped CUDA identifiers left, reported constructs,
idempotence (files changed by a second pass), MB/s, the speed ratio, and a classified
diff of the two outputs (each difference: ours right, theirs right, or unknown).
Appends one JSON line to benchmarks/history.jsonl.

The upstream porter runs in a subprocess, imported from its unpacked wheel with torch and
its platform probe stubbed out (so torch is not imported), through its own in-place
``modify_file`` (the code its BuildExtension runs) with its own rule table. On a real MUSA
machine upstream also merges torch_musa's include/extra/dnn JSON tables; those are not
available here, which is noted in the output.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work"
sys.path.insert(0, str(ROOT / "src"))

UPSTREAM = "torchada==0.1.103"
SOURCE_EXTS = (".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl",
               ".inc", ".ipp", ".tpp", ".txx")


# -- downloads --------------------------------------------------------------------------------

def pypi_file(requirement, kind):
    """Download the sdist ("sdist") or the wheel ("wheel") of name==version with pip
    (the ordinary client, so the configured index and certificates apply)."""
    target_dir = WORK / "downloads" / requirement.replace("==", "-")
    target_dir.mkdir(parents=True, exist_ok=True)
    existing = [p for p in target_dir.iterdir() if p.suffix in (".whl", ".gz", ".zip", ".bz2")]
    if not existing:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(target_dir),
               requirement]
        cmd += ["--no-binary", ":all:"] if kind == "sdist" else ["--only-binary", ":all:"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            raise SystemExit("pip download %s failed:\n%s" % (requirement, proc.stderr[-2000:]))
        existing = [p for p in target_dir.iterdir() if p.suffix in (".whl", ".gz", ".zip", ".bz2")]
    return existing[0]


def unpack(archive, dest):
    if dest.exists():
        return dest
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                if member.startswith("/") or ".." in Path(member).parts:
                    raise SystemExit("unsafe path in %s: %s" % (archive, member))
            zf.extractall(tmp)
    else:
        with tarfile.open(archive) as tf:
            if hasattr(tarfile, "data_filter"):
                tf.extractall(tmp, filter="data")
            else:
                for m in tf.getmembers():
                    if m.name.startswith("/") or ".." in Path(m.name).parts or m.issym() or m.islnk():
                        raise SystemExit("unsafe member in %s: %s" % (archive, m.name))
                tf.extractall(tmp)
    tmp.rename(dest)
    return dest


def corpus_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if name.lower().endswith(SOURCE_EXTS) and not os.path.islink(path):
                out.append(path)
    return out


# -- upstream, in a subprocess without torch -------------------------------------------------

UPSTREAM_RUNNER = r'''
import enum, json, os, sys, time, types
wheel_dir, manifest_path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, wheel_dir)
# Stubs: the upstream package's __init__ patches torch eagerly and its platform probe
# imports torch; neither is part of the porter.
pkg = types.ModuleType("torchada"); pkg.__path__ = [os.path.join(wheel_dir, "torchada")]
sys.modules["torchada"] = pkg
plat = types.ModuleType("torchada._platform")
class Platform(enum.Enum):
    CUDA = "cuda"; MUSA = "musa"; CPU = "cpu"
plat.Platform = Platform
plat.detect_platform = lambda: Platform.CPU
plat.is_musa_platform = lambda: False
plat.is_cuda_platform = lambda: False
sys.modules["torchada._platform"] = plat
fake = {}
for name in ("torch", "torch.utils", "torch.utils.cpp_extension"):
    fake[name] = types.ModuleType(name)
fake["torch.utils.cpp_extension"].CUDA_HOME = None
fake["torch.utils.cpp_extension"].BuildExtension = object
sys.modules.update(fake)
import importlib
up = importlib.import_module("torchada.utils.cpp_extension")
from torchada._mapping import _MAPPING_RULE
for name in fake:
    del sys.modules[name]
assert "torch" not in sys.modules
musa_sp = types.SimpleNamespace(SimplePorting=type("SimplePorting", (), {}))
up._patch_simple_porting_modify_file(musa_sp)
rules = sorted(_MAPPING_RULE.items(), key=lambda kv: len(kv[0]), reverse=True)
rules = up._narrow_cuda_header_mapping(rules)
manifest = json.load(open(manifest_path))
root = manifest["root"]
sp = musa_sp.SimplePorting()
sp.cuda_dir_path = sp.musa_dir_path = root
sp.mapping_rule = rules
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    for path in manifest["files"]:
        sp.modify_file(path, path)
    times.append(time.perf_counter() - t0)
    if _ != repeat - 1:
        for path, orig in zip(manifest["files"], manifest["originals"]):
            with open(orig, "rb") as src, open(path, "wb") as dst:
                dst.write(src.read())
print(json.dumps({"seconds": times, "rules": len(_MAPPING_RULE)}))
'''


def run_upstream(wheel_dir, files, originals, root, repeat, second_pass=False):
    manifest = WORK / "upstream_manifest.json"
    manifest.write_text(json.dumps({"root": str(root), "files": files, "originals": originals}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA")}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-c", UPSTREAM_RUNNER, str(wheel_dir), str(manifest),
                           str(1 if second_pass else repeat)],
                          capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit("upstream porter failed:\n" + proc.stderr[-4000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- ours --------------------------------------------------------------------------------------

def run_ours(texts, repeat):
    from torchada.porting.engine import Porter

    porter = Porter()
    best = None
    results = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        results = [porter.port(t) for t in texts]
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, results, porter


def run_ours_on_disk(paths, repeat, originals):
    """End to end, in place, with revert records (what `torchada port` does)."""
    from torchada.porting.walker import port_paths, revert_paths

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        report = port_paths(paths, exclude=(frozenset(), frozenset()), scan=False)
        times.append(time.perf_counter() - t0)
        revert_paths(paths)
    return min(times), report


# -- classified diff ---------------------------------------------------------------------------

_mask_comments = None
TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|\S")
INCLUDE = re.compile(r"\s*(#\s*include\s*[<\"])([^>\"]*)[>\"]")


def classify(orig_lines, ours_lines, theirs_lines, upstream_rules, not_evidenced, ours_keys,
             project_headers=frozenset(), external_names=frozenset()):
    """Yield (verdict, reason, example) for each differing token (or line)."""
    if not (len(orig_lines) == len(ours_lines) == len(theirs_lines)):
        yield "unknown", "line structure differs (upstream inserted or removed lines)", ""
        return
    for o, a, b in zip(orig_lines, ours_lines, theirs_lines):
        if a == b:
            continue
        if "if(0) asm" in b and "if(0) asm" not in a:
            yield ("ours right", "upstream silently disables inline PTX (`if(0) asm volatile`); "
                   "ours reports it with file and line", b.strip()[:100])
            b = b.replace("if(0) asm", "asm")
            if a == b:
                continue
        inc = [INCLUDE.match(x) for x in (o, a, b)]
        if all(inc):
            po, pa, pb = (m.group(2) for m in inc)
            example = "%s -> ours %s | theirs %s" % (inc[0].group(0).strip(), inc[1].group(1) + pa,
                                                    inc[2].group(1) + pb)
            if pa == pb:
                yield "unknown", "same header, different include delimiters (<> vs \"\")", example
            elif pa == po:
                if os.path.basename(po) in project_headers:
                    yield ("ours right", "upstream renamed a project-local header (the file "
                           "keeps its name, so the include breaks)", example)
                else:
                    yield "unknown", "header ours keeps, upstream renames: %s" % po, example
            elif po in not_evidenced:
                yield "unknown", "include target not evidenced: %s" % po, example
            else:
                yield "ours right", "evidenced include target: %s" % po, example
            continue
        to, ta, tb = TOKEN.findall(o), TOKEN.findall(a), TOKEN.findall(b)
        masked = _mask_comments(o)
        in_text = [masked[m.start()] == " " for m in TOKEN.finditer(o)]
        if not (len(to) == len(ta) == len(tb)):
            yield "unknown", "tokens differ in number (multi-token rewrite)", "%s => ours %s | theirs %s" % (
                o.strip()[:60], a.strip()[:60], b.strip()[:60])
            continue
        comment = o.lstrip().startswith(("/", "*"))
        for x, y, z, quoted in zip(to, ta, tb, in_text):
            if y == z:
                continue
            example = "%s -> ours %s | theirs %s" % (x, y, z)
            if quoted and not comment:
                yield "unknown", "string literal or trailing comment text only (no effect on code)", example
            elif comment:
                yield "unknown", "comment text only (upstream skips comment lines; no effect on code)", example
            elif y == x:  # we kept, upstream changed
                if x in upstream_rules:
                    if x in ours_keys:
                        yield "unknown", "ours keeps it here by context (e.g. #define alias kept)", example
                    else:
                        yield "theirs right", "rule ours lacks: %s" % x, example
                elif x in external_names:
                    yield ("ours right", "upstream renamed (by substring) a name torch's own "
                           "headers define, which keeps its spelling on MUSA", example)
                else:
                    yield ("unknown", "upstream renamed (by substring) a project-local name; "
                           "harmless when every use is ported alike", example)
            elif z == x:  # we changed, upstream kept
                if "cub/" in o:
                    yield "unknown", "upstream skips every line containing 'cub/'", example
                elif x in not_evidenced:
                    yield "unknown", "rule ours has, not evidenced in torch_musa: %s" % x, example
                else:
                    yield "ours right", "evidenced rule upstream lacks: %s" % x, example
            else:  # both changed, differently
                if x in not_evidenced:
                    yield "unknown", "different targets, ours not evidenced: %s" % x, example
                else:
                    yield "ours right", "different targets, ours evidenced: %s" % x, example


def torch_header_names():
    """Identifiers appearing in the installed torch's C++ headers (torch is not imported)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    names = set()
    inc = os.path.join(list(spec.submodule_search_locations)[0], "include")
    word = re.compile(r"[A-Za-z_]\w*(?:CUDA|NCCL|cuda|nccl|cublas|CUBLAS)\w*|(?:cuda|CUDA|nccl|NCCL|cublas|CUBLAS)\w*")
    for dirpath, _, filenames in os.walk(inc):
        for name in filenames:
            try:
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as fh:
                    names.update(word.findall(fh.read()))
            except OSError:
                pass
    return frozenset(names)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", action="append",
                    help="sdist to port, name==version (default: deepspeed==0.19.8)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-history", action="store_true")
    args = ap.parse_args(argv)
    packages = args.package or ["deepspeed==0.19.8"]
    os.environ["XDG_CACHE_HOME"] = str(WORK / "cache")  # revert records of the disk runs

    wheel = pypi_file(UPSTREAM, "wheel")
    wheel_dir = unpack(wheel, WORK / "upstream-0.1.103")
    from torchada.porting.rules import tables
    from torchada.porting.scan import scan_unmapped, scan_unsupported
    global _mask_comments
    from torchada.porting.scan import _mask_comments

    not_evidenced = set().union(*tables().not_evidenced().values())
    ours_keys = set(tables().identifiers) | set(tables().literals)
    sys.path.insert(0, str(wheel_dir))
    up_rules = json.loads(subprocess.run(
        [sys.executable, "-c", "import ast,json,sys,pathlib;d={}\n"
         "for p in sorted(pathlib.Path(sys.argv[1]).glob('torchada/_mappings/*.py')):\n"
         "  t=ast.parse(p.read_text())\n"
         "  for n in t.body:\n"
         "    if isinstance(n,ast.Assign) and getattr(n.targets[0],'id','')=='MAPPING': d.update(ast.literal_eval(n.value))\n"
         "print(json.dumps(d))", str(wheel_dir)], capture_output=True, text=True).stdout)
    sys.path.pop(0)

    external_names = torch_header_names()
    all_results = {}
    for requirement in packages:
        sdist = pypi_file(requirement, "sdist")
        src_root = unpack(sdist, WORK / ("src-" + requirement.replace("==", "-")))
        files = corpus_files(src_root)
        raw = [Path(f).read_bytes() for f in files]
        texts = [r.decode("utf-8", "surrogateescape") for r in raw]
        nbytes = sum(len(r) for r in raw)
        project_headers = frozenset(os.path.basename(f) for f in files)

        # ours, in memory
        seconds, results, porter = run_ours(texts, args.repeat)
        second = [porter.port(r.text) for r in results]
        ours_idem = sum(1 for r, s in zip(results, second) if s.text != r.text)
        domains = collections.Counter(e.domain for r in results for e in r.edits)
        unmapped = collections.Counter()
        for r in results:
            for name, hit in scan_unmapped(r.text).items():
                unmapped[name] += hit.count
        findings = collections.Counter(f.kind for t in texts for f in scan_unsupported(t))
        findings.update(f.kind for r in results for f in r.findings)

        # ours, on disk (in place, with revert records)
        ours_tree = WORK / ("ours-" + requirement.replace("==", "-"))
        shutil.rmtree(ours_tree, ignore_errors=True)
        shutil.copytree(src_root, ours_tree, symlinks=True)
        disk_seconds, _ = run_ours_on_disk([str(ours_tree)], max(1, args.repeat // 2), None)

        # upstream, on disk, in place
        up_tree = WORK / ("upstream-out-" + requirement.replace("==", "-"))
        shutil.rmtree(up_tree, ignore_errors=True)
        shutil.copytree(src_root, up_tree, symlinks=True)
        up_files = [str(up_tree / os.path.relpath(f, src_root)) for f in files]
        up = run_upstream(wheel_dir, up_files, files, up_tree, args.repeat)
        up_out = [Path(f).read_bytes() for f in up_files]
        up_changed = sum(1 for a, b in zip(raw, up_out) if a != b)
        run_upstream(wheel_dir, up_files, files, up_tree, 1, second_pass=True)
        up_second = [Path(f).read_bytes() for f in up_files]
        up_idem = sum(1 for a, b in zip(up_out, up_second) if a != b)
        up_text = [b.decode("utf-8", "surrogateescape") for b in up_out]
        up_unmapped = collections.Counter()
        for t in up_text:
            for name, hit in scan_unmapped(t).items():
                up_unmapped[name] += hit.count

        # classified diff
        verdicts = collections.Counter()
        reasons = collections.Counter()
        examples = {}
        files_differing = 0
        for path, o, r, t in zip(files, texts, results, up_text):
            if r.text == t:
                continue
            files_differing += 1
            for verdict, reason, example in classify(o.splitlines(), r.text.splitlines(),
                                                     t.splitlines(), up_rules, not_evidenced,
                                                     ours_keys, project_headers,
                                                     external_names):
                verdicts[verdict] += 1
                key = (verdict, re.sub(r": .*", "", reason)
                       if reason.startswith(("rule", "evidenced", "different", "include", "header ours"))
                       else reason)
                reasons[key] += 1
                examples.setdefault(key, "%s: %s" % (os.path.relpath(path, src_root), example))

        up_seconds = min(up["seconds"])
        result = {
            "files": len(files), "bytes": nbytes,
            "ours": {
                "rules_total": sum(tables().counts().values()),
                "seconds_in_memory": round(seconds, 4),
                "mb_per_s_in_memory": round(nbytes / 1e6 / seconds, 2),
                "seconds_on_disk": round(disk_seconds, 4),
                "mb_per_s_on_disk": round(nbytes / 1e6 / disk_seconds, 2),
                "files_changed": sum(1 for r, t in zip(results, texts) if r.text != t),
                "edits": sum(len(r.edits) for r in results),
                "edits_per_domain": dict(domains.most_common()),
                "unmapped_unique": len(unmapped), "unmapped_occurrences": sum(unmapped.values()),
                "unmapped_top": unmapped.most_common(15),
                "reported_constructs": dict(findings.most_common()),
                "second_pass_changed_files": ours_idem,
            },
            "upstream": {
                "version": "0.1.103", "rules_total": up["rules"],
                "seconds_on_disk": round(up_seconds, 4),
                "mb_per_s_on_disk": round(nbytes / 1e6 / up_seconds, 2),
                "files_changed": up_changed,
                "unmapped_unique": len(up_unmapped),
                "unmapped_occurrences": sum(up_unmapped.values()),
                "second_pass_changed_files": up_idem,
                "note": "torch_musa's include/extra/dnn JSON tables, merged by upstream on a "
                        "MUSA machine, are unavailable here",
            },
            "speed_ratio_on_disk": round(up_seconds / disk_seconds, 2),
            "speed_ratio_in_memory_vs_upstream_on_disk": round(up_seconds / seconds, 2),
            "diff": {
                "files_differing": files_differing,
                "verdicts": dict(verdicts),
                "reasons": [{"verdict": v, "reason": r, "count": n, "example": examples[(v, r)]}
                            for (v, r), n in reasons.most_common()],
            },
        }
        all_results[requirement] = result
        print_table(requirement, result)
        (WORK / "porter_throughput_last.json").write_text(json.dumps(all_results, indent=1))
        shutil.rmtree(ours_tree, ignore_errors=True)

    if not args.no_history:
        sys.path.insert(0, str(HERE))
        import history

        history.append("porter_throughput", all_results, packages=packages, upstream=UPSTREAM)
    return 0


def print_table(requirement, r):
    o, u = r["ours"], r["upstream"]
    print("\n== %s: %d C/C++/CUDA files, %.2f MB ==" % (requirement, r["files"], r["bytes"] / 1e6))
    rows = [
        ("", "torchada (ours)", "upstream 0.1.103"),
        ("rules in table", o["rules_total"], u["rules_total"]),
        ("MB/s, file to file in place (1 core)", o["mb_per_s_on_disk"], u["mb_per_s_on_disk"]),
        ("MB/s, in memory (1 core)", o["mb_per_s_in_memory"], "-"),
        ("files changed", o["files_changed"], u["files_changed"]),
        ("second pass changed files", o["second_pass_changed_files"], u["second_pass_changed_files"]),
        ("unmapped CUDA identifiers (unique / uses)",
         "%d / %d" % (o["unmapped_unique"], o["unmapped_occurrences"]),
         "%d / %d" % (u["unmapped_unique"], u["unmapped_occurrences"])),
    ]
    for row in rows:
        print("  %-44s %-20s %s" % row)
    print("  speed ratio (upstream time / ours), file to file: %.1fx" % r["speed_ratio_on_disk"])
    print("  edits per domain (ours): %s" % o["edits_per_domain"])
    print("  reported, not rewritten (ours): %s" % o["reported_constructs"])
    print("  top unmapped (ours): %s" % ", ".join("%s x%d" % kv for kv in o["unmapped_top"][:10]))
    d = r["diff"]
    print("  outputs differ in %d files; verdicts: %s" % (d["files_differing"], d["verdicts"]))
    for item in d["reasons"][:25]:
        print("    [%s] x%d %s\n        e.g. %s" % (item["verdict"], item["count"], item["reason"],
                                                   item["example"][:150]))


if __name__ == "__main__":
    sys.exit(main())
