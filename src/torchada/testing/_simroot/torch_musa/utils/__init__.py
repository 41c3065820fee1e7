from . import musa_extension
from .musa_extension import BuildExtension, MUSAExtension
