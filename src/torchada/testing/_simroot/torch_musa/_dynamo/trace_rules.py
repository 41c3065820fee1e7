"""The real module teaches dynamo about torch.musa stream functions; not simulated."""
