"""torchada's machinery: activation, finder, registry, gates, journal, report."""
