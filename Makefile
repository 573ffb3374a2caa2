# The set-up contract: `make run` and `make test` work on a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One stamp per set of dependencies: `make run` needs the runtime alone, `make test` adds the dev extra (pytest,
# playwright, schemathesis, ruff), `make bench` adds the bench extra (inspect-ai). A stamp older than pyproject.toml
# installs again.
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench

# Tests that need Redis or PostgreSQL use the local ones (127.0.0.1:6379, postgres@127.0.0.1:5432) when they answer,
# or HELMBENCH_TEST_REDIS_URL / HELMBENCH_TEST_POSTGRES_URL; otherwise they skip and the run's last lines say so.
# .ci/run sets HELMBENCH_REQUIRE_SERVICES=1, which turns such a skip into a failure.

# The suite runs in parallel (pytest-xdist), a test file to a worker: a file's module fixtures (the reference
# bots' 52,000 graded items) are built once, not once per worker. One worker more than the cores: a fifth of the
# suite's time is spent waiting on the programs its tests start (servers, workers, PostgreSQL), and the extra
# worker fills it (on two cores: 16 min 47 s with two workers, 13 min 25 s with three). `make test XDIST=` runs it
# in one process. Its speed, and the command that measures it: bench/README.md ("The suite's own speed").
XDIST ?= -n $(shell $(PY) -c "import os; print((os.cpu_count() or 1) + 1)") --dist loadfile

.PHONY: install run test lint bench validity clean docs

# --compile-bytecode: uv writes no .pyc files by default, and where PYTHONDONTWRITEBYTECODE is set (as on our
# machines and in the image) none are ever written, so every process would compile SciPy, SQLAlchemy and the rest
# again: importing the report took 5.6 s of CPU instead of 2.6 s, in every worker, server and CLI start.
# $(1): the extra a command needs (empty: the runtime alone). The extras this venv already has are installed again
# with it, in one resolution, so switching between run, test and bench never drops a tool or leaves one broken by
# another extra's pins; then every set installed is stamped.
define install_with
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	test -x $(BIN)/uv || $(BIN)/python -m pip install --quiet --upgrade pip uv
	extras="$(1)"; \
	for extra in dev bench; do test -e $(VENV)/.installed-$$extra && extras="$$extras $$extra"; done; \
	extras=$$(printf '%s\n' $$extras | sort -u | paste -sd, -); \
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e ".$${extras:+[$$extras]}" \
	&& for set in run $$(echo $$extras | tr , ' '); do touch $(VENV)/.installed-$$set; done
endef

$(RUN_STAMP): pyproject.toml
	$(call install_with,)

$(DEV_STAMP): pyproject.toml
	$(call install_with,dev)

$(BENCH_STAMP): pyproject.toml
	$(call install_with,bench)

# A developer's venv: the service and the tools `make test` and `make lint` use.
install: $(DEV_STAMP)

run: $(RUN_STAMP)
	HELMBENCH_TARGET_ALLOWLIST=$${HELMBENCH_TARGET_ALLOWLIST-127.0.0.0/8,::1,localhost} $(BIN)/helmbench serve --host 127.0.0.1 --port 8000

test: $(DEV_STAMP)
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/python -m pytest -q $(XDIST) $(PYTEST_ARGS)

lint: $(DEV_STAMP)
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/ruff format --check app tests bench migrations

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench.run_all

# How far the rules' grade agrees with trained raters on real replies (reads ../shared/validation at run time).
validity: install
	$(BIN)/python -m bench.validity

clean:
	rm -rf $(VENV) var/*.db var/admin.key

docs: $(RUN_STAMP)
	$(BIN)/python -m app.cli.settings_doc
