"""Every TORCHADA_* switch and -X option, as one table: the name, what it accepts, its default,
what it does, and the parser that reads it (a callable, run by ``torchada._core.settings.read``).

``python -m torchada._core.settings_table --markdown > docs/environment.md`` regenerates the
page; tests keep the page current, keep the boot module's stdlib copy of the accepted values
equal to this table, and check that every ``TORCHADA_*`` name in the source has a row and is
read through ``settings.read`` (the start-up hook's fast path, torchada_boot.py and the .pth
line, reads its three rows itself and warns the same way). Importing this module imports
only the parsers (stdlib, nothing else).
"""

from collections import namedtuple

from torchada._core.setting_parsers import (JSONObject, Choice, Flag, IntRange, Lazy, Names,
                                            Pattern, Text)

Setting = namedtuple("Setting", "name values default meaning parse")

_OFF = ("off", "0", "false", "no")
_ON = ("on", "1", "true", "yes", "auto")
OPS = ("log", "log_", "multinomial", "isfinite")  # members of TORCHADA_DISABLE_OP_OVERRIDE_<op>

SETTINGS = (
    Setting("-X torchada", ("off", "0", "false", "no"), "unset",
            "turn torchada off for this interpreter before anything else is decided (also "
            "accepted: on, 1, true, yes, auto and a bare -X torchada, which change nothing)",
            Choice(_OFF + _ON, "on", dict(dict.fromkeys(_OFF, "off"), **dict.fromkeys(_ON, "on")))),
    Setting("TORCHADA_PLATFORM", ("musa", "cuda", "cpu", "off"), "auto-detection",
            "force the platform; cuda / cpu / off record it and patch nothing",
            Choice(("musa", "cuda", "cpu", "off"))),
    Setting("TORCHADA_DISABLE_AREAS", ("<area>", "<area>.<fix>", "*"), "none",
            "comma list of areas or fix units not to apply (status says why)",
            Names("area or <area>.<fix> names separated by commas, or *")),
    Setting("TORCHADA_FORCE_CUDA_AVAILABLE", ("1", "0"), "0 (torchada run: 1)",
            "torch.cuda.is_available() answers True on MUSA",
            Flag(False)),
    Setting("TORCHADA_SIMULATE_MUSA", ("1", "force"), "unset",
            "use the simulated torch_musa (force: even when a real one is installed)",
            Choice(("1", "true", "yes", "on", "force", "0", "false", "no", "off"), None,
                   dict(dict.fromkeys(("1", "true", "yes", "on"), "on"),
                        **dict.fromkeys(_OFF, None)))),
    Setting("TORCHADA_CUDA_GRAPH_DEBUG_DUMP_PATH", ("<directory>",), "unset",
            "write a .dot debug dump of every torch.cuda.CUDAGraph capture into this "
            "directory (graph_<ns-timestamp>.dot)", Text("a directory")),
    Setting("TORCHADA_GRAPH_ROTATION", ("1", "0"), "1",
            "keep live graph executables under the driver's cap (LRU, rebuilt at replay)",
            Flag(True)),
    Setting("TORCHADA_GRAPH_EXEC_CAP", ("1..1048576",), "1900",
            "live graph executables the rotation allows",
            IntRange(1, 1 << 20, 1900)),
    Setting("TORCHADA_GRAPH_AUTOPROBE", ("1", "0"), "0",
            "measure the driver's limit once in a child process (cached per machine) and "
            "use it minus the margin", Flag(False)),
    Setting("TORCHADA_GRAPH_EXEC_MARGIN", ("0..1048576",), "128",
            "executables left free under a probed limit (the cap never goes below 64)",
            IntRange(0, 1 << 20, 128)),
    Setting("TORCHADA_CUDA_ENV_WARNINGS", ("1", "0"), "1",
            "one warning at activation for each set CUDA / NCCL variable that has no effect on "
            "MUSA (NVIDIA_TF32_OVERRIDE, CUDA_DEVICE_MAX_CONNECTIONS, TORCH_NCCL_* without an "
            "MCCL twin; docs/devices.md), naming its MUSA twin or saying none exists",
            Flag(True)),
    Setting("TORCHADA_MCCL_EAGER_INIT", ("1", "0"), "1",
            "an mccl group made with a known device (init_process_group(device_id=...), or a "
            "group inheriting a bound one) has its MCCL communicator at creation, as NCCL's on "
            "CUDA; 0: made at the group's first collective instead (docs/distributed.md)",
            Flag(True)),
    Setting("TORCHADA_TRITON_INPLACE_ALIAS", ("fix", "off", "vendor"), "fix",
            "MUSA's Triton 3.6: which argument pairs the launcher reports as sharing a pointer "
            "(fix: numbered by IR argument; off: none; vendor: the fork's own numbering; "
            "docs/triton.md)", Choice(("fix", "off", "vendor"), "fix")),
    Setting("TORCHADA_TRITON_F32_DEFAULT", ("ieee", "tf32", "tf32x3", "bf16x3", "bf16x6"),
            "unset", "MUSA's Triton 3.6: exported as TRITON_F32_DEFAULT (the float32 tl.dot "
            "precision) unless that is set; checked against the backend's list (docs/triton.md)",
            Text("a tl.dot input precision the MUSA backend accepts")),
    Setting("TORCHADA_TRITON_FAST_EXP", ("1", "0"), "0",
            "MUSA's Triton 3.6: float32 tl.exp compiled as exp2(x * log2 e) for the musa backend "
            "(relative error grows to ~|x| * 5e-8 from rounding x * log2 e); the backend hash is salted so cached "
            "kernels never mix (docs/triton.md)", Flag(False)),
    Setting("TORCHADA_CPP_OPS_VERBOSE", ("1", "0"), "0",
            "print the build log of torchada's own native extensions",
            Flag(False)),
    Setting("TORCHADA_SYSTEM_CACHE_DIR", ("<directory>",), "/var/cache/torchada",
            "the cache `torchada build --system` fills for every user, searched after the "
            "user's own (must be owned by root or the user and writable by nobody else; "
            "docs/security.md)", Text("a directory")),
    Setting("TORCHADA_DEVICE_ROUTE", ("c", "python"), "c",
            "how factories / Tensor.new_* / Tensor.to reach the device translation: the C "
            "prefilter (calls naming no CUDA device go straight to torch) or the Python "
            "wrappers only", Choice(("c", "python"), "c")),
    Setting("TORCHADA_DISABLE_OP_OVERRIDE_<op>", ("1", "0"), "0",
            "leave one compiled operator override to torch_musa (op: %s; another op name "
            "gets one warning)" % ", ".join(OPS), Flag(False)),
    Setting("TORCHADA_DEBUG_CPP_OPS", ("1", "0"), "0",
            "log every call of a compiled operator override to stderr",
            Flag(False)),
    Setting("TORCHADA_TRACE", ("1", "0"), "0 (torchada run: 1)",
            "count every translated CUDA call and keep its first call site (docs/migrate.md)",
            Flag(False)),
    Setting("TORCHADA_REPORT", ("<directory>",), "unset",
            "write the translation report there at exit, one JSON file per process "
            "(rank-aware under torchrun); implies TORCHADA_TRACE=1",
            Text("a directory")),
    Setting("TORCHADA_CPU_FALLBACK", ("1", "0"), "1",
            "operators torch_musa has no kernel for run on CPU copies, results back on the "
            "device (one warning per op; docs/cpu_fallback.md); 0: they raise as torch_musa "
            "does", Flag(True)),
    Setting("TORCHADA_CPU_FALLBACK_OPS", ("<aten::op[.overload],...>",), "none",
            "operators to run on the CPU even where torch_musa has a kernel (a broken "
            "kernel's workaround; an unknown name gets one warning)",
            Text("operator names like aten::cumprod or aten::std.correction, separated by "
                 "commas", "")),
    Setting("TORCHADA_VERIFY", ("1", "first", "all", "0"), "0",
            "rerun every op on a musa tensor on CPU copies and compare (docs/verify.md): "
            "1 / first stops at the first mismatch, all tabulates them",
            Choice(("1", "first", "all", "0", "on", "true", "yes", "off", "false", "no"),
                   None, dict(dict.fromkeys(("1", "first", "on", "true", "yes"), "first"),
                              **dict.fromkeys(("0", "off", "false", "no"), None)))),
    Setting("TORCHADA_VERIFY_FIRST", ("0..2147483647",), "every call",
            "verify checks the first N calls of each op (then only every Kth: "
            "TORCHADA_VERIFY_EVERY)", IntRange(0, (1 << 31) - 1, (1 << 31) - 1)),
    Setting("TORCHADA_VERIFY_EVERY", ("0..2147483647",), "0",
            "verify also checks every Kth call of each op past the first N (0: none)",
            IntRange(0, (1 << 31) - 1, 0)),
    Setting("TORCHADA_PORT_WORKERS", ("1..256",), "the CPUs this process may use",
            "processes `torchada port` ports files in (sources of 4 MiB or more; 1: none)",
            IntRange(1, 256)),
    Setting("TORCHADA_EXCLUDE_DIRS", ("<paths or names>",), "none",
            "directories the porter and the build integration leave alone "
            "(separated by os.pathsep or commas; a malformed entry is an error naming it)",
            Text("directory paths or names separated by os.pathsep or commas", "")),
    Setting("TORCHADA_SIM_DEVICE_COUNT", ("0..16",), "2", "simulated physical devices",
            IntRange(0, 16, 2)),
    Setting("TORCHADA_SIM_DEVICE_NAME", ("<product name>",), "MTT S5000",
            "simulated device name", Pattern(r"\s*\S.*", "a non-empty product name",
                                             "MTT S5000", lambda m: m.group(0).strip())),
    Setting("TORCHADA_SIM_TOTAL_MEMORY", ("<bytes>", "<n>MiB", "<n>GiB"), "48GiB",
            "simulated per-device capacity and allocation limit",
            Lazy("torchada.testing._simconfig:parse_positive_size",
                 "bytes, or a size like 48GiB / 512MiB", 48 << 30)),
    Setting("TORCHADA_SIM_CAPABILITY", ("<major>.<minor>",), "3.1",
            "simulated compute capability",
            Pattern(r"\s*(\d+)\.(\d+)\s*", "MAJOR.MINOR, e.g. 2.2 or 3.1", (3, 1),
                    lambda m: (int(m.group(1)), int(m.group(2))))),
    Setting("TORCHADA_SIM_TORCH_MUSA_VERSION", ("<PEP 440 version>",),
            "the newest profile this torch meets (2.7.1, 2.9.1.post1, 2.11.0.post2)",
            "simulated torch_musa release (selects its profile: API, import patches, defects)",
            Lazy("torchada.testing._simconfig:parse_release",
                 "a PEP 440 version from 2.7.1 on (profiles: 2.7.1, 2.9.1.post1, 2.11.0.post2)")),
    Setting("TORCHADA_SIM_MUSA_VERSION", ("<digits>",), "4030", "simulated torch.version.musa",
            Pattern(r"\s*\d+\s*", "the MUSA_VERSION integer as digits, e.g. 4030", "4030",
                    lambda m: m.group(0).strip())),
    Setting("TORCHADA_SIM_DEFECTS", ("auto", "none", "all", "<names>", "+name", "-name"),
            "auto", "which modelled torch_musa defects the simulator reproduces",
            Text("auto, none, all, or a comma list of [+|-]NAME (the simulator checks the "
                 "names against its defects)")),
    Setting("TORCHADA_SIM_GRAPH_EXEC_CAP", ("<positive integer>",), "2048",
            "live graph executables per process (graph_exec_cap defect)",
            IntRange(1, 1 << 31, 2048)),
    Setting("TORCHADA_SIM_GRAPH_INSTANTIATE_US", ("0..1000000",), "300",
            "simulated cost of one graph instantiate (issue 10: about 0.3 ms on an S5000)",
            IntRange(0, 1000000, 300)),
    Setting("TORCHADA_SIM_CACHE_DIR", ("<directory>",), "platformdirs user cache",
            "root of the simulator backend's build cache",
            Text("a directory")),
)

