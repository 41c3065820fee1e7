"""Constructs with no faithful MUSA equivalent: reported with file and line, never
rewritten or disabled. Each entry: (id, regex alternatives, why, what to do).

Every regex starts with a literal and checks the left word boundary after the word
(``_b("asm")`` is ``asm(?<![A-Za-z0-9_]asm)``, the same as ``\basm``): ``re`` then finds
candidates with its fast literal-prefix search instead of trying every position, which is what lets the scan run at tens of MB/s
(issue 14). ``GATES`` names, per report, substrings one of which every match contains
(inside one token, so comments cannot split them): a file with none is not scanned for it."""
import re


def _b(word):
    """``\bword``, written literal first: the word, then its left-boundary check."""
    return "%s(?<![A-Za-z0-9_]%s)" % (re.escape(word), re.escape(word))


# Each regex is a tuple of alternatives, searched one by one and merged (scan.py): a single
# alternation of them starts with a set of first characters ("c", "w", "#"...) that ``re``
# must test at every position, while each alternative alone starts with a literal.
_PTX_TAIL = r"\s*(?:volatile\b|__volatile__\b|\()"
REPORTS = (
    ("inline-ptx", (_b("asm") + _PTX_TAIL, _b("__asm__") + _PTX_TAIL),
     "inline PTX assembly does not assemble for MUSA",
     "replace it with a MUSA intrinsic or a portable C++ fallback under #ifdef __MUSA_ARCH__"),
    ("warp-mask", (_b("__") + r"(?:shfl(?:_up|_down|_xor)?|ballot|any|all|match_any|match_all|reduce_\w+?)_sync\s*\(",),
     "*_sync warp intrinsics take a lane mask sized for 32-lane warps; MUSA warps are 128 "
     "lanes on mp_21/mp_22 (TensorModeKernel.mu)",
     "check the mask (0xffffffff covers only 32 lanes) and the width argument"),
    ("warp-size", (r"#\s*define\s+\w*WARP_?SIZE\w*\s+32\b", r"Warp_?[Ss]ize\w*\s*=\s*32\b",
                   r"warp_?[Ss]ize\w*\s*=\s*32\b",
                   _b("constexpr") + r"\s+\w+\s+\w*WARP\w*\s*=\s*32\b"),
     "hard-coded warp size 32", "use warpSize (or query musaDevAttrWarpSize) instead of 32"),
    ("activemask", (_b("__activemask") + r"\s*\(",), "__activemask() returns a 32-bit mask",
     "review the lane arithmetic"),
    ("cooperative-groups", (_b("cooperative_groups") + r"\b", _b("this_grid") + r"\s*\(",
                            _b("grid_group") + r"\b", _b("this_cluster") + r"\s*\(",
                            _b("cluster_group") + r"\b"),
     "cooperative-groups grid/cluster features have no evidenced MUSA equivalent",
     "restructure as separate kernel launches, or verify support in your MUSA toolkit"),
    ("cooperative-launch", (_b("cu") + r"LaunchCooperativeKernel\w*\b",
                            _b("cuda") + r"LaunchCooperativeKernel\w*\b"),
     "cooperative launches have no evidenced MUSA equivalent",
     "launch normally and synchronise through separate kernels"),
    ("wmma", (_b("nvcuda::wmma"), _b("wmma::")), "nvcuda::wmma tensor-core fragments are NVIDIA specific",
     "use MUSA's mma API or a portable fallback"),
    ("tma", (_b("CUtensorMap") + r"\b", _b("cuTensorMapEncode") + r"\w*\b", _b("cp.async.bulk") + r"\b"),
     "Hopper TMA descriptors have no evidenced MUSA equivalent", "use a portable copy path"),
    ("cluster-launch", (_b("__cluster_dims__") + r"\b",), "thread-block clusters have no evidenced MUSA equivalent",
     "remove the cluster dimension or guard the kernel"),
)


GATES = {
    "inline-ptx": ("asm",),
    "warp-mask": ("_sync",),
    "warp-size": ("arp", "ARP"),
    "activemask": ("__activemask",),
    "cooperative-groups": ("cooperative_groups", "this_grid", "grid_group", "this_cluster",
                           "cluster_group"),
    "cooperative-launch": ("LaunchCooperativeKernel",),
    "wmma": ("wmma",),
    "tma": ("ensorMap", "cp.async.bulk"),
    "cluster-launch": ("__cluster_dims__",),
}
