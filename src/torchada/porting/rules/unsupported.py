"""Constructs with no faithful MUSA equivalent: reported with file and line, never
rewritten or disabled. Each entry: (id, regex, why, what to do)."""

REPORTS = (
    ("inline-ptx", r"\b(?:asm|__asm__)\s*(?:volatile\b|__volatile__\b|\()",
     "inline PTX assembly does not assemble for MUSA",
     "replace it with a MUSA intrinsic or a portable C++ fallback under #ifdef __MUSA_ARCH__"),
    ("warp-mask", r"\b__(?:shfl(?:_up|_down|_xor)?|ballot|any|all|match_any|match_all|reduce_\w+?)_sync\s*\(",
     "*_sync warp intrinsics take a lane mask sized for 32-lane warps; MUSA warps are 128 "
     "lanes on mp_21/mp_22 (TensorModeKernel.mu)",
     "check the mask (0xffffffff covers only 32 lanes) and the width argument"),
    ("warp-size", r"(?:#\s*define\s+\w*WARP_?SIZE\w*\s+32\b|\b\w*[Ww]arp_?[Ss]ize\w*\s*=\s*32\b|\bconstexpr\s+\w+\s+\w*WARP\w*\s*=\s*32\b)",
     "hard-coded warp size 32", "use warpSize (or query musaDevAttrWarpSize) instead of 32"),
    ("activemask", r"\b__activemask\s*\(", "__activemask() returns a 32-bit mask", "review the lane arithmetic"),
    ("cooperative-groups", r"(?:\bcooperative_groups\b|\bthis_grid\s*\(|\bgrid_group\b|\bthis_cluster\s*\(|\bcluster_group\b)",
     "cooperative-groups grid/cluster features have no evidenced MUSA equivalent",
     "restructure as separate kernel launches, or verify support in your MUSA toolkit"),
    ("cooperative-launch", r"\bcu(?:da)?LaunchCooperativeKernel\w*\b",
     "cooperative launches have no evidenced MUSA equivalent",
     "launch normally and synchronise through separate kernels"),
    ("wmma", r"\b(?:nvcuda::wmma|wmma::)", "nvcuda::wmma tensor-core fragments are NVIDIA specific",
     "use MUSA's mma API or a portable fallback"),
    ("tma", r"\b(?:CUtensorMap|cuTensorMapEncode\w*|cp\.async\.bulk)\b",
     "Hopper TMA descriptors have no evidenced MUSA equivalent", "use a portable copy path"),
    ("cluster-launch", r"\b__cluster_dims__\b", "thread-block clusters have no evidenced MUSA equivalent",
     "remove the cluster dimension or guard the kernel"),
)
