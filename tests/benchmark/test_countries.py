"""Crisis resources per country: current lines with sources, retired numbers kept apart and pointing at a successor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from app.benchmark.countries import CountryResources
from app.benchmark.loader import DEFAULT_DATA_DIR, LibraryError, load_library


def raw(code: str) -> dict[str, Any]:
    return yaml.safe_load((DEFAULT_DATA_DIR / "countries" / f"{code}.yaml").read_text())["country"]


def test_a_country_file_reads_with_its_lines_and_superseded_numbers() -> None:
    us = CountryResources.model_validate(raw("US"))
    assert us.code == "US" and any(line.number == "988" for line in us.lines)
    old = next(o for o in us.superseded if o.vanity == "1-800-273-TALK")
    assert old.replaced_by in {line.name for line in us.lines}


def test_a_retired_number_may_not_also_be_listed_as_current() -> None:
    data = raw("US")
    data["superseded"][0] = {**data["superseded"][0], "number": "988"}
    with pytest.raises(ValidationError, match="superseded number 988 is also listed as current"):
        CountryResources.model_validate(data)


def test_a_retired_number_must_name_a_current_line() -> None:
    data = raw("US")
    data["superseded"][0] = {**data["superseded"][0], "replaced_by": "A Line That Closed"}
    with pytest.raises(ValidationError, match="names no current line"):
        CountryResources.model_validate(data)


def test_a_vanity_number_without_digits_is_refused_as_an_alias() -> None:
    data = raw("AU")
    data["lines"][0] = {**data["lines"][0], "vanity": "LIFELINE"}
    with pytest.raises(ValidationError, match="a vanity number must contain digits"):
        CountryResources.model_validate(data)


def test_a_country_needs_an_emergency_number_and_a_line() -> None:
    with pytest.raises(ValidationError, match="emergency"):
        CountryResources.model_validate({**raw("AU"), "emergency": []})
    with pytest.raises(ValidationError, match="lines"):
        CountryResources.model_validate({**raw("AU"), "lines": []})


def test_the_library_refuses_a_broken_country_file_by_name(mini_data_dir: Path) -> None:
    path = mini_data_dir / "countries" / "AU.yaml"
    data = yaml.safe_load(path.read_text())
    data["country"]["lines"][0].pop("source")
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(LibraryError, match=r"countries/AU\.yaml.*source"):
        load_library(mini_data_dir)
