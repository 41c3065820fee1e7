from . import device_interface, variables, trace_rules, backend
from .device_interface import MusaInterface, get_registered_device_interfaces, register_interface_for_device
from .variables.torch import supported_ctx_manager_classes
from .backend import musagraphs
