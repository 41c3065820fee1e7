"""``torchada tune-moe``: measure fused-MoE configurations on a MUSA GPU, pin them in the
recipe, and materialize the tables vLLM and SGLang read.

Three steps, each its own flag:
  --measure      time every configuration of the search space for each shape and token
                 bucket and write the fastest as a run folder of tables (real MUSA hardware
                 only: on the simulator or a CPU the timings would mean nothing, so it refuses)
  --ingest DIR   pin a run folder's tables (ours, or vLLM's / SGLang's tuner output) into the
                 shapes recipe
  --materialize  write the tables from the recipe, without a GPU (--merge-configs keeps the
                 rows of existing tables that the recipe does not pin)
"""
import argparse
import itertools
import json
import os
import sys

from torchada.moe import recipes, tables

HARDWARE_NOTE = ("--measure runs only on a real Moore Threads GPU (torch_musa with a device, "
                 "and vLLM's fused_experts for the kernel); --ingest and --materialize run anywhere")

BUCKETS = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096)
SEARCH_SPACE = {"BLOCK_SIZE_M": (16, 32, 64, 128), "BLOCK_SIZE_N": (32, 64, 128, 256),
                "BLOCK_SIZE_K": (64, 128, 256), "GROUP_SIZE_M": (1, 16, 32, 64),
                "num_warps": (4, 8), "num_stages": (1, 2)}


def search_space(block_shape=None):
    """Every configuration to time; block-quantized kernels need BLOCK_SIZE_K dividing the
    quantization block (and BLOCK_SIZE_N likewise), as vLLM's tuner requires."""
    keys = list(SEARCH_SPACE)
    for values in itertools.product(*(SEARCH_SPACE[k] for k in keys)):
        config = dict(zip(keys, values))
        if block_shape and (block_shape[1] % config["BLOCK_SIZE_K"]
                            or block_shape[0] % config["BLOCK_SIZE_N"]):
            continue
        yield config


def pick_fastest(shape, buckets, configs, time_config):
    """{bucket: config} with the lowest ``time_config(shape, bucket, config)`` (seconds; a
    config that fails to compile or launch returns None and is passed over)."""
    best = {}
    for bucket in buckets:
        timed = [(t, i, c) for i, c in enumerate(configs)
                 if (t := time_config(shape, bucket, c)) is not None]
        if not timed:
            raise RuntimeError("no configuration ran for %s at %d tokens"
                               % (tables.file_name(**shape), bucket))
        best[str(bucket)] = min(timed)[2]
    return best


def _hardware_timer():
    """A timer over vLLM's fused_experts on the current MUSA device, or a reason it cannot be."""
    import torch

    if getattr(getattr(torch, "musa", None), "is_available", lambda: False)() is False:
        return None, "no MUSA device (torch.musa.is_available() is False)"
    if getattr(sys.modules.get("torch_musa"), "_sim", None) is not None:
        return None, "this is the simulated torch_musa: its timings are CPU timings"
    try:
        from vllm.model_executor.layers.fused_moe import fused_experts, override_config
        from triton.testing import do_bench
    except ImportError as exc:
        return None, "vLLM's fused_experts is not importable (%s)" % exc

    def time_config(shape, tokens, config):
        E, N = shape["E"], shape["N"]
        hidden = 4096
        dev = torch.device("musa")
        x = torch.randn(tokens, hidden, device=dev, dtype=torch.bfloat16)
        w1 = torch.randn(E, 2 * N, hidden, device=dev, dtype=torch.bfloat16)
        w2 = torch.randn(E, hidden, N, device=dev, dtype=torch.bfloat16)
        weights, ids = torch.topk(torch.randn(tokens, E, device=dev).softmax(-1), 2)
        try:
            with override_config(config):
                return do_bench(lambda: fused_experts(x, w1, w2, weights, ids)) * 1e-3
        except Exception:  # a configuration the compiler or the device rejects
            return None

    return time_config, None


def measure(models_path, model, out_dir, buckets=BUCKETS):
    time_config, why = _hardware_timer()
    if time_config is None:
        raise SystemExit("torchada tune-moe --measure: %s. %s." % (why, HARDWARE_NOTE))
    os.makedirs(out_dir, exist_ok=True)
    for shape in model_shapes(models_path, model):
        configs = list(search_space(shape.get("block_shape")))
        rows = pick_fastest(shape, buckets, configs, time_config)
        name = tables.file_name(**shape)
        with open(os.path.join(out_dir, name), "w") as fh:
            fh.write(recipes.render(rows))
        print("measured %s (%d buckets x %d configs)" % (name, len(buckets), len(configs)))


def model_shapes(models_path, name):
    with open(models_path) as fh:
        models = json.load(fh)["models"]
    if name not in models:
        raise SystemExit("torchada tune-moe: no model %r in %s (known: %s)"
                         % (name, models_path, ", ".join(sorted(models))))
    return shapes_of(models[name])


def shapes_of(model):
    """The kernel shapes (kwargs of tables.file_name) a models.json entry needs."""
    E = model["experts"] + (1 if model.get("shared_expert_fusion") else 0)
    out = []
    for tp in model["tp"]:
        if model["moe_intermediate_size"] % tp:
            continue
        for dtype in model.get("dtypes", [None]):
            out.append({"E": E, "N": model["moe_intermediate_size"] // tp, "dtype": dtype,
                        "block_shape": model.get("block_shape")})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="torchada tune-moe", description=__doc__.split("\n\n")[0],
        epilog=HARDWARE_NOTE, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default=str(tables.RECIPES / "shapes.json"),
                        help="the shapes recipe (default: the bundled ci/shapes.json)")
    parser.add_argument("--models", default=str(tables.RECIPES / "models.json"),
                        help="with --measure: the models recipe whose entry --model names "
                        "(default: the bundled ci/models.json)")
    parser.add_argument("--materialize", action="store_true",
                        help="write the tables from the recipe (no GPU needed)")
    parser.add_argument("--merge-configs", action="store_true",
                        help="with --materialize: keep rows of existing tables the recipe lacks")
    parser.add_argument("--out", default=None,
                        help="folder holding triton_<version>/ (default: the bundled configs)")
    parser.add_argument("--ingest", metavar="RUN_DIR",
                        help="pin the tables of a tuning run into the recipe")
    parser.add_argument("--measure", action="store_true", help="time configurations "
                        "(real MUSA hardware only) and write a run folder to --out")
    parser.add_argument("--model", help="with --measure: the models.json entry to tune")
    args = parser.parse_args(argv)
    if not (args.materialize or args.ingest or args.measure):
        parser.error("choose --measure, --ingest RUN_DIR or --materialize")
    try:
        if args.measure:
            if not args.model or not args.out:
                parser.error("--measure needs --model NAME and --out RUN_DIR")
            measure(args.models, args.model, args.out)
        recipe = recipes.load(args.shapes)
        if args.ingest:
            recipe = recipes.ingest(recipe, args.ingest)
            recipes.save(recipe, args.shapes)
            print("pinned %s into %s" % (args.ingest, args.shapes))
        if args.materialize:
            result = recipes.materialize(recipe, args.out or tables.CONFIGS, args.merge_configs)
            print("wrote %(written)d tables to %(folder)s (%(kept_rows)d rows kept)" % result)
    except recipes.RecipeError as exc:
        print("torchada tune-moe: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
