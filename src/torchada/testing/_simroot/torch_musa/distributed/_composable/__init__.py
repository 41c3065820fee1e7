"""torch_musa.distributed._composable (FSDP2 patches in ``fsdp``)."""