# Names torchada sets or spells for itself: not switches to set by hand, listed so that every
# TORCHADA_ name in the source is explained (docs/environment.md, second table).
INTERNAL = (
    Setting("TORCHADA_MIRRORED_ENV", ("<JSON object>",), "unset",
            "set by the env_mirror area for child processes: the MUSA variables it mirrored "
            "from their CUDA names, so a child tells the parent's copies from the user's own",
            JSONObject()),
    Setting("TORCHADA_BUILD_FOR_SYSTEM", ("1",), "unset",
            "set by `torchada build --system` for itself and its children: build into the "
            "system cache (TORCHADA_SYSTEM_CACHE_DIR)", Flag(False)),
    Setting("_TORCHADA_RUN_SUMMARY", ("1", "0"), "unset",
            "set by `torchada run` for its child: print the run summary at exit",
            Flag(False)),
    Setting("TORCHADA_STABLE_ACCESSORS", ("1",), "defined",
            "a C/C++ macro, not a variable: defined by the shipped compatibility header "
            "torchada_stable_box.h so a source can test for its accessors (docs/porting.md)",
            Text("a macro")),
    Setting("TORCHADA_CUDA_TWIN", ("1",), "undefined",
            "a C/C++ macro, not a variable: defined when the native sources are built as their "
            "CUDA twin (docs/native_twin.md)", Text("a macro")),
    Setting("TORCHADA_OPS_DEVICE_KEY", ("<dispatch key>",), "PrivateUse1",
            "a C/C++ macro, not a variable: the dispatch key the compiled operator overrides "
            "register at (CUDA's in the twin build)", Text("a macro")),
    Setting("TORCHADA_OPS_AUTOGRAD_KEY", ("<dispatch key>",), "AutogradPrivateUse1",
            "a C/C++ macro, not a variable: the autograd dispatch key of the compiled operator "
            "overrides (CUDA's in the twin build)", Text("a macro")),
)

