from . import register_fake_impl
