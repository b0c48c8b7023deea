# spacy-sanitize as an HTTP service: docker build -t spacy-sanitize . &&
# docker run -p 127.0.0.1:8000:8000 -e SPACY_SANITIZE_SECRET=... spacy-sanitize (the host's loopback only)
# (not built in CI). The default pipeline needs no torch; for the [torch] pipelines, install
# ".[serve,torch]" and pass --pipeline accurate (or another) below.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY . /app
RUN pip install ".[serve]" && useradd --create-home sanitizer
USER sanitizer

EXPOSE 8000
# 0.0.0.0 inside the container only; publish the port to the host's loopback or a private
# network. One worker per CPU you give the container (each loads its own pipeline).
CMD ["spacy-sanitize", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
