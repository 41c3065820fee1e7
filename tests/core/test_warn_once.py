"""The one "say it once" helper (torchada/_core/warn_once.py): once per key per process,
repeats at debug level, through logging or (with a category) through warnings."""
import logging
import threading
import warnings

import pytest

from torchada._core import native_cache, warn_once as once
from torchada._core.warn_once import warn_once


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(once, "_SEEN", set())


def test_once_per_key_repeats_at_debug(caplog):
    with caplog.at_level(logging.DEBUG, logger="torchada"):
        assert warn_once("a", "torchada: first %s", 1) is True
        assert warn_once("a", "torchada: again %s", 2) is False
        assert warn_once("b", "torchada: other") is True
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "torchada: first 1"), ("DEBUG", "torchada: again 2"),
        ("WARNING", "torchada: other")]


def test_a_message_without_arguments_is_not_formatted(caplog):
    with caplog.at_level(logging.WARNING, logger="torchada"):
        warn_once("pct", "torchada: 100% of /tmp/%s")
    assert [r.getMessage() for r in caplog.records] == ["torchada: 100% of /tmp/%s"]


def test_the_native_cache_warns_once_whatever_the_cause(caplog):
    # every cache refusal (system cache, lock, simulator builds) shares native_cache.WARN_KEY
    with caplog.at_level(logging.DEBUG, logger="torchada"):
        assert warn_once(native_cache.WARN_KEY, "torchada: first") is True
        assert warn_once(native_cache.WARN_KEY, "torchada: second") is False
    assert [(r.levelname, r.message) for r in caplog.records] == [
        ("WARNING", "torchada: first"), ("DEBUG", "torchada: second")]


def _caller():
    return warn_once("w", "torchada: %s is gone", "x", category=RuntimeWarning, stacklevel=2)


def test_a_category_goes_through_warnings_pointing_at_the_callers_caller(caplog):
    with pytest.warns(RuntimeWarning, match="torchada: x is gone") as seen:
        line = _line() + 1
        assert _caller() is True
    assert seen[0].filename == __file__ and seen[0].lineno == line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level(logging.DEBUG, logger="torchada"):
            assert _caller() is False  # no second warning; debug only
    assert [r.levelname for r in caplog.records] == ["DEBUG"]


def _line():
    import sys

    return sys._getframe(1).f_lineno


def test_many_threads_one_warning(caplog):
    results = []
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        results.append(warn_once("race", "torchada: raced"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    with caplog.at_level(logging.WARNING, logger="torchada"):
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(results) == [False] * 7 + [True]
    assert [r.getMessage() for r in caplog.records] == ["torchada: raced"]
