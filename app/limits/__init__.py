"""Limits: the local and Redis limiters that pace calls to targets and requests per API key, and the quotas
that admit an evaluation. Redis scripts live here, beside the limiters that run them."""
