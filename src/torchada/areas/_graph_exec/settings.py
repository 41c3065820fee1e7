"""The rotation's switches: TORCHADA_GRAPH_ROTATION, _EXEC_CAP, _AUTOPROBE, _EXEC_MARGIN."""
from torchada._core.settings import env_flag, env_int

ROTATION_VAR = "TORCHADA_GRAPH_ROTATION"
CAP_VAR = "TORCHADA_GRAPH_EXEC_CAP"
AUTOPROBE_VAR = "TORCHADA_GRAPH_AUTOPROBE"
MARGIN_VAR = "TORCHADA_GRAPH_EXEC_MARGIN"

DEFAULT_CAP = 1900          # under the driver's ~2048 with room for graphs we do not see
DEFAULT_MARGIN = 128
FLOOR = 64                  # a probed cap never leaves fewer live executables than this
MAX_CAP = 1 << 20


def rotation_enabled():
    return env_flag(ROTATION_VAR, True)


def autoprobe_enabled():
    return env_flag(AUTOPROBE_VAR, False)


def configured_cap():
    return env_int(CAP_VAR, DEFAULT_CAP, 1, MAX_CAP)


def margin():
    return env_int(MARGIN_VAR, DEFAULT_MARGIN, 0, MAX_CAP)


def cap_from_probe(measured):
    """The measured driver limit minus the margin, never below FLOOR."""
    return max(FLOOR, measured - margin())
