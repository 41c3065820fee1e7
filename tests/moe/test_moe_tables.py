"""The bundled fused-MoE tables, their recipe and ``torchada tune-moe``.

The shipped tables must be exactly what the recipe materializes (row for row, key for key,
order included); vLLM's space-free twins must equal SGLang's spaced names; a merge keeps the
rows a run did not measure; bad recipes are refused with the file and entry named."""
import json
import os
from collections import OrderedDict

import pytest

from tests._fresh import SRC, clean_env, run_argv
from torchada.moe import recipes, tables, tune

SHIPPED = tables.CONFIGS / "triton_3_2_0"


def ordered(path):
    with open(path) as fh:
        return json.load(fh, object_pairs_hook=OrderedDict)


def as_items(table):
    """Rows and keys in file order: equal only if order matches too."""
    return [(b, list(c.items())) for b, c in table.items()]


@pytest.mark.parametrize("recipe_file, folder, count", [
    ("shapes.json", "triton_3_2_0", 145), ("shapes_triton_3_6_0.json", "triton_3_6_0", 2)])
def test_regenerated_tables_equal_the_shipped_ones(tmp_path, recipe_file, folder, count):
    assert tables.RECIPES / recipe_file in recipes.bundled()
    result = recipes.materialize(recipes.load(tables.RECIPES / recipe_file), tmp_path)
    assert os.path.basename(result["folder"]) == folder
    shipped = tables.CONFIGS / folder
    regenerated = sorted(os.listdir(result["folder"]))
    assert regenerated == sorted(n for n in os.listdir(shipped))
    for name in regenerated:
        assert as_items(ordered(os.path.join(result["folder"], name))) == \
            as_items(ordered(shipped / name)), name
    assert result["written"] == len(regenerated) == count
    assert tables.bundled_versions() == ["triton_3_2_0", "triton_3_6_0"]


# Shapes upstream torchada tuned after 0.1.103 (its fused_moe configs folders), measured
# there on the MTT S5000: (folder, file name, {bucket: (BLOCK_M, N, K, GROUP_M, warps, stages)}).
UPSTREAM_SINCE_0_1_103 = [
    ("triton_3_2_0", "E=768,N=1280,device_name=MTT_S5000.json",
     {"21996": (128, 128, 32, 16, 16, 1), "24468": (128, 128, 32, 16, 16, 1),
      "45012": (128, 128, 32, 16, 16, 1)}),
    ("triton_3_2_0", "E=768,N=1280,device_name=MTT_S5000_down.json",
     {"21996": (128, 128, 32, 16, 16, 1), "24468": (128, 128, 32, 16, 16, 1),
      "45012": (128, 128, 64, 16, 16, 1)}),
    ("triton_3_6_0", "E=128,N=1856,device_name=MTT_S5000.json",
     {"1": (32, 64, 64, 32, 4, 1), "8": (64, 32, 64, 64, 4, 1)}),
    ("triton_3_6_0", "E=768,N=1280,device_name=MTT_S5000,dtype=bf16.json",
     {"45012": (128, 128, 32, 16, 16, 1)}),
]


@pytest.mark.parametrize("folder, name, rows", UPSTREAM_SINCE_0_1_103,
                         ids=[f + "/" + n for f, n, _ in UPSTREAM_SINCE_0_1_103])
def test_tables_upstream_added_since_0_1_103_ship(folder, name, rows):
    keys = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages")
    table = ordered(tables.CONFIGS / folder / name)
    assert {b: tuple(c[k] for k in keys) for b, c in table.items()} == rows
    assert set(table["%s" % next(iter(rows))]) == set(keys)
    # the folder serving libraries are pointed at on MUSA's Triton 3.6 holds it
    if folder == "triton_3_6_0":
        assert tables.folder_for("3.6.0+musa") == tables.CONFIGS / folder


def test_every_spaced_block_shape_has_its_vllm_twin():
    spaced = [n for n in os.listdir(SHIPPED) if " " in n]
    assert len(spaced) == 42
    for name in spaced:
        assert ordered(SHIPPED / name.replace(" ", "")) == ordered(SHIPPED / name)


