"""Porting tests: each gets its own private user cache."""
import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Every porting test gets its own user cache (platformdirs honours XDG_CACHE_HOME)."""
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("TORCHADA_EXCLUDE_DIRS", raising=False)
    yield cache
