"""Writes torch_musa_<release>_api.json, the ``torch.musa`` names of each simulated release.

2.7.1 comes from the full recorded manifest (tests/data/torch_musa_2.7.1_api.json, read from
the release's source); each later release is its base release plus the rows of
``readings.py`` (what that release's source adds, removes and patches at import).

Rerun after editing readings.py or the manifest:

    python -m torchada.testing.torch_musa_api.generate            # writes the JSON files
    python -m torchada.testing.torch_musa_api.generate --check    # exit 1 if they are stale
"""
import json
import sys
from pathlib import Path

from torchada.testing.torch_musa_api import readings

HERE = Path(__file__).resolve().parent
MANIFEST_271 = HERE.parents[3] / "tests" / "data" / "torch_musa_2.7.1_api.json"


def _base_271(manifest_path=MANIFEST_271):
    full = json.loads(Path(manifest_path).read_text())
    names = {}
    for name, row in full["torch.musa"]["names"].items():
        entry = {"role": row.get("role", "api"),
                 "bound": row.get("bound_via") or row.get("how_bound") or ""}
        if row.get("available_after"):
            entry["after"] = row["available_after"]
        names[name] = entry
    return {
        "release": "2.7.1", "commit": full["describes"]["commit"],
        "torch": {"minimum": "2.7.1", "pinned": "2.7.1",
                  "evidence": "torch_musa/__init__.py at v2.7.1 (TORCH_MIN_VERSION, the pin warning)"},
        "names": dict(sorted(names.items())), "removed": {}, "submodules": {},
        "import_patches": {"core.lowering.apply_lowering_patch":
                           "torch_musa/__init__.py at v2.7.1: called at import"},
        "unknown": [],
    }


def _derive(base, rows):
    names = {k: dict(v) for k, v in base["names"].items()}
    for name in rows["removed"]:
        names.pop(name, None)
    for name, (role, where) in rows["added"].items():
        names[name] = {"role": role, "bound": where + " at " + rows["commit"][:7]}
    patches = dict(base["import_patches"])
    for key, value in rows.get("import_patches", {}).items():
        if value is None:
            patches.pop(key, None)
        else:
            patches[key] = value + " at " + rows["commit"][:7]
    return {
        "release": rows["release"], "commit": rows["commit"], "torch": rows["torch"],
        "names": dict(sorted(names.items())),
        "removed": {k: v + " at " + rows["commit"][:7] for k, v in rows["removed"].items()},
        "submodules": {**base["submodules"], **rows.get("submodules", {})},
        "import_patches": patches,
        "unknown": readings.UNKNOWN.get(rows["release"], []),
    }


def build():
    """{release: api dict} for every simulated release, oldest first."""
    out = {"2.7.1": _base_271()}
    for rows in readings.RELEASES:
        base = out[rows.get("based_on", readings.BASE)]
        derived = _derive(base, rows)
        # a name removed by an earlier release stays in that release's "removed" list
        derived["removed"] = {**base["removed"], **derived["removed"]}
        for name in rows["added"]:
            derived["removed"].pop(name, None)
        out[rows["release"]] = derived
    return out


def path_for(release):
    return HERE / ("torch_musa_%s_api.json" % release)


def _text(api):
    return json.dumps(api, indent=1, sort_keys=False) + "\n"


def main(argv):
    stale = []
    for release, api in build().items():
        path = path_for(release)
        if "--check" in argv:
            if not path.exists() or path.read_text() != _text(api):
                stale.append(path.name)
        else:
            path.write_text(_text(api))
    if stale:
        print("stale: %s (rerun python -m torchada.testing.torch_musa_api.generate)"
              % ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
