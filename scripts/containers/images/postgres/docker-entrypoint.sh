#!/usr/bin/env bash
# Entry point of the PostgreSQL stand-in image, with the official postgres image's contract:
# POSTGRES_PASSWORD (required), POSTGRES_USER (default postgres) and POSTGRES_DB (default the user)
# make the cluster on the first start; clients anywhere log in with the password; `postgres -c ...`
# as the command passes settings. Like the official image, a first start runs a private server while
# it sets up and then the real one, so "ready to accept connections" is logged twice: testcontainers
# waits for the second.
set -euo pipefail

if [[ ${1:-} == -* ]]; then
  set -- postgres "$@"
fi
if [[ ${1:-} != postgres ]]; then
  exec "$@"
fi
shift

initialize() {
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  local user=${POSTGRES_USER:-postgres}
  local database=${POSTGRES_DB:-$user}
  initdb --pgdata="$PGDATA" --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  # The private server listens on a socket only, so no client connects before the set-up is done.
  pg_ctl --pgdata="$PGDATA" --wait --silent --options="-c listen_addresses= -c unix_socket_directories=/tmp" start
  pg_ctl --pgdata="$PGDATA" --wait --silent --mode=fast stop
  if [[ $database != postgres ]]; then
    postgres --single -D "$PGDATA" postgres <<<"CREATE DATABASE \"$database\""
  fi
}

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  initialize
fi
exec postgres -c unix_socket_directories=/tmp "$@"
