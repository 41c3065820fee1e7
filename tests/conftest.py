"""Fixtures shared by every test directory. Fresh interpreters: tests/_fresh.py."""
import pytest

from tests._fresh import run_python


def _plugin_registered_by_an_older_install():
    """An install made while torchada still had a pytest11 entry point registers the plugin
    itself; naming it again would register one module twice (a pytest usage error)."""
    from importlib import metadata

    return any(ep.group == "pytest11" and ep.value == "torchada.testing.pytest_plugin"
               for dist in metadata.distributions() for ep in dist.entry_points)


# The plugin is opt-in (docs/simulator.md); this suite opts in.
pytest_plugins = [] if _plugin_registered_by_an_older_install() else ["torchada.testing.pytest_plugin"]


@pytest.fixture
def py():
    return run_python
