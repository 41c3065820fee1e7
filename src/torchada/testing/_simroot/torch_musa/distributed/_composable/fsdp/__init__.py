"""torch_musa.distributed._composable.fsdp: empty in the real package (v2.7.1, 0bc05bf); the
patches live in ``patch`` and ``custom_overlap_patch``."""
