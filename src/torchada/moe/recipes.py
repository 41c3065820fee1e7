"""The recipes behind the bundled tables, and the tables materialized from them.

``ci/shapes.json`` (Triton 3.2.0) and ``ci/shapes_triton_<x_y_z>.json`` (one per other Triton
release tuned on) are the record of what was measured: a palette of kernel configurations
(each once) and, per kernel shape (E, N, dtype, block_shape, down), the configuration pinned
for each token bucket. The tables are derived from it, never edited by hand:
``materialize`` writes one table per shape (and vLLM's space-free twin of every
``block_shape`` name); with ``merge`` it keeps the rows of an existing table that the recipe
does not pin (buckets a run did not measure). ``ingest`` pins a tuning run's tables (the
files vLLM's and SGLang's tuners write) into the recipe.
"""
import json
import os
from collections import OrderedDict

from torchada.moe import tables

SCHEMA = 1
CONFIG_KEYS = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M")


class RecipeError(ValueError):
    """A recipe or table that cannot be used; the message names the file, the entry and the fix."""


def bundled():
    """The bundled recipe files, one per Triton release (``shapes.json`` first)."""
    extra = sorted(p for p in tables.RECIPES.glob("shapes_triton_*.json"))
    return [tables.RECIPES / "shapes.json"] + extra


def load(path=None):
    path = str(path or tables.RECIPES / "shapes.json")
    try:
        with open(path) as fh:
            recipe = json.load(fh, object_pairs_hook=OrderedDict)
    except (OSError, ValueError) as exc:
        raise RecipeError("cannot read the shapes recipe %s (%s); restore it from the "
                          "package or pass --shapes FILE" % (path, exc)) from None
    validate(recipe, path)
    return recipe


def validate(recipe, where="shapes recipe"):
    if not isinstance(recipe, dict) or recipe.get("schema") != SCHEMA:
        raise RecipeError("%s: expected an object with \"schema\": %d" % (where, SCHEMA))
    palette = recipe.get("configs")
    if not isinstance(palette, dict):
        raise RecipeError("%s: \"configs\" must map a configuration id to its settings" % where)
    for cid, config in palette.items():
        _check_config(config, "%s: configs[%s]" % (where, cid))
    for i, shape in enumerate(recipe.get("shapes", ())):
        label = "%s: shapes[%d] (%s)" % (where, i, _shape_label(shape))
        for key in ("E", "N"):
            if not isinstance(shape.get(key), int) or shape[key] <= 0:
                raise RecipeError("%s: %s must be a positive integer" % (label, key))
        for bucket, cid in shape.get("buckets", {}).items():
            if not bucket.isdigit():
                raise RecipeError("%s: bucket %r is not a token count" % (label, bucket))
            if cid not in palette:
                raise RecipeError("%s: bucket %s pins %r, which \"configs\" does not define"
                                  % (label, bucket, cid))


def _check_config(config, label):
    if not isinstance(config, dict):
        raise RecipeError("%s: a configuration is an object of integers" % label)
    missing = [k for k in CONFIG_KEYS if k not in config]
    if missing:
        raise RecipeError("%s: missing %s" % (label, ", ".join(missing)))
    bad = [k for k, v in config.items() if not isinstance(v, int) or isinstance(v, bool)]
    if bad:
        raise RecipeError("%s: %s must be integers" % (label, ", ".join(bad)))


def _shape_label(shape):
    try:
        return tables.file_name(shape["E"], shape["N"], shape.get("dtype"),
                                shape.get("block_shape"), shape.get("down", False))
    except (KeyError, TypeError, ValueError):
        return "unnamed"


def tables_from(recipe):
    """{file name (SGLang's spelling): rows} for every shape, rows in bucket order."""
    palette = recipe["configs"]
    out = OrderedDict()
    for shape in recipe["shapes"]:
        rows = OrderedDict((b, OrderedDict(palette[cid]))
                           for b, cid in sorted(shape["buckets"].items(), key=lambda i: int(i[0])))
        out[_shape_label(shape)] = rows
    return out


