"""Target adapters: (messages, params) in → reply (text, usage, latency, error class) out."""
