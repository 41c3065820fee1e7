"""The errors an area raises for CUDA APIs MUSA cannot serve: always NotImplementedError,
naming the CUDA API and the torch_musa release, so a user knows what and why. Each one
reached is counted by the translation report (``trace``) when it is on."""
from torchada._core import trace as _trace


def unsupported(api, reason, like=None):
    """A stand-in for ``api`` raising NotImplementedError when used; a class when ``like``
    is one (so ``isinstance`` checks and subclassing still parse)."""
    message = "%s is not supported on MUSA (%s)" % (api, reason)
    module, _, short = api.rpartition(".")
    if isinstance(like, type):
        def __new__(cls, *args, **kwargs):
            _trace.unsupported_hit(api, message)
            raise NotImplementedError(message)

        return type(short, (), {"__new__": __new__, "__doc__": message, "__module__": module,
                                "__torchada_unsupported__": message})

    def stub(*args, **kwargs):
        _trace.unsupported_hit(api, message)
        raise NotImplementedError(message)

    stub.__name__ = stub.__qualname__ = short
    stub.__module__ = module
    stub.__doc__ = message
    stub.__torchada_unsupported__ = message
    return stub


def argument_error(api, argument, value, musa_label):
    """The error for a CUDA keyword the MUSA counterpart does not take."""
    _trace.unsupported_hit("%s(%s=)" % (api, argument), "%s has no %s argument"
                           % (musa_label, argument))
    return NotImplementedError("%s(%s=%r) is not supported on MUSA (%s has no %s argument)"
                               % (api, argument, value, musa_label, argument))
