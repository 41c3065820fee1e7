"""``torchada lint PATH``: what no runtime patch can fix, or what silently changes on MUSA.

Reads Python sources with the ``ast`` module (nothing is imported or run): ``rules`` says
what each finding means and how to fix it, ``checks`` finds them in one syntax tree,
``walk`` lists the files, ``cli`` prints and sets the exit status.
"""
from torchada.lint.checks import Finding, check_source
from torchada.lint.rules import RULES

__all__ = ["Finding", "check_source", "RULES"]
