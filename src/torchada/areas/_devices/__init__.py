"""The pieces of the devices area (torchada/areas/devices.py), one mechanism a module:

``names``        the device-name rule: cuda[:N] -> musa[:N], torch_musa messages in CUDA words
``mapping``      the device map: CUDA spellings -> musa device objects, built once each
``type_slots``   torch.device / torch.Generator constructors through their C type's slot
``route``        the C prefilter in front of the Python wrappers, or the wrappers alone
``wrappers``     the Python wrappers for device arguments (keyword, method, .cuda())
``factories``    torch.zeros & co., Tensor.new_*, and the default-device mode's set
``methods``      Tensor.to / .cuda / .pin_memory / .is_cuda, Module.to, UntypedStorage.cuda
``serialization`` torch.load of storages tagged cuda:N
``script``       TorchScript: cuda literals compile as musa; the wrappers map to aten ops

Each ``install`` writes through the area's context only.
"""
