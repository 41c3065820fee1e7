"""cuRAND -> muRAND.

Evidence: general.json (curand*->murand*, curandStatePhilox4_32_10_t->
murand_state_philox4x32_10), include.json (curand.h, curand_kernel.h).
"""
from ._helpers import swap_prefix, words

DOMAIN = "curand"

IDENTIFIERS = swap_prefix(words("""
curandGenerator_t curandStatus_t curandCreateGenerator curandDestroyGenerator
curandSetPseudoRandomGeneratorSeed curandSetStream curandGenerateUniform
curandGenerateUniformDouble curandGenerateNormal curandGenerateNormalDouble curandGenerate
curand_init curand curand_uniform curand_uniform4 curand_uniform_double curand_uniform2_double
curand_normal curand_normal4 curand_normal2 curand_normal_double curand_normal2_double
curand_log_normal curand_poisson
"""), "curand", "murand")
IDENTIFIERS.update({
    "curandStatePhilox4_32_10_t": "murand_state_philox4x32_10",
    "curandStatePhilox4_32_10": "murand_state_philox4x32_10",
    "CURAND_STATUS_SUCCESS": "MURAND_STATUS_SUCCESS",
    "CURAND_RNG_PSEUDO_DEFAULT": "MURAND_RNG_PSEUDO_DEFAULT",
    "CURAND_RNG_PSEUDO_PHILOX4_32_10": "MURAND_RNG_PSEUDO_PHILOX4_32_10",
})
INCLUDES = {
    "curand.h": "murand.h",
    "curand_kernel.h": "murand_kernel.h",
    "curand_philox4x32_x.h": "murand_philox4x32_x.h",
}
LIBRARIES = {"curand": "murand"}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'curand_philox4x32_x.h',
))
