# Citus with pgvector: Kioko's tables need the vector type on the coordinator and on every worker.
FROM citusdata/citus:12.1
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-16-pgvector \
    && rm -rf /var/lib/apt/lists/*
