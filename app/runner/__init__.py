"""Schedule items against a target: concurrency, retries, cancellation, durable writes."""
