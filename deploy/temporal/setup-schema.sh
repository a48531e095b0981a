#!/bin/sh
# One-shot: create and upgrade Temporal's own databases (idempotent; safe to re-run).
set -eu
until nc -z -w 5 postgresql 5432; do echo 'waiting for postgresql'; sleep 2; done
for db in temporal temporal_visibility; do
  case "$db" in
    temporal) dir=/etc/temporal/schema/postgresql/v12/temporal/versioned ;;
    *) dir=/etc/temporal/schema/postgresql/v12/visibility/versioned ;;
  esac
  temporal-sql-tool --plugin postgres12 --ep postgresql -u "$POSTGRES_USER" -p 5432 --db "$db" create || true
  temporal-sql-tool --plugin postgres12 --ep postgresql -u "$POSTGRES_USER" -p 5432 --db "$db" setup-schema -v 0.0 || true
  temporal-sql-tool --plugin postgres12 --ep postgresql -u "$POSTGRES_USER" -p 5432 --db "$db" update-schema -d "$dir"
done
echo 'Temporal schema ready'
