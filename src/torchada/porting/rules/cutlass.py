"""CUTLASS -> MUTLASS (Moore Threads' port of CUTLASS: namespace ``mutlass``, macros
``MUTLASS_*``, headers under ``mutlass/``; CuTe keeps its ``cute`` namespace).

NOT EVIDENCED in torch_musa 2.7.1 (which neither ships nor includes MUTLASS); the names
come from the public MooreThreads/mutlass project layout.
"""
DOMAIN = "cutlass"

IDENTIFIERS = {"cutlass": "mutlass"}
PREFIXES = {"CUTLASS_": "MUTLASS_"}
INCLUDES = {"cutlass/cutlass.h": "mutlass/mutlass.h"}
INCLUDE_PREFIXES = {"cutlass/": "mutlass/"}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'cutlass',
    'cutlass/cutlass.h',
    'CUTLASS_',
    'cutlass/',
))
