from . import musagraphs
