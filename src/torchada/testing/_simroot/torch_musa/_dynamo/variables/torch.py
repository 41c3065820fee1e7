import torch
from torch._dynamo.variables.torch import supported_ctx_manager_classes
