import sys

from torchada.cli import main

sys.exit(main())
