"""The pieces of the devices area (torchada/areas/devices.py), one mechanism a module:

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
