# Production image: the API (`helmbench serve`) and workers (`helmbench worker`) share it.
# The build stage makes the wheel; the image installs that wheel and nothing else from the source tree: the wheel
# carries the benchmark library and the migrations (setup.py copies the top-level folders into it), so what runs
# here is what `pip install` gives anyone.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY app ./app
COPY benchmark_data ./benchmark_data
COPY migrations ./migrations
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HELMBENCH_VAR_DIR=/var/lib/helmbench
COPY --from=build /wheels /tmp/wheels
# pip compiles what it installs, once, here: no process of the image recompiles SciPy or SQLAlchemy at start.
RUN pip install --upgrade pip && pip install /tmp/wheels/helmbench-*.whl && rm -rf /tmp/wheels
RUN useradd --system --uid 10001 --home /var/lib/helmbench helmbench \
    && mkdir -p /var/lib/helmbench && chown helmbench /var/lib/helmbench
WORKDIR /var/lib/helmbench
USER helmbench
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"
CMD ["helmbench", "serve", "--host", "0.0.0.0", "--port", "8000"]
