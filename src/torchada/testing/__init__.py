"""Testing support: the simulated torch_musa and a pytest plugin."""
