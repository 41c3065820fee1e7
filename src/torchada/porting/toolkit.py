"""Where the MUSA toolkit lives (the porter's build integration reads it from here). The
definitions moved to ``torchada._core.musa_toolkit`` so the areas' native builder does not
import the porter."""
from torchada._core.musa_toolkit import (  # noqa: F401  (re-exported)
    find_mcc, musa_home, musa_include_paths, musa_library_paths, torch_musa_dir)

__all__ = ["musa_home", "find_mcc", "torch_musa_dir", "musa_include_paths", "musa_library_paths"]
