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
