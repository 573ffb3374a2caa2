"""Shard places: a process's shards taking items at once, each place given back once."""

from __future__ import annotations

import asyncio

from app.runner.shard_places import ShardPlaces


async def test_a_full_set_of_places_makes_the_next_shard_wait_until_one_is_given_back() -> None:
    places = ShardPlaces(2)
    given_back: list[str] = []
    first = await places.take(on_give_back=lambda: given_back.append("first"))
    await places.take()
    assert places.full
    waiting = asyncio.create_task(places.take())
    await asyncio.sleep(0)
    assert not waiting.done()
    first.give_back()
    third = await asyncio.wait_for(waiting, 5)  # a hang, not a measure
    assert given_back == ["first"] and places.full
    third.give_back()
    assert not places.full


async def test_giving_a_place_back_twice_frees_it_once() -> None:
    places = ShardPlaces(1)
    place = await places.take()
    place.give_back()
    place.give_back()  # the shard ended after it had already made room: no second place appears
    await places.take()
    assert places.full


async def test_a_run_holding_no_place_takes_the_spare_one_while_every_place_is_held() -> None:
    places = ShardPlaces(1)
    big = await places.take("ev_big")
    assert places.full and places.spare_free
    quick = await asyncio.wait_for(places.take("ev_quick"), 5)  # the newcomer does not wait for the big shard
    assert places.holds("ev_quick") and not places.spare_free
    next_big = asyncio.create_task(places.take("ev_big"))  # a run that holds a place waits for a regular one
    another = asyncio.create_task(places.take("ev_other"))  # and the spare place takes one newcomer at a time
    await asyncio.sleep(0)
    assert not next_big.done() and not another.done()
    quick.give_back()
    assert places.spare_free and not places.holds("ev_quick")
    big.give_back()
    await asyncio.wait_for(asyncio.wait([next_big, another], return_when=asyncio.FIRST_COMPLETED), 5)
    assert next_big.done() != another.done()  # one regular place came free: one of them took it
