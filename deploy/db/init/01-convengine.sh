#!/bin/sh
# Runs once, on the first start of the PostgreSQL volume: the application database, the
# read-write application role, and the read-only role SQL tools connect with.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
CREATE ROLE convengine_app LOGIN PASSWORD '${APP_DB_PASSWORD}';
CREATE ROLE convengine_tools_ro LOGIN NOINHERIT PASSWORD '${TOOLS_DB_PASSWORD}';
CREATE DATABASE convengine OWNER convengine_app;
SQL
