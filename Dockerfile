# The Gomoku Arena image: the server (and, with another command, the AI worker).
# Build: docker build -t gomoku-arena .   Run: see docker-compose.yml and the README.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Wheels exist for every dependency (msgspec, websockets, redis, hiredis); gcc is
# installed only for the build, to compile the AI's core (engine/ai/core/, with
# Cython), and removed after it. .dockerignore keeps .venv, .git and caches out.
COPY . .
# Without Redis the server keeps players, ratings and games in its data file, in the
# user's data directory: /app/.local/share/gomoku-arena (mount a volume there to keep
# it beyond the container). With GOMOKU_REDIS_URL (as in docker-compose.yml) it is unused.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && pip install ".[redis]" \
    && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* \
    && python -c "from engine.ai import engine_info; print(engine_info())" \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gomoku \
    && install -d -o gomoku -g gomoku -m 0700 /app/.local /app/.local/share \
       /app/.local/share/gomoku-arena

USER gomoku

EXPOSE 8765

HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=3)"]

CMD ["gomoku-server", "--host", "0.0.0.0", "--port", "8765"]
