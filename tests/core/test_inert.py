"""Off MUSA, torchada changes nothing: the same objects as without it, the same sys.meta_path."""

import json

import pytest

from tests._fresh import clean_env, run_python

SNAPSHOT = """
import json, sys
import torch, torch.distributed, torch.utils.cpp_extension, torch.utils.data
import torch.library, torch._library.custom_ops, torch.profiler, torch.autograd.profiler
import torch.distributed.device_mesh
import torch.nn.attention.flex_attention, torch.jit.frontend, torch.cuda._utils
import ctypes, ctypes.util
import torch._inductor.codecache
import torchada
optional = {}
try:  # torch >= 2.9
    import torch._inductor.template_heuristics.registry as _heuristics
    optional['heuristics_musa_keys'] = str(sorted(k for k in _heuristics._TEMPLATE_HEURISTIC_REGISTRY if 'musa' in k))
except ImportError:
    pass
try:  # issue 13: the Lightning areas (lightning is in the test extra)
    import lightning.pytorch.accelerators.cuda, lightning.fabric.accelerators.cuda
    lightning_names = {'lightning.pytorch.accelerators.cuda.CUDAAccelerator': ['setup_device'],
                       'lightning.fabric.accelerators.cuda.CUDAAccelerator': ['setup_device']}
except ImportError:
    lightning_names = {}
# issue 11: operator fixes register PrivateUse1 kernels only on MUSA
optional['privateuse1_kernels'] = str([torch._C._dispatch_has_kernel_for_dispatch_key(op, 'PrivateUse1')
                                       for op in ('aten::log_', 'aten::mm')])
names = {
  'torch': ['device', 'zeros', 'ones', 'empty', 'full', 'rand', 'randn', 'randint', 'randperm',
            'arange', 'linspace', 'logspace', 'eye', 'tensor', 'as_tensor', 'asarray',
            'empty_strided', 'zeros_like', 'ones_like', 'empty_like', 'full_like', 'rand_like',
            'randn_like', 'randint_like', 'Generator', 'load', 'autocast', 'get_autocast_dtype'],
  'torch.Tensor': ['cuda', 'to', 'pin_memory', 'new_zeros', 'new_empty', 'is_cuda'],
  'torch.nn.Module': ['cuda', 'to'],
  'torch.cuda': sorted(n for n in dir(torch.cuda) if not n.startswith('_'))
                + ['_get_device_index', '_device_count_nvml', '_is_compiled'],
  'torch.distributed': ['init_process_group', 'is_nccl_available', 'Backend', 'get_backend',
                        'new_group', 'new_subgroups', 'ProcessGroupNCCL'],
  'torch.distributed.device_mesh': ['init_device_mesh', 'DeviceMesh'],
  'torch.utils.cpp_extension': ['CUDAExtension', 'BuildExtension', 'CUDA_HOME', 'load',
                                'include_paths', 'library_paths'],
  'torch.utils.data': ['DataLoader'],
  'torch.backends.cuda': ['is_built'],
  # issue 08: every object the custom_ops, cuda_private, profiler and flex_attention areas
  # and the devices area's TorchScript hook patch on MUSA
  'torch.library.Library': ['impl', 'fallback', '_impl_with_aoti_compile'],
  'torch.library': ['register_autocast', 'custom_op'],
  'torch._library.custom_ops.CustomOpDef': ['register_kernel', 'register_autocast'],
  'torch.profiler.profiler._KinetoProfile': ['__init__'],
  'torch.profiler': ['supported_activities'],
  'torch.autograd.profiler.profile': ['__init__'],
  'torch.nn.attention.flex_attention': ['_validate_device'],
  'torch.jit.frontend': ['parse_def'],
  'torch.cuda._utils': ['_get_device_index'],
  'ctypes.CDLL': ['__init__', '__getitem__'],
  'ctypes.util': ['find_library'],
  'torch._C': ['_cuda_getCurrentRawStream', '_cuda_getDeviceCount',
               '_cuda_CUDAAllocator_AllocatorState', '_cuda_releasePool'],
  # issues 10, 11: graphs rotation is MUSAGraph-only; Inductor's system key
  'torch._inductor.codecache.CacheBase': ['get_system'],
  **lightning_names,
}
import importlib.util, os
# torchada's own package folder (not any path that merely contains the word: a checkout
# named "torchada" holds torch's site-packages too when its venv lives inside it)
OURS = os.path.dirname(importlib.util.find_spec('torchada').origin) + os.sep


def describe(obj):
    # a wrapper keeps its original's name and module: where its code lives tells them apart
    code = getattr(obj, '__code__', None)
    defined = 'torchada' if code is not None and code.co_filename.startswith(OURS) else 'torch'
    return '%s|%s|%s|%s|%s' % (type(obj).__name__, getattr(obj, '__module__', None),
                               getattr(obj, '__qualname__', None), defined, id(obj))
snap = {}
for owner_name, attrs in names.items():
    owner = eval(owner_name)
    for a in attrs:
        obj = owner.__dict__.get(a, getattr(owner, a, None)) if isinstance(owner, type) else getattr(owner, a, None)
        snap[owner_name + '.' + a] = describe(obj)
        mod = getattr(obj, '__module__', '') or ''
        assert not mod.startswith('torchada'), (owner_name, a, mod)
        assert '|torchada|' not in snap[owner_name + '.' + a], (owner_name, a)
print(json.dumps({'meta_path': [type(f).__name__ for f in sys.meta_path],
                  'platform': torchada.detect_platform().value,
                  'applied': torchada.status().by_state('applied'),
                  'optional': optional,
                  'snap': {k: v.rsplit('|', 1)[0] for k, v in snap.items()}}))
"""


@pytest.fixture(scope="module")
def baseline():
    return json.loads(run_python(SNAPSHOT, args=("-X", "torchada=off")).stdout)


@pytest.mark.parametrize("env", [{"TORCHADA_PLATFORM": "cuda"}, {"TORCHADA_PLATFORM": "cpu"}, {}],
                         ids=["forced-cuda", "forced-cpu", "plain"])
def test_same_objects_and_meta_path_as_without_torchada(baseline, env):
    got = json.loads(run_python(SNAPSHOT, env=clean_env(**env)).stdout)
    assert got["meta_path"] == baseline["meta_path"]
    assert "TorchadaFinder" not in got["meta_path"]
    assert got["applied"] == []
    assert got["snap"] == baseline["snap"]
    assert got["optional"] == baseline["optional"]
    assert len(got["snap"]) > 80


def test_identity_within_one_process_with_explicit_import():
    # The strongest form: capture objects before torchada is imported, compare after.
    proc = run_python("""
        import sys, torch
        import torch.utils.cpp_extension as ce
        before = {n: getattr(torch.cuda, n) for n in dir(torch.cuda) if not n.startswith('_')}
        extra = (torch.device, torch.zeros, torch.Tensor.cuda, torch.Tensor.to, torch.nn.Module.to,
                 ce.CUDAExtension, ce.BuildExtension, torch.load)
        meta = list(sys.meta_path)
        import torchada
        after = {n: getattr(torch.cuda, n) for n in before}
        changed = [n for n in before if before[n] is not after[n]]
        extra_after = (torch.device, torch.zeros, torch.Tensor.cuda, torch.Tensor.to,
                       torch.nn.Module.to, ce.CUDAExtension, ce.BuildExtension, torch.load)
        assert changed == [], changed
        assert all(a is b for a, b in zip(extra, extra_after))
        assert sys.meta_path == meta
        print('ok')
    """, env=clean_env(TORCHADA_PLATFORM="cuda"))
    assert proc.stdout.strip() == "ok"