ROWS = {s.name: s for s in SETTINGS + INTERNAL}


def _table(rows):
    lines = ["| Setting | Accepted values | Default | Meaning |", "|---|---|---|---|"]
    for s in rows:
        lines.append("| `%s` | %s | %s | %s |" % (
            s.name, ", ".join("`%s`" % v for v in s.values), s.default, s.meaning))
    return lines


def markdown():
    lines = ["# Environment and -X options", "",
             "Generated from `torchada/_core/settings_table.py` "
             "(`python -m torchada._core.settings_table --markdown`). A malformed value gets "
             "one warning naming the setting and the accepted values; the default is used "
             "(`TORCHADA_EXCLUDE_DIRS` is the exception: the command stops with an error "
             "naming the entry). Flags also take true/false, yes/no, on/off.", ""]
    lines += _table(SETTINGS)
    lines += ["", "## Names torchada sets for itself", "",
              "Not switches: listed so that every `TORCHADA_` name in the source is explained.",
              ""]
    lines += _table(INTERNAL)
    lines += ["", "## CUDA variables on MUSA", ""] + _cuda_variables()
    return "\n".join(lines) + "\n"


def _cuda_variables():
    """The env_mirror area's tables: CUDA names mirrored to a MUSA twin, and CUDA names that
    change nothing on MUSA (one warning each at activation: TORCHADA_CUDA_ENV_WARNINGS)."""
    from torchada.areas import _env_without_effect as inert
    from torchada.areas._cuda_env_names import PAIRS

    lines = ["Set at activation on MUSA by the `env_mirror` area (docs/devices.md). A CUDA "
             "name with a MUSA twin that torch_musa reads is mirrored to it; a CUDA name that "
             "nothing on MUSA reads gets one warning naming the twin, or saying none exists. "
             "`NCCL_*` library variables without a row (`NCCL_SOCKET_IFNAME`, `NCCL_IB_HCA`, "
             "...): unknown, the MCCL library's source is not public; they are neither "
             "mirrored nor warned about.", "",
             "| CUDA name | On MUSA | MUSA twin |", "|---|---|---|"]
    for cuda, musa in PAIRS:
        lines.append("| `%s` | mirrored | `%s` |" % (cuda, musa))
    for row in inert.NAMED:
        lines.append("| `%s` | warning: %s | %s |" % (
            row.name, row.why, "`%s` (not set by torchada)" % row.twin if row.twin
            else "none exists"))
    lines.append("| `%s*` (any other) | warning: %s | none exists |" % (
        inert.TORCH_NCCL_PREFIX, inert.TORCH_NCCL_WHY))
    return lines


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown())
    else:
        sys.exit("usage: python -m torchada._core.settings_table --markdown")