def test_shipped_table_names_parse_and_rows_are_complete():
    for name in os.listdir(SHIPPED):
        E, N, dtype, block, down, device = tables.parse_name(name)
        assert device == "MTT_S5000"
        rows = ordered(SHIPPED / name)
        assert list(rows) == sorted(rows, key=int)
        for config in rows.values():
            assert set(recipes.CONFIG_KEYS) <= set(config) and {"num_warps", "num_stages"} <= set(config)


def test_merge_keeps_rows_the_recipe_does_not_pin(tmp_path):
    recipe = recipes.load()
    name = "E=64,N=768,device_name=MTT_S5000.json"
    folder = tmp_path / "triton_3_2_0"
    folder.mkdir()
    extra = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 1,
             "num_warps": 2, "num_stages": 3}
    stale = {"1": dict(extra), "6144": dict(extra)}  # bucket 1 is pinned by the recipe, 6144 is not
    (folder / name).write_text(json.dumps(stale))
    result = recipes.materialize(recipe, tmp_path, merge=True)
    merged = ordered(folder / name)
    shipped = ordered(SHIPPED / name)
    assert merged["1"] == shipped["1"] and merged["6144"] == extra
    assert list(merged) == list(shipped) + ["6144"] and result["kept_rows"] == 1
    plain = recipes.materialize(recipe, tmp_path / "plain")
    assert "6144" not in ordered(tmp_path / "plain" / "triton_3_2_0" / name) and plain["kept_rows"] == 0


def test_ingest_pins_a_run_and_keeps_the_rest(tmp_path):
    recipe = recipes.load()
    run = tmp_path / "run"
    run.mkdir()
    better = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 7,
              "num_warps": 8, "num_stages": 2}
    (run / "E=64,N=768,device_name=MTT_S5000.json").write_text(json.dumps({"8": better}))
    (run / "E=3,N=16,device_name=MTT_S5000,block_shape=[128,128].json").write_text(
        json.dumps({"1": better}))  # a new shape, in vLLM's spelling
    new = recipes.ingest(recipe, run)
    out = recipes.materialize(new, tmp_path / "out")["folder"]
    table = ordered(os.path.join(out, "E=64,N=768,device_name=MTT_S5000.json"))
    shipped = ordered(SHIPPED / "E=64,N=768,device_name=MTT_S5000.json")
    assert table["8"] == better
    assert {b: c for b, c in table.items() if b != "8"} == {b: c for b, c in shipped.items() if b != "8"}
    assert ordered(os.path.join(out, "E=3,N=16,device_name=MTT_S5000,block_shape=[128, 128].json")) == {"1": better}
    assert len(new["configs"]) == len(recipe["configs"]) + 1  # the palette grew by one config


def test_ingest_refuses_another_device(tmp_path):
    (tmp_path / "E=8,N=16,device_name=NVIDIA_H200.json").write_text("{}")
    with pytest.raises(recipes.RecipeError, match="measured on NVIDIA_H200, the recipe is for MTT_S5000"):
        recipes.ingest(recipes.load(), tmp_path)


def test_bad_recipes_name_the_file_and_entry(tmp_path):
    recipe = recipes.load()
    broken = json.loads(json.dumps(recipe))
    broken["shapes"][0]["buckets"]["1"] = "c999"
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(recipes.RecipeError) as info:
        recipes.load(path)
    assert str(path) in str(info.value) and "bucket 1 pins 'c999'" in str(info.value)
    assert "shapes[0] (E=" in str(info.value)
    path.write_text("{not json")
    with pytest.raises(recipes.RecipeError, match="cannot read the shapes recipe"):
        recipes.load(path)
    broken = json.loads(json.dumps(recipe))
    del next(iter(broken["configs"].values()))["BLOCK_SIZE_K"]
    path.write_text(json.dumps(broken))
    with pytest.raises(recipes.RecipeError, match="missing BLOCK_SIZE_K"):
        recipes.load(path)


def test_every_model_shape_in_models_json_has_a_table():
    with open(tables.RECIPES / "models.json") as fh:
        models = json.load(fh)["models"]
    for model, spec in models.items():
        for shape in tune.shapes_of(spec):
            assert (SHIPPED / tables.file_name(**shape)).exists(), (model, shape)
            assert shape["N"] * spec["tp"][0] <= spec["moe_intermediate_size"]


