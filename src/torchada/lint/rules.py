"""The lint rules: code, short name, why it matters on MUSA, the fix. Pure data."""
from collections import namedtuple

Rule = namedtuple("Rule", "code name why fix")


def fix_text(rule, negated):
    """The rule's fix; for a "not CUDA" test (``!= "cuda"``, ``not in``) the same call under
    ``not``, so the rewrite keeps the branch's meaning."""
    if negated and rule.fix.startswith("torchada.is_gpu_device("):
        return "not " + rule.fix + '; it replaces the whole "not CUDA" test'
    return rule.fix

RULES = {rule.code: rule for rule in (
    Rule("TA001", "device-type-cuda",
         'on MUSA a device made from "cuda" has type "musa", so this comparison takes the '
         "non-GPU branch",
         "torchada.is_gpu_device(<device>) (True for cuda and musa devices)"),
    Rule("TA002", "nccl-name",
         'the backend is mccl on MUSA: torchada makes dist.get_backend() compare equal to '
         '"nccl" (not flagged), but a name from anywhere else (ProcessGroup.name(), '
         '_get_backend_name(), a value passed around) says "mccl"',
         'compare dist.get_backend() (or dist.Backend.NCCL), or test the device with '
         "torchada.is_gpu_device"),
    Rule("TA003", "cuda-available-picks-device",
         "torch.cuda.is_available() is False on MUSA unless TORCHADA_FORCE_CUDA_AVAILABLE=1 "
         "(torchada run sets it): this program silently runs on the CPU",
         "run it with `torchada run`, or test `torch.cuda.is_available() or "
         "torchada.is_musa_platform()`"),
    Rule("TA004", "torch-version-cuda",
         "torch.version.cuda is None on torch_musa's torch: version checks take the no-CUDA "
         "branch",
         "check torch.version.musa as well, or torchada.is_gpu_device for device decisions"),
    Rule("TA005", "cuda-in-device-string",
         'str(device) is "musa:0" on MUSA, so "cuda" is not in it (nor at its start)',
         "torchada.is_gpu_device(<device>)"),
    Rule("TA006", "cuda-library-path",
         "a path into a CUDA installation: torchada maps CUDA library *names* loaded through "
         "ctypes to their MUSA twins, never paths to CUDA's files",
         'load the library by name (ctypes.CDLL("libcudart.so")) so torchada can map it'),
)}
