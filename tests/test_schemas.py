"""The API's request schemas: what a client sending a bad body is told, and by which field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.schemas import JudgeCreate, LabelIn, ScheduleCreate, TargetCreate, distinct_judges

TARGET = {"name": "bot", "base_url": "https://api.example.com/v1", "model": "bot-1"}


def _fields(exc: pytest.ExceptionInfo[ValidationError]) -> set[str]:
    return {str(error["loc"][0]) for error in exc.value.errors()}


def test_a_target_may_not_set_what_the_runner_sends_itself_nor_unknown_fields() -> None:
    with pytest.raises(ValidationError, match="messages, model cannot be set in params") as reserved:
        TargetCreate.model_validate({**TARGET, "params": {"model": "x", "messages": [], "temperature": 0}})
    assert _fields(reserved) == {"params"}
    with pytest.raises(ValidationError) as extra:
        TargetCreate.model_validate({**TARGET, "apikey": "sk-typo"})
    assert _fields(extra) == {"apikey"}
    assert TargetCreate.model_validate({**TARGET, "params": {"temperature": 0}}).kind == "openai_chat"


def test_a_reply_pointer_must_be_a_json_pointer() -> None:
    with pytest.raises(ValidationError, match="starts with '/'") as bad:
        TargetCreate.model_validate({**TARGET, "kind": "http_json", "reply_pointer": "output.text"})
    assert _fields(bad) == {"reply_pointer"}


def test_a_label_must_say_something() -> None:
    with pytest.raises(ValidationError, match="at least one of verdict, score or checks"):
        LabelIn(key="k1")
    with pytest.raises(ValidationError) as score:
        LabelIn(key="k1", score=6)
    assert _fields(score) == {"score"}
    assert LabelIn(key="k1", checks={"escalates": True}).checks == {"escalates": True}


def test_a_panel_may_not_count_one_judge_twice() -> None:
    one = JudgeCreate(base_url="https://judge.example.com/v1", model="j-1")
    same = JudgeCreate(base_url="https://judge.example.com/v1/", model="j-1")
    other = JudgeCreate(base_url="https://judge.example.com/v1", model="j-2")
    with pytest.raises(ValueError, match="different model or endpoint"):
        distinct_judges([one, same])
    assert distinct_judges([one, other]) == [one, other]


def test_a_schedule_refuses_a_cron_that_is_not_one() -> None:
    with pytest.raises(ValidationError, match="not a cron expression") as bad:
        ScheduleCreate(target_id="tg_1", cron="every monday")
    assert _fields(bad) == {"cron"}
    assert ScheduleCreate(target_id="tg_1", cron="0 6 * * 1").suite == "quick"
