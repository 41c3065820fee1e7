"""Differential execution's pieces: the tolerance rule (``compare``), the module path of the
running forward (``modpath``), what was found (``findings``) and the dispatch mode that
reruns each op on the CPU (``mode``). The area module ``torchada/areas/verify.py`` installs
them when TORCHADA_VERIFY asks."""
