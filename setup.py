"""Build steps pyproject.toml cannot state: the compiled device prefilter and the start-up hooks.

- ``torchada.areas._fastpath._prefilter`` is compiled here, when the wheel is built (it
  includes only ``Python.h``). It is optional: where it does not compile (an sdist on a
  machine without a C++ compiler, an unusual platform) the install still succeeds and the
  devices area serves every call on its Python route (``torchada status`` says so).
- ``torchada_autoload.pth`` and ``torchada_autoload.start`` belong at the root of
  site-packages, not inside the package: they are copied there for wheels and for editable
  installs alike (an editable install lays out its root in the install command's folder).
"""
import os

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT_FILES = (("torchada_autoload.pth", "torchada_autoload.pth"),
              (os.path.join("hooks", "torchada_autoload.start"), "torchada_autoload.start"))


class BuildPyWithHooks(build_py):
    def run(self):
        super().run()
        target = self.build_lib
        if getattr(self, "editable_mode", False):
            target = self.get_finalized_command("install").install_lib
        for source, name in ROOT_FILES:
            self.copy_file(source, os.path.join(target, name))


PREFILTER = Extension(
    "torchada.areas._fastpath._prefilter",
    sources=["src/torchada/areas/_fastpath/prefilter.cpp"],
    language="c++",
    optional=True,  # no compiler: a warning, and the Python route
)

setup(ext_modules=[PREFILTER], cmdclass={"build_py": BuildPyWithHooks})
