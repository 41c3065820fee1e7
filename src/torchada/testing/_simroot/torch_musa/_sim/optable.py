"""The simulated release's operator set: the table generated from torch_musa's sources
(``torchada.testing.optable``) handed to the C++ backend, whose fallback then runs an aten
overload only if the release registers it (``musa_sim.cpp``, ``set_op_table``); the
release's SparsePrivateUse1 / SparseCsrPrivateUse1 rows are registered one kernel each
(``register_sparse_rows``), with no fallback for those keys, as on a card; so are its
QuantizedPrivateUse1 rows that have no kernel of their own in ``musa_sim_quantized.cpp``
(``register_quantized_rows``).

The release is the simulated one (``TORCHADA_SIM_TORCH_MUSA_VERSION``); a release without
its own table is modelled by the newest older table (``optable.table_for``).
"""
import torch

from torchada.testing import optable

KEY = "PrivateUse1"
SPARSE_KEYS = ("SparsePrivateUse1", "SparseCsrPrivateUse1")
QUANTIZED_KEY = "QuantizedPrivateUse1"


def install(version):
    """Install the table modelling torch_musa `version`; returns the table's release."""
    release = optable.table_for(version)
    table = optable.load(release)
    sparse = [sorted(optable.registered(table, key)) for key in SPARSE_KEYS]
    torch.ops.musa_sim.set_op_table(sorted(optable.registered(table, KEY)), table["torch_ops"],
                                    *sparse)
    torch.ops.musa_sim.register_quantized_rows(sorted(optable.registered(table, QUANTIZED_KEY)))
    return release


def allows(name):
    """Whether an overload (``aten::add.Tensor``) reaches a kernel on the simulated device."""
    return bool(torch.ops.musa_sim.op_table_allows(name))
