"""2.9.1.post1's int4-packed, grouped, mixed-dtype GEMMs and the RMSNorm backward
(placeholder: none modelled yet)."""

KERNELS = {}