def render(rows):
    return json.dumps(rows, indent=4) + "\n"


def read_table(path):
    try:
        with open(path) as fh:
            rows = json.load(fh, object_pairs_hook=OrderedDict)
    except (OSError, ValueError) as exc:
        raise RecipeError("cannot read table %s (%s); delete it or fix its JSON" % (path, exc)) from None
    if not isinstance(rows, dict):
        raise RecipeError("table %s: expected an object mapping token counts to configurations" % path)
    for bucket, config in rows.items():
        if not str(bucket).isdigit():
            raise RecipeError("table %s: key %r is not a token count" % (path, bucket))
        _check_config(config, "table %s: bucket %s" % (path, bucket))
    return rows


def materialize(recipe, out_root, merge=False):
    """Write every table of ``recipe`` under ``out_root/triton_<version>/``; returns
    {"folder", "written", "kept_rows"}. Each file is replaced atomically, so a reader never
    sees half a table."""
    from torchada._core.files import write_atomic

    folder = os.path.join(str(out_root), tables.version_dir_name(recipe["triton"]))
    os.makedirs(folder, exist_ok=True)
    written, kept = 0, 0
    for name, rows in tables_from(recipe).items():
        path = os.path.join(folder, name)
        if merge and os.path.exists(path):
            old = read_table(path)
            extra = OrderedDict((b, c) for b, c in old.items() if b not in rows)
            kept += len(extra)
            rows = OrderedDict(sorted(list(rows.items()) + list(extra.items()),
                                      key=lambda i: int(i[0])))
        data = render(rows).encode()
        for target in {name, name.replace(" ", "")}:
            write_atomic(os.path.join(folder, target), data, mode=0o644, sync=False)
            written += 1
    from torchada._core.files import fsync_dir

    fsync_dir(folder)  # one directory sync for the batch
    return {"folder": folder, "written": written, "kept_rows": kept}


def ingest(recipe, run_dir):
    """Pin the rows of a tuning run's tables (``run_dir/*.json``) into ``recipe`` (a new
    recipe is returned; the palette grows by the configurations it lacks)."""
    recipe = json.loads(json.dumps(recipe), object_pairs_hook=OrderedDict)
    palette = recipe["configs"]
    ids = {json.dumps(c): cid for cid, c in palette.items()}
    shapes = {_shape_label(s): s for s in recipe["shapes"]}
    names = sorted(n for n in os.listdir(run_dir) if n.endswith(".json"))
    seen = set()
    for name in names:
        E, N, dtype, block, down, device = tables.parse_name(name)
        if device != recipe["device"]:
            raise RecipeError("%s: measured on %s, the recipe is for %s; tune on the same "
                              "device or keep a recipe per device" % (name, device, recipe["device"]))
        canonical = tables.file_name(E, N, dtype, block, down, device)
        if canonical in seen:
            continue  # vLLM's space-free twin of a table already read
        seen.add(canonical)
        shape = shapes.get(canonical)
        if shape is None:
            shape = OrderedDict([("E", E), ("N", N), ("dtype", dtype), ("block_shape", block),
                                 ("down", down), ("buckets", OrderedDict())])
            shapes[canonical] = shape
            recipe["shapes"].append(shape)
        for bucket, config in read_table(os.path.join(run_dir, name)).items():
            key = json.dumps(config)
            if key not in ids:
                ids[key] = "c%03d" % len(palette)
                palette[ids[key]] = config
            shape["buckets"][str(bucket)] = ids[key]
    recipe["shapes"].sort(key=lambda s: (s["E"], s["N"], s["dtype"] or "", s["block_shape"] or [],
                                         s["down"]))
    validate(recipe, run_dir)
    return recipe


def empty(device=tables.DEVICE, triton="3.2.0"):
    return OrderedDict([("schema", SCHEMA), ("device", device), ("triton", triton),
                        ("configs", OrderedDict()), ("shapes", [])])


def save(recipe, path):
    from torchada._core.files import write_atomic

    write_atomic(str(path), (json.dumps(recipe, indent=1) + "\n").encode(), mode=0o644)
