"""What the web page reads to draw verdicts: each method's view and the labels' other spellings
(``GET /v1/views``, no key: it spends nothing and reveals no setting), and saved verdicts of an older schema
brought to the current one (``POST /v1/verdicts/upgrade``) by :mod:`factdebate.core.schema`, so the upgrade
is written once, in Python."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from factdebate.engine import Verdict
from factdebate.server.catalogue import PageViews, page_views
from factdebate.server.service import CallerDep
from factdebate.util.errors import InputError

router = APIRouter(prefix="/v1")
MAX_RECORDS = 20_000  # rows of one results file; the body limit of batches bounds their size


class UpgradeRequest(BaseModel):
    records: list[dict[str, Any]] = Field(max_length=MAX_RECORDS, description="Verdicts or results rows of "
                                          "any schema version.")


class UpgradeResponse(BaseModel):
    records: list[dict[str, Any]] = Field(description="The same records in the current schema, in order.")


@router.get("/views", tags=["service"], summary="How each method's verdict is drawn; needs no key")
async def views() -> PageViews:
    return page_views()


@router.post("/verdicts/upgrade", tags=["service"], summary="Saved verdicts of an older schema in the current one")
async def upgrade_verdicts(body: UpgradeRequest, _: CallerDep) -> UpgradeResponse:
    upgraded = []
    for number, record in enumerate(body.records):
        try:
            upgraded.append(Verdict.upgraded(record))
        except InputError as exc:  # a record nested hundreds of levels deep: the caller's to fix
            raise HTTPException(status_code=422, detail=f"records.{number}: {exc}") from None
    return UpgradeResponse(records=upgraded)
