"""2.9.1.post1's semi-structured (2:4) sparsity and cuSPARSELt kernels (placeholder: none
modelled yet)."""

KERNELS = {}
