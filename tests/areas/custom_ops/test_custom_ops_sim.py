"""The custom_ops area on the simulated torch_musa (fresh interpreters): CUDA-flavoured
dispatch keys land on their PrivateUse1 twins, nothing else changes."""
import json

import pytest

from tests._fresh import run_sim
from torchada.areas import custom_ops


def sim_json(code, **env):
    return json.loads(run_sim(code, **env).stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("cuda_key", sorted(custom_ops.KEYS))
def test_each_cuda_key_registers_on_its_privateuse1_twin(cuda_key):
    out = sim_json("""
        import json
        lib = torch.library.Library("keys_%(low)s", "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda *a: a[-1], %(key)r, with_keyset=True)
        has = torch._C._dispatch_has_kernel_for_dispatch_key
        print(json.dumps({"twin": has("keys_%(low)s::f", %(twin)r),
                          "cuda": has("keys_%(low)s::f", %(key)r)}))
    """ % {"key": cuda_key, "twin": custom_ops.KEYS[cuda_key], "low": cuda_key.lower()})
    assert out == {"twin": True, "cuda": False}


def test_other_keys_are_untouched_and_enum_keys_are_mapped():
    out = sim_json("""
        import json
        lib = torch.library.Library("other_keys", "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.define("g(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x, "CPU")
        lib.impl("g", lambda x: x * 3, torch._C.DispatchKey.CUDA)
        has = torch._C._dispatch_has_kernel_for_dispatch_key
        x = torch.ones(2, device="cuda")
        print(json.dumps({"cpu": has("other_keys::f", "CPU"), "pu1": has("other_keys::f", "PrivateUse1"),
                          "g": torch.ops.other_keys.g(x).tolist()}))
    """)
    assert out == {"cpu": True, "pu1": False, "g": [3.0, 3.0]}


def test_an_existing_privateuse1_kernel_is_kept_without_warning():
    proc = run_sim("""
        import warnings
        lib = torch.library.Library("both", "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, "PrivateUse1")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.impl("f", lambda x: x + 100, "CUDA")
        print(torch.ops.both.f(torch.zeros(1, device="cuda")).item())
    """)
    assert proc.stdout.strip().splitlines()[-1] == "1.0"
    assert "Overriding a previously registered kernel" not in proc.stderr


def test_disabled_area_leaves_cuda_registration_as_torch_does():
    proc = run_sim("""
        lib = torch.library.Library("off_area", "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x, "CUDA")
        has = torch._C._dispatch_has_kernel_for_dispatch_key
        print(has("off_area::f", "CUDA"), has("off_area::f", "PrivateUse1"))
    """, TORCHADA_DISABLE_AREAS="custom_ops")
    assert proc.stdout.strip().splitlines()[-1] == "True False"


def test_revert_restores_torch_library():
    out = sim_json("""
        import json, torch._library.custom_ops as co
        wrapped = [torch.library.Library.impl, co.CustomOpDef.register_kernel,
                   torch.library.register_autocast, torch.library.custom_op]
        torchada.revert()
        now = [torch.library.Library.impl, co.CustomOpDef.register_kernel,
               torch.library.register_autocast, torch.library.custom_op]
        print(json.dumps({"changed": [a is not b for a, b in zip(wrapped, now)],
                          "unwrapped": [not hasattr(f, "__wrapped__") for f in now]}))
    """)
    assert out == {"changed": [True] * 4, "unwrapped": [True] * 4}
