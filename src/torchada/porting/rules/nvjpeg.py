"""nvJPEG -> mtJPEG: every identifier that starts with ``nvjpeg`` / ``NVJPEG`` takes the
``mtjpeg`` / ``MTJPEG`` prefix; the header nvjpeg.h -> mtjpeg.h (only that exact header:
project headers such as decode_jpegs_nvjpeg.h or nvjpeg_utils.h keep their names);
``libraries=["nvjpeg"]`` -> mtjpeg; NVJPEG_FOUND -> MTJPEG_FOUND (a prefix match).

NOT EVIDENCED: torch_musa 2.7.1 neither ships nor maps an mtJPEG library; the names are
those of Moore Threads' MUSA toolkit image codec as documented by the issue.
"""
DOMAIN = "nvjpeg"

IDENTIFIERS = {}
# Prefix rules: a whole identifier that starts with the key gets the new prefix.
PREFIXES = {"nvjpeg": "mtjpeg", "NVJPEG": "MTJPEG"}
INCLUDES = {"nvjpeg.h": "mtjpeg.h"}
LIBRARIES = {"nvjpeg": "mtjpeg"}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'nvjpeg.h',
    'nvjpeg',
    'NVJPEG',
))
