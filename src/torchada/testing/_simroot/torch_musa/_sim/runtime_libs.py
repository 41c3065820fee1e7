"""Loads the simulator's libmusart.so / libmccl.so into the process (RTLD_GLOBAL, so a later
``ctypes.CDLL("libmusart.so")`` finds them by soname, as the real torch_musa's runtime
libraries are found once torch_musa is imported) and connects them to torch.musa.

The real torch_musa links libmusart (cuda_vs_musa.md: libcudart -> libmusart,
FindMUSAToolkits.cmake); what its exported functions answer is the MUSA runtime's, which the
simulator's torch.musa models. A missing C compiler costs only this: the libraries are not
there (ctypes users get the loader's own error), the simulator works without them.
"""
import ctypes
import warnings

_keep = []  # the libraries and callbacks must outlive every caller


def _status(fn):
    try:
        fn()
        return 0
    except Exception:
        return 1  # invalid value


def install():
    import torch

    from torchada._core import native_cache
    from torchada.testing._backend import runtime_libs

    try:
        paths = runtime_libs.build()
        libs = {}
        for name, path in paths.items():
            with native_cache.opened(path) as loadable:  # the checked bytes, by their soname
                libs[name] = ctypes.CDLL(loadable, mode=ctypes.RTLD_GLOBAL)
    except (RuntimeError, OSError) as exc:
        warnings.warn("torchada simulator: no libmusart.so / libmccl.so (%s)" % exc,
                      RuntimeWarning, stacklevel=2)
        return None
    musa = torch.musa
    int_out = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int))
    int_in = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)
    meminfo = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_size_t),
                               ctypes.POINTER(ctypes.c_size_t))
    void = ctypes.CFUNCTYPE(ctypes.c_int)

    def put(out, value):
        out[0] = value

    def mem_get_info(free, total):
        def read():
            f, t = musa.mem_get_info()
            free[0], total[0] = f, t
        return _status(read)

    callbacks = (
        int_out(lambda out: _status(lambda: put(out, musa.device_count()))),
        int_out(lambda out: _status(lambda: put(out, musa.current_device()))),
        int_in(lambda device: _status(lambda: musa.set_device(device))),
        meminfo(mem_get_info),
        void(lambda: _status(musa.synchronize)),
    )
    version = int(getattr(torch.version, "musa", None) or 0)
    libs["libmusart.so"].torchada_sim_runtime_install(*callbacks, version)
    _keep.extend([libs, callbacks])
    return paths
