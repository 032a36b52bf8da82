#!/bin/sh
# First start: a cluster owned by POSTGRES_USER with its password and database; then the server.
set -eu
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  user=${POSTGRES_USER:-postgres}
  pw=${POSTGRES_PASSWORD:-}
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then pw=$(cat "$POSTGRES_PASSWORD_FILE"); fi
  printf '%s\n' "$pw" > /tmp/pw
  "$BIN/initdb" -D "$PGDATA" -U "$user" --pwfile=/tmp/pw --auth-local=trust --auth-host=scram-sha-256 --no-sync >/dev/null
  rm -f /tmp/pw
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "host all all ::/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  db=${POSTGRES_DB:-$user}
  if [ "$db" != "postgres" ]; then echo "CREATE DATABASE \"$db\"" | "$BIN/postgres" --single -D "$PGDATA" postgres >/dev/null; fi
fi
exec "$BIN/postgres" -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp
