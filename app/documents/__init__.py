"""The documents the API computes and serves (reports, comparisons, the catalogue, event payloads) as pydantic
models: one definition of each shape, which the OpenAPI description publishes and tests hold real answers to."""
