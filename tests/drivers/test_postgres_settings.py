"""The suite's PostgreSQL runs with the settings docs/postgresql.md gives for large stores."""

from __future__ import annotations

import psycopg
import pytest
import services


def test_the_started_server_runs_with_the_large_store_settings(
    postgresql_store_url: str, postgres_service: services.Service
) -> None:
    if not postgres_service.stops:
        pytest.skip(f"the server was not started by the suite ({postgres_service.how}): its settings are its own")
    with psycopg.connect(postgresql_store_url) as connection:
        shown = {name: connection.execute(f"SHOW {name}").fetchone() for name in services.POSTGRES_SETTINGS}
    assert {name: row[0] if row else None for name, row in shown.items()} == services.POSTGRES_SETTINGS
