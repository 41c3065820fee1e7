"""Which ``sys.meta_path`` finders ``torchada doctor`` recognises, and whose they are.

A healthy environment has finders besides the interpreter's: the one virtualenv (and uv,
which writes the same ``_virtualenv`` module) installs to patch distutils, setuptools'
distutils shim and vendored-package importers, and the finders editable installs add. The
doctor names these as known and warns only about the others (an unknown finder before
torchada's may hand out torch modules torchada never sees).

Each row: (who, a regular expression the finder's ``<module>.<qualified class name>`` must
match whole). A finder installed as a class (editables does that) is named by the class
itself; one installed as an instance by its type (``doctor_probe._finders``).
"""
import re

KNOWN_FINDERS = (
    ("the interpreter", r"_frozen_importlib(_external)?\.\w+"),
    ("torchada", r"torchada(\.\w+)+"),
    ("torch_musa", r"torch_musa(\.\w+)+"),
    ("virtualenv / uv (the environment's distutils patch)", r"_virtualenv\._Finder"),
    ("setuptools (distutils shim)", r"_distutils_hack\.\w+"),
    ("setuptools (vendored packages)", r"(setuptools|pkg_resources)\.extern\.VendorImporter"),
    ("a setuptools editable install", r"__editable___\w+_finder\._EditableFinder"),
    # the editables library, and backends that ship a copy of its redirector (pdm's)
    ("an editable install (editables)", r"(editables\.redirector|_[\w.]+)\.([\w.]+<locals>\.)?"
                                        r"RedirectingFinder"),
    ("a scikit-build-core editable install", r"_[\w.]+_editable\.ScikitBuildRedirectingFinder"),
    ("a meson-python editable install", r"_[\w.]+_editable_loader\.MesonpyMetaFinder"),
    ("six", r"six\._SixMetaPathImporter"),
)
_COMPILED = tuple((who, re.compile(pattern)) for who, pattern in KNOWN_FINDERS)


def owner(name):
    """Who installs the finder named ``<module>.<qualified class name>``, or None."""
    for who, pattern in _COMPILED:
        if pattern.fullmatch(name):
            return who
    return None
