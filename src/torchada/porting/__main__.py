"""``python -m torchada.porting PATH ...`` (same as ``torchada port PATH ...``)."""
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
