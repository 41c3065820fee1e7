"""Every TORCHADA_* switch and -X option, as one table (pure data; imports nothing).

``python -m torchada._core.settings_table --markdown > docs/environment.md`` regenerates the
page; tests keep the page current, keep the boot module's stdlib copy of the accepted values
equal to this table, and check that every ``TORCHADA_*`` name in the source has a row.
``parser`` names the function that reads the value (module:function).
"""

from collections import namedtuple

Setting = namedtuple("Setting", "name values default meaning parser")

SETTINGS = (
    Setting("-X torchada", ("off", "0", "false", "no"), "unset",
            "turn torchada off for this interpreter before anything else is decided",
            "torchada_boot:_xoption"),
    Setting("TORCHADA_PLATFORM", ("musa", "cuda", "cpu", "off"), "auto-detection",
            "force the platform; cuda / cpu / off record it and patch nothing",
            "torchada_boot:_forced_platform"),
    Setting("TORCHADA_DISABLE_AREAS", ("<area>", "<area>.<fix>", "*"), "none",
            "comma list of areas or fix units not to apply (status says why)",
            "torchada._core.settings:disabled_areas"),
    Setting("TORCHADA_FORCE_CUDA_AVAILABLE", ("1", "0"), "0 (torchada run: 1)",
            "torch.cuda.is_available() answers True on MUSA",
            "torchada.areas._devmap:force_cuda_available"),
    Setting("TORCHADA_SIMULATE_MUSA", ("1", "force"), "unset",
            "use the simulated torch_musa (force: even when a real one is installed)",
            "torchada_boot:_simulation_request"),
    Setting("TORCHADA_CUDA_GRAPH_DEBUG_DUMP_PATH", ("<directory>",), "unset",
            "write a .dot debug dump of every torch.cuda.CUDAGraph capture into this "
            "directory (graph_<ns-timestamp>.dot)", "torchada.areas.graphs:_dump"),
    Setting("TORCHADA_GRAPH_ROTATION", ("1", "0"), "1",
            "keep live graph executables under the driver's cap (LRU, rebuilt at replay)",
            "torchada.areas._graph_exec.settings:rotation_enabled"),
    Setting("TORCHADA_GRAPH_EXEC_CAP", ("1..1048576",), "1900",
            "live graph executables the rotation allows",
            "torchada.areas._graph_exec.settings:configured_cap"),
    Setting("TORCHADA_GRAPH_AUTOPROBE", ("1", "0"), "0",
            "measure the driver's limit once in a child process (cached per machine) and "
            "use it minus the margin", "torchada.areas._graph_exec.settings:autoprobe_enabled"),
    Setting("TORCHADA_GRAPH_EXEC_MARGIN", ("0..1048576",), "128",
            "executables left free under a probed limit (the cap never goes below 64)",
            "torchada.areas._graph_exec.settings:margin"),
    Setting("TORCHADA_CPP_OPS_VERBOSE", ("1",), "unset",
            "print the build log of torchada's own native extensions",
            "torchada.areas._kit.native:build"),
    Setting("TORCHADA_DEVICE_ROUTE", ("c", "python"), "c",
            "how factories / Tensor.new_* / Tensor.to reach the device translation: the C "
            "prefilter (calls naming no CUDA device go straight to torch) or the Python "
            "wrappers only", "torchada.areas._fastpath:requested"),
    Setting("TORCHADA_DISABLE_OP_OVERRIDE_<op>", ("1",), "unset",
            "leave one compiled operator override (op: log, log_, multinomial) to torch_musa",
            "torchada.areas._op_overrides:enabled_ops"),
    Setting("TORCHADA_DEBUG_CPP_OPS", ("1",), "unset",
            "log every call of a compiled operator override to stderr",
            "torchada.areas._op_overrides:debug_enabled"),
    Setting("TORCHADA_TRACE", ("1", "0"), "0 (torchada run: 1)",
            "count every translated CUDA call and keep its first call site (docs/migrate.md)",
            "torchada._core.trace:_configure"),
    Setting("TORCHADA_REPORT", ("<directory>",), "unset",
            "write the translation report there at exit, one JSON file per process "
            "(rank-aware under torchrun); implies TORCHADA_TRACE=1",
            "torchada._core.trace:_configure"),
    Setting("TORCHADA_PORT_WORKERS", ("1..256",), "the CPUs this process may use",
            "processes `torchada port` ports files in (sources of 4 MiB or more; 1: none)",
            "torchada.porting.cli:_workers"),
    Setting("TORCHADA_EXCLUDE_DIRS", ("<paths or names>",), "none",
            "directories the porter and the build integration leave alone "
            "(separated by os.pathsep or commas)",
            "torchada.porting.collect:parse_exclude_dirs"),
    Setting("TORCHADA_SIM_DEVICE_COUNT", ("0..16",), "2", "simulated physical devices",
            "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_DEVICE_NAME", ("<product name>",), "MTT S5000",
            "simulated device name", "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_TOTAL_MEMORY", ("<bytes>", "<n>MiB", "<n>GiB"), "48GiB",
            "simulated per-device capacity and allocation limit",
            "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_CAPABILITY", ("MAJOR.MINOR",), "3.1",
            "simulated compute capability", "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_TORCH_MUSA_VERSION", ("<PEP 440 version>",),
            "2.7.1 on torch 2.7.x, else <major>.<minor>.0 of torch",
            "simulated torch_musa release (selects its defects)",
            "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_MUSA_VERSION", ("<digits>",), "4030", "simulated torch.version.musa",
            "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_DEFECTS", ("auto", "none", "all", "<names>", "+name", "-name"),
            "auto", "which modelled torch_musa defects the simulator reproduces",
            "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_GRAPH_EXEC_CAP", ("<positive integer>",), "2048",
            "live graph executables per process (graph_exec_cap defect)",
            "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_GRAPH_INSTANTIATE_US", ("0..1000000",), "300",
            "simulated cost of one graph instantiate (issue 10: about 0.3 ms on an S5000)",
            "torchada.testing._simconfig:config"),
    Setting("TORCHADA_SIM_CACHE_DIR", ("<directory>",), "platformdirs user cache",
            "root of the simulator backend's build cache",
            "torchada.testing._backend:cache_root"),
)

# Names in the source that are not user settings: a C++ include guard, and the variable
# ``torchada run`` passes to its own child.
NOT_SETTINGS = ("TORCHADA_STABLE_ACCESSORS", "TORCHADA_RUN_SUMMARY",
                "TORCHADA_MIRRORED_ENV")  # internal: env_mirror's record for children


def markdown():
    lines = ["# Environment and -X options", "",
             "Generated from `torchada/_core/settings_table.py` "
             "(`python -m torchada._core.settings_table --markdown`). A malformed value gets "
             "one warning naming the setting and the accepted values; the default is used.", "",
             "| Setting | Accepted values | Default | Meaning |", "|---|---|---|---|"]
    for s in SETTINGS:
        lines.append("| `%s` | %s | %s | %s |" % (
            s.name, ", ".join("`%s`" % v for v in s.values), s.default, s.meaning))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown())
    else:
        sys.exit("usage: python -m torchada._core.settings_table --markdown")
