"""The area context (built by the registry: torchada/_core/context.py), re-exported for areas."""

from torchada._core.context import AreaContext, build, fix, musa_label  # noqa: F401


def context(journal, module_name):
    """A context for the area defined in ``module_name`` (pass ``__name__``). Transition
    helper for areas still written as ``apply(journal)``; new areas take ``apply(ctx)``."""
    return build(journal, module_name.rsplit(".", 1)[-1])
