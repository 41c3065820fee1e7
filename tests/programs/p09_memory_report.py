"""Memory reporting."""
import json

import torch

torch.cuda.empty_cache()
torch.cuda.reset_peak_memory_stats()
before = torch.cuda.memory_allocated()
x = torch.empty(1024, 1024, device="cuda")
after = torch.cuda.memory_allocated()
peak = torch.cuda.max_memory_allocated()
reserved = torch.cuda.memory_reserved()
free, total = torch.cuda.mem_get_info()
stats = torch.cuda.memory_stats()
del x
torch.cuda.empty_cache()
print(json.dumps({"n": 1024 * 1024,
                  "facts": {"grew": after - before >= 4 * 1024 * 1024, "peak": peak >= after,
                            "reserved": reserved >= after, "info": 0 <= free <= total,
                            "stats": "allocated_bytes.all.current" in stats,
                            "freed": torch.cuda.memory_allocated() <= before}}))
