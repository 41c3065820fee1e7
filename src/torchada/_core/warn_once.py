"""One warning per cause per process: every "say it once" in torchada goes through here.

The first ``warn_once`` with a given key warns; later calls with that key log their message
at debug level only, so a loop, a retry or many threads cannot flood the user's log while
debug logging still shows every occurrence. A key names the cause (``"setting:"`` and the
variable, ``"native cache"``), so two different causes each warn once.
"""

import logging
import threading
import warnings

logger = logging.getLogger("torchada")
_SEEN: set = set()
_LOCK = threading.Lock()


def warn_once(key, message, *args, category=None, stacklevel=1):
    """Warn ``message % args`` the first time ``key`` is seen in this process (True); later
    calls with ``key`` log it at debug level (False).

    The warning goes to the ``torchada`` logger; with ``category`` (a Warning class) it goes
    through ``warnings.warn`` instead, ``stacklevel`` counted from the caller as in
    ``warnings.warn`` (so ``-W`` filters and ``pytest.warns`` see it)."""
    with _LOCK:
        first = key not in _SEEN
        _SEEN.add(key)
    if not first:
        logger.debug(message, *args)
    elif category is None:
        logger.warning(message, *args)
    else:
        warnings.warn(message % args if args else message, category, stacklevel=stacklevel + 1)
    return first
