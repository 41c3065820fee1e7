"""The flat form of a nested statistics dict ("a.b.c" keys, sorted), as torch.cuda.memory
flattens memory_stats; torch_musa's memory_stats and host_memory_stats both return it."""
import collections
from typing import Any, Dict


def flatten(nested: Dict[str, Any]) -> Dict[str, Any]:
    result = []

    def add(prefix, obj):
        if isinstance(obj, dict):
            if prefix:
                prefix += "."
            for k, v in obj.items():
                add(prefix + k, v)
        else:
            result.append((prefix, obj))

    add("", nested)
    result.sort()
    return collections.OrderedDict(result)
