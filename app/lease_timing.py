"""How often a live holder renews a lease in Redis: shared by the queue's shards and the limits' target slots,
which both keep their holds alive the same way, so neither has to import the other."""

from __future__ import annotations

RENEW_AT_MOST_EVERY_S = 1.0


def renew_every_s(lease_s: float) -> float:
    """How often a live holder renews a lease in Redis (a running shard, a target slot).

    Often, though the lease is long: a Redis that came back empty has every live hold back within a second, so
    the reconciler can tell lost shards from held ones soon after, and a target's cap is whole again as soon.
    A lease lapses only after several renewals in a row were missed.
    """
    return min(lease_s / 3, RENEW_AT_MOST_EVERY_S)
