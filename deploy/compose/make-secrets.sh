#!/bin/sh
# Writes the secrets compose.yaml mounts into ./secrets, each a random value, and the files made from
# them (the Postgres and Redis URLs, ClickHouse's user). Keeps files that exist. The directory is the
# owner's alone (0700); the files are 0644 because compose mounts them as they are, and the services
# read them as their own users (svc 10001, postgres, clickhouse), not as the files' owner.
set -eu
cd "$(dirname "$0")/../.."
umask 022
mkdir -p secrets
chmod 0700 secrets
rand() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }
keep() { [ -s "secrets/$1" ] || printf '%s' "$2" > "secrets/$1"; }
keep postgres_password "$(rand)"
keep clickhouse_password "$(rand)"
keep redis_password "$(rand)"
keep app_secret "$(rand)$(rand)"
keep admin_token "$(rand)"
keep database_url "postgres://svc:$(cat secrets/postgres_password)@postgres:5432/svc"
keep redis_url "redis://:$(cat secrets/redis_password)@redis:6379"
keep clickhouse-users.xml "<clickhouse><users><svc>
  <password>$(cat secrets/clickhouse_password)</password>
  <networks><ip>::/0</ip></networks>
  <profile>default</profile><quota>default</quota>
  <access_management>1</access_management>
</svc></users></clickhouse>
"
echo "secrets written to $(pwd)/secrets (the admin token: secrets/admin_token)"
