"""pytest plugin for downstream projects (inert unless asked for)."""
