"""The rotation's switches: TORCHADA_GRAPH_ROTATION, _EXEC_CAP, _AUTOPROBE, _EXEC_MARGIN."""
from torchada._core.settings import read

ROTATION_VAR = "TORCHADA_GRAPH_ROTATION"
CAP_VAR = "TORCHADA_GRAPH_EXEC_CAP"
AUTOPROBE_VAR = "TORCHADA_GRAPH_AUTOPROBE"
MARGIN_VAR = "TORCHADA_GRAPH_EXEC_MARGIN"

DEFAULT_CAP = 1900          # under the driver's ~2048 with room for graphs we do not see
DEFAULT_MARGIN = 128
FLOOR = 64                  # a probed cap never leaves fewer live executables than this
MAX_CAP = 1 << 20


def rotation_enabled():
    return read(ROTATION_VAR)


def autoprobe_enabled():
    return read(AUTOPROBE_VAR)


def configured_cap():
    return read(CAP_VAR, default=DEFAULT_CAP)


def margin():
    return read(MARGIN_VAR, default=DEFAULT_MARGIN)


def cap_from_probe(measured):
    """The measured driver limit minus the margin, never below FLOOR."""
    return max(FLOOR, measured - margin())
