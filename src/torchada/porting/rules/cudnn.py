"""cuDNN -> muDNN: header and library only.

Evidence: cudnn.h->mudnn.h from torch_musa/utils/mapping/dnn-header.json; libmudnn from
cmake/modules/FindMUDNN.cmake; at::native::getCudnnHandle's counterpart is
GetMudnnHandle() in torch_musa/csrc/aten/mudnn/Handle.h. muDNN is a C++ API (namespace
``musa::dnn``) with different types, not a renamed cuDNN C API, so no cudnn* call is
rewritten (that would change types behind the user's back); the unmapped scan lists them.
"""
DOMAIN = "cudnn"

IDENTIFIERS = {}
INCLUDES = {
    "cudnn.h": "mudnn.h",
    "ATen/cudnn/Handle.h": "torch_musa/csrc/aten/mudnn/Handle.h",
}
LIBRARIES = {"cudnn": "mudnn"}
