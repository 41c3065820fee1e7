"""Which simulated torch_musa release a test can run on the installed torch.

A release needs its own torch at least (torch_musa/__init__.py raises below it; the
simulator does the same: torchada.testing._simconfig.torch_requirement), so a test about a
fix gated to a release range takes the newest label of that range this torch can import,
and is skipped, saying so, where there is none (e.g. a fix for 2.9 .. 2.11.0.post1 on
torch 2.7.1: no such torch_musa runs there, on a card either).
"""
import pytest
import torch
from packaging.specifiers import SpecifierSet
from packaging.version import Version

# Labels the simulator runs, newest first: one per torch series it models.
CANDIDATES = ("2.13.0", "2.11.0.post1", "2.9.1", "2.7.1")


def runnable(spec):
    """The newest candidate release inside ``spec`` (e.g. "<2.11.0.post2") that this torch
    can import, or None."""
    from torchada.testing._simconfig import torch_requirement

    here = Version(Version(torch.__version__).base_version)
    for label in CANDIDATES:
        if Version(label) in SpecifierSet(spec, prereleases=True) and \
                here >= Version(torch_requirement(label)["minimum"]):
            return label
    return None


def runnable_or_skip(spec, module=True):
    """``runnable(spec)``, or a skip (of the module, or of the test calling it with
    ``module=False``) naming the range and this torch."""
    label = runnable(spec)
    if label is None:
        pytest.skip("no torch_musa release in %s runs on torch %s (each needs its own torch "
                    "at least)" % (spec, torch.__version__), allow_module_level=module)
    return label


def importable_or_skip(label):
    """Skip the calling test where ``label`` cannot be imported on this torch (it needs its
    own torch at least); else ``label``."""
    from torchada.testing._simconfig import torch_requirement

    minimum = torch_requirement(label)["minimum"]
    if Version(Version(torch.__version__).base_version) < Version(minimum):
        pytest.skip("torch_musa %s needs torch >= %s; this is torch %s"
                    % (label, minimum, torch.__version__))
    return label


# The releases whose mm / bmm(out_dtype=) the simulator models wrong (_simconfig.DEFECTS:
# 2.11.0.post1 only, the release the evidence names); it needs torch >= 2.11.
MM_OUT_DTYPE_WRONG = "==2.11.0.post1"


def has_defect(name, label):
    """Whether the simulator models defect ``name`` on release ``label``."""
    from torchada.testing._simconfig import DEFECTS

    return DEFECTS[name](Version(label))
