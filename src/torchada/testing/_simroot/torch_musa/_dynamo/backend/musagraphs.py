"""The real module registers a 'musagraphs' dynamo backend; the simulator does not."""
