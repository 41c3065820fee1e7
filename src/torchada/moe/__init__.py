"""Fused-MoE Triton configurations for Moore Threads GPUs, and the tool that derives them.

``configs/triton_<version>/`` holds the tables vLLM and SGLang look up by file name
(``E=<experts>,N=<intermediate>,device_name=MTT_S5000[,dtype=..][,block_shape=..][_down].json``);
``ci/shapes*.json`` (one recipe per Triton release) record, per kernel shape and token
bucket, the pinned configuration the tables are materialized from (``torchada tune-moe --materialize``); ``ci/models.json`` says
which shapes each model needs. Nothing here imports torch or triton at import time.
"""
