# Production image: the API (`helmbench serve`) and workers (`helmbench worker`) share it.
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    HELMBENCH_VAR_DIR=/var/lib/helmbench
WORKDIR /srv/helmbench
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install --upgrade pip && pip install .
COPY benchmark_data ./benchmark_data
COPY migrations ./migrations
COPY alembic.ini ./
ENV HELMBENCH_DATA_DIR=/srv/helmbench/benchmark_data
RUN useradd --system --uid 10001 --home /var/lib/helmbench helmbench \
    && mkdir -p /var/lib/helmbench && chown helmbench /var/lib/helmbench
USER helmbench
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"
CMD ["helmbench", "serve", "--host", "0.0.0.0", "--port", "8000"]
