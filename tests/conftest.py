"""Fixtures shared by every test directory. Fresh interpreters: tests/_fresh.py."""
import pytest

from tests._fresh import run_python


@pytest.fixture
def py():
    return run_python
