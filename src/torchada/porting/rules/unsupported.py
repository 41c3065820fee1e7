"""Constructs with no faithful MUSA equivalent: reported with file and line, never
rewritten or disabled. Each entry: (id, regex, why, what to do).

Every regex starts with a literal and checks the left word boundary after the word
(``_b("asm")`` is ``asm(?<![A-Za-z0-9_]asm)``, the same as ``\basm``): ``re`` then finds
candidates with its fast literal-prefix search (or a first-character set for alternatives)
instead of trying every position, which is what lets the scan run at tens of MB/s
(issue 14). ``GATES`` names, per report, substrings one of which every match contains
(inside one token, so comments cannot split them): a file with none is not scanned for it."""
import re


def _b(*words):
    """``\b(?:w1|w2|...)``, each alternative a literal followed by its boundary check."""
    alts = ["%s(?<![A-Za-z0-9_]%s)" % (re.escape(w), re.escape(w)) for w in words]
    return alts[0] if len(alts) == 1 else "(?:%s)" % "|".join(alts)


REPORTS = (
    ("inline-ptx", _b("asm", "__asm__") + r"\s*(?:volatile\b|__volatile__\b|\()",
     "inline PTX assembly does not assemble for MUSA",
     "replace it with a MUSA intrinsic or a portable C++ fallback under #ifdef __MUSA_ARCH__"),
    ("warp-mask", _b("__") + r"(?:shfl(?:_up|_down|_xor)?|ballot|any|all|match_any|match_all|reduce_\w+?)_sync\s*\(",
     "*_sync warp intrinsics take a lane mask sized for 32-lane warps; MUSA warps are 128 "
     "lanes on mp_21/mp_22 (TensorModeKernel.mu)",
     "check the mask (0xffffffff covers only 32 lanes) and the width argument"),
    ("warp-size", r"(?:#\s*define\s+\w*WARP_?SIZE\w*\s+32\b|[Ww]arp_?[Ss]ize\w*\s*=\s*32\b|"
     + _b("constexpr") + r"\s+\w+\s+\w*WARP\w*\s*=\s*32\b)",
     "hard-coded warp size 32", "use warpSize (or query musaDevAttrWarpSize) instead of 32"),
    ("activemask", _b("__activemask") + r"\s*\(", "__activemask() returns a 32-bit mask", "review the lane arithmetic"),
    ("cooperative-groups", r"(?:%s\b|%s\s*\(|%s\b|%s\s*\(|%s\b)" % (
         _b("cooperative_groups"), _b("this_grid"), _b("grid_group"), _b("this_cluster"),
         _b("cluster_group")),
     "cooperative-groups grid/cluster features have no evidenced MUSA equivalent",
     "restructure as separate kernel launches, or verify support in your MUSA toolkit"),
    ("cooperative-launch", r"(?:%s|%s)LaunchCooperativeKernel\w*\b" % (_b("cu"), _b("cuda")),
     "cooperative launches have no evidenced MUSA equivalent",
     "launch normally and synchronise through separate kernels"),
    ("wmma", _b("nvcuda::wmma", "wmma::"), "nvcuda::wmma tensor-core fragments are NVIDIA specific",
     "use MUSA's mma API or a portable fallback"),
    ("tma", r"(?:%s|%s\w*|%s)\b" % (_b("CUtensorMap"), _b("cuTensorMapEncode"), _b("cp.async.bulk")),
     "Hopper TMA descriptors have no evidenced MUSA equivalent", "use a portable copy path"),
    ("cluster-launch", _b("__cluster_dims__") + r"\b", "thread-block clusters have no evidenced MUSA equivalent",
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
