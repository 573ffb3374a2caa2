# The set-up contract: `make run` and `make test` work on a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

# Tests that need Redis or PostgreSQL read HELMBENCH_TEST_REDIS_URL / HELMBENCH_TEST_POSTGRES_URL and skip without
# them; .ci/run sets both and HELMBENCH_REQUIRE_SERVICES=1, which turns such a skip into a failure.

.PHONY: install run test lint bench clean docs

# --compile-bytecode: uv writes no .pyc files by default, and where PYTHONDONTWRITEBYTECODE is set (as on our
# machines and in the image) none are ever written, so every process would compile SciPy, SQLAlchemy and the rest
# again: importing the report took 5.6 s of CPU instead of 2.6 s, in every worker, server and CLI start.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# `make bench` also installs the peer it compares with (inspect-ai); `make test` and `make run` never need it.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[dev,bench]'
	touch $(BENCH_STAMP)

run: install
	HELMBENCH_TARGET_ALLOWLIST=$${HELMBENCH_TARGET_ALLOWLIST-127.0.0.0/8,::1,localhost} $(BIN)/helmbench serve --host 127.0.0.1 --port 8000

test: install
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(BIN)/ruff check app tests bench
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench.run_all

clean:
	rm -rf $(VENV) var/*.db var/admin.key

docs: install
	$(BIN)/python -m app.cli.settings_doc
