"""/v1/schedules: recurring evaluations of a target; /v1/regressions: the drops they (or any run) showed."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from app.deps import CurrentKey, LibraryDep, SessionDep, SettingsDep
from app.errors import NotFound
from app.http.openapi import problems
from app.schemas import RegressionPage, ScheduleCreate, SchedulePatch, SchedulePublic
from app.services import schedules as service
from app.services.regressions import public_regression
from app.store import paging
from app.store import schedules as store
from app.store.models import Schedule, utcnow

router = APIRouter(tags=["schedules"])


def _get(session: SessionDep, team_id: str, schedule_id: str) -> Schedule:
    schedule = store.get_schedule(session=session, team_id=team_id, schedule_id=schedule_id)
    if schedule is None:
        raise NotFound("schedule_id", f"no schedule {schedule_id!r}")
    return schedule


@router.post("/v1/schedules", status_code=201, response_model=SchedulePublic, responses=problems(404))
def create_schedule(
    body: ScheduleCreate,
    key: CurrentKey,
    session: SessionDep,
    settings: SettingsDep,
    library: LibraryDep,
    response: Response,
) -> SchedulePublic:
    schedule = service.create_schedule(
        session=session,
        settings=settings,
        library=library,
        team_id=key.team_id,
        body=body,
        now=service.schedule_clock(settings)(),
    )
    session.commit()
    response.headers["Location"] = f"/v1/schedules/{schedule.id}"
    return service.public_schedule(schedule)


@router.get("/v1/schedules", response_model=list[SchedulePublic])
def list_schedules(key: CurrentKey, session: SessionDep) -> list[SchedulePublic]:
    return [service.public_schedule(s) for s in store.list_schedules(session=session, team_id=key.team_id)]


@router.get("/v1/schedules/{schedule_id}", response_model=SchedulePublic)
def get_schedule(schedule_id: str, key: CurrentKey, session: SessionDep) -> SchedulePublic:
    return service.public_schedule(_get(session, key.team_id, schedule_id))


@router.patch("/v1/schedules/{schedule_id}", response_model=SchedulePublic)
def update_schedule(
    schedule_id: str,
    body: SchedulePatch,
    key: CurrentKey,
    session: SessionDep,
    settings: SettingsDep,
    library: LibraryDep,
) -> SchedulePublic:
    schedule = service.update_schedule(
        session=session,
        settings=settings,
        library=library,
        schedule=_get(session, key.team_id, schedule_id),
        body=body,
        now=service.schedule_clock(settings)(),
    )
    session.commit()
    return service.public_schedule(schedule)


@router.delete("/v1/schedules/{schedule_id}", status_code=204)
def delete_schedule(schedule_id: str, key: CurrentKey, session: SessionDep) -> Response:
    service.delete_schedule(session=session, schedule=_get(session, key.team_id, schedule_id), now=utcnow())
    session.commit()
    return Response(status_code=204)


@router.get("/v1/regressions", response_model=RegressionPage)
def list_regressions(
    key: CurrentKey,
    session: SessionDep,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> RegressionPage:
    """Newest first, one row per regressed metric of an evaluation."""
    rows, next_cursor = paging.page(
        paging.NEWEST_FIRST,
        lambda after, n: store.list_regressions(session=session, team_id=key.team_id, limit=n, after=after),
        cursor,
        limit,
    )
    return RegressionPage(items=[public_regression(r) for r in rows], next_cursor=next_cursor)