def test_folder_for_picks_the_version_else_the_newest_older_else_the_newest(tmp_path):
    for name in ("triton_3_1_0", "triton_3_10_0", "triton_3_3_0", "not_a_version"):
        (tmp_path / name).mkdir()
    assert tables.folder_for("3.3.0", tmp_path).name == "triton_3_3_0"
    assert tables.folder_for("3.3.0+musa.1", tmp_path).name == "triton_3_3_0"
    assert tables.folder_for("3.2.0", tmp_path).name == "triton_3_1_0"  # older, never newer
    assert tables.folder_for("3.9.0", tmp_path).name == "triton_3_3_0"  # numeric, not text order
    assert tables.folder_for("3.11.0", tmp_path).name == "triton_3_10_0"
    assert tables.folder_for("3.0.0", tmp_path).name == "triton_3_10_0"  # nothing older
    assert tables.folder_for(None, tmp_path).name == "triton_3_10_0"
    assert tables.folder_for("3.2.0", tmp_path / "missing") is None


def test_pick_fastest_takes_the_lowest_time_and_skips_failures():
    configs = [{"BLOCK_SIZE_M": m} for m in (16, 32, 64)]
    times = {(1, 16): 3.0, (1, 32): 1.0, (1, 64): None, (8, 16): 0.5, (8, 32): 2.0, (8, 64): 0.7}
    best = tune.pick_fastest({"E": 8, "N": 16}, [1, 8], configs,
                             lambda shape, b, c: times[(b, c["BLOCK_SIZE_M"])])
    assert best == {"1": {"BLOCK_SIZE_M": 32}, "8": {"BLOCK_SIZE_M": 16}}
    with pytest.raises(RuntimeError, match="no configuration ran for E=8,N=16"):
        tune.pick_fastest({"E": 8, "N": 16}, [1], configs, lambda *a: None)


def test_search_space_respects_the_quantization_block():
    blocked = list(tune.search_space([128, 128]))
    assert blocked and all(128 % c["BLOCK_SIZE_K"] == 0 and 128 % c["BLOCK_SIZE_N"] == 0 for c in blocked)
    assert len(list(tune.search_space())) > len(blocked)


def cli(*args, env=None):
    return run_argv(["-m", "torchada", "tune-moe", *args], env=env or clean_env(PYTHONPATH=SRC),
                    check=False)


def test_cli_materialize_and_errors(tmp_path):
    proc = cli("--materialize", "--out", tmp_path)
    assert proc.returncode == 0 and "wrote 145 tables" in proc.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    proc = cli("--materialize", "--shapes", bad, "--out", tmp_path)
    assert proc.returncode == 2 and "expected an object with \"schema\": 1" in proc.stderr
    proc = cli()
    assert proc.returncode == 2 and "choose --measure, --ingest RUN_DIR or --materialize" in proc.stderr
    assert "runs only on a real Moore Threads GPU" in cli("--help").stdout


@pytest.mark.parametrize("simulated", [False, True], ids=["cpu", "simulator"])
def test_measure_refuses_without_real_hardware(tmp_path, simulated):
    env = clean_env(PYTHONPATH=SRC, **({"TORCHADA_SIMULATE_MUSA": "1"} if simulated else {}))
    proc = cli("--measure", "--model", "Qwen/Qwen3-30B-A3B", "--out", tmp_path / "run", env=env)
    assert proc.returncode == 1
    why = ("this is the simulated torch_musa" if simulated
           else "no MUSA device (torch.musa.is_available() is False)")
    assert why in proc.stderr and "runs only on a real Moore Threads GPU" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_recipe_file_is_what_save_writes(tmp_path):
    # the bundled recipe is canonical: loading and saving it changes no byte
    recipes.save(recipes.load(), tmp_path / "shapes.json")
    assert (tmp_path / "shapes.json").read_bytes() == (tables.RECIPES / "shapes.json").read_bytes()



@pytest.mark.parametrize("version, folder", [
    ("3.2.0", "triton_3_2_0"), ("3.2.0.post1", "triton_3_2_0"), ("3.2.0rc1", "triton_3_2_0"),
    ("3.2.0+musa.1", "triton_3_2_0"), ("3.10.1a1", "triton_3_10_1"), ("x", None), (None, None)])
def test_version_dir_name_keeps_the_numeric_release(version, folder):
    assert tables.version_dir_name(version) == folder
