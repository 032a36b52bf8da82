#!/usr/bin/env bash
# CI: the image and the compose stack, with Debian's podman (no Docker engine, no registry reachable).
#  1. podman and its helpers from Debian; runc and ulimits this VM accepts (containers.conf).
#  2. The base image the Containerfile names, made with debootstrap and imported under that name, so
#     the Containerfile builds unchanged with --pull=never.
#  3. The image, run alone with embedded stores: /healthz, /livez, /readyz, a link, its redirect and the
#     click in the stats; a clean SIGTERM exit.
#  4. compose.yaml with .ci/compose.ci.yaml (local Postgres, Redis and Caddy images; ClickHouse as the
#     project's HTTP stand-in): two instances; a click through one shows in the other's stats and through
#     the proxy; the first instance holds its clicks in its spool, is stopped with SIGTERM, and every
#     click it accepted is then in the stats.
# Prints the time of each step; on failure, the containers' logs. Run by .ci/run once (CI_CONTAINERS=0 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH" # bun reads the JSON answers
export DEBIAN_FRONTEND=noninteractive
T0=$SECONDS
step() { echo "== containers [$((SECONDS - T0)) s]: $* =="; }
IMAGE=localhost/svc:ci
PROJECT=svcci
WORK=$(mktemp -d /tmp/svc-ci-containers.XXXXXX)
SINGLE=svcci-single
COMPOSE=(podman-compose -p "$PROJECT" -f compose.yaml -f .ci/compose.ci.yaml)
export SVC_IMAGE=$IMAGE CI_SVC1_PORT=13101 CI_SVC2_PORT=13102 SVC_HTTP_PORT=127.0.0.1:13180 SVC_HTTPS_PORT=127.0.0.1:13443
export SVC_BASE_URL=http://127.0.0.1:13180
made_secrets=0

logs() {
  echo "---- podman ps -a ----"
  podman ps -a --format '{{.Names}} {{.Status}}' || true
  for c in $(podman ps -a --format '{{.Names}}' 2>/dev/null | grep -E "^($SINGLE|${PROJECT}_)" || true); do
    echo "---- logs of $c (last 60 lines) ----"
    podman logs --tail 60 "$c" 2>&1 || true
  done
}
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "containers: FAILED (exit $rc) after $((SECONDS - T0)) s" >&2
    logs
  fi
  podman rm -f "$SINGLE" >/dev/null 2>&1 || true
  podman volume rm -f "$SINGLE-data" >/dev/null 2>&1 || true
  "${COMPOSE[@]}" down -v >/dev/null 2>&1 || true
  [ $made_secrets -eq 1 ] && rm -rf secrets
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
fail() { echo "containers: $*" >&2; exit 1; }

# until SECONDS COMMAND...: retries every second until the command succeeds.
until_ok() {
  local limit=$1; shift
  local end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || fail "timed out after ${limit}s waiting for: $*"
    sleep 1
  done
}
json() { bun -e "const d=JSON.parse(await Bun.stdin.text()); console.log($1)"; }
stats_clicks() { curl -fsS -H "x-api-key: $2" "$1/public-api/v1/links/$3/stats" | json "d.data.total_clicks"; }
clicks_are() { [ "$(stats_clicks "$1" "$2" "$3")" = "$4" ]; }
UA="Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36"
redirect() { curl -sS -o /dev/null -w '%{http_code}' -A "$UA" "$1/$2"; }

step "podman from Debian"
need=()
for c in podman buildah runc newuidmap slirp4netns debootstrap podman-compose catatonit curl; do command -v "$c" >/dev/null || need+=("$c"); done
[ -e /usr/lib/cni/dnsname ] || need+=(dnsname)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq podman buildah runc uidmap slirp4netns debootstrap podman-compose \
    golang-github-containernetworking-plugin-dnsname catatonit curl >/dev/null
fi
mkdir -p /etc/containers
# crun and raised limits are refused inside this VM.
cat > /etc/containers/containers.conf <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF
podman --version

BASE=$(sed -n 's/^ARG BASE=//p' Containerfile)
[ -n "$BASE" ] || fail "no ARG BASE= in the Containerfile"
step "the base $BASE (debootstrap, podman import)"
if ! podman image exists "$BASE"; then
  suite=$(case "$BASE" in *:13*|*trixie*) echo trixie ;; *:12*|*bookworm*) echo bookworm ;; *) fail "which Debian suite is $BASE?" ;; esac)
  debootstrap --variant=minbase "$suite" "$WORK/rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 \
    || { tail -n 30 "$WORK/debootstrap.log"; fail "debootstrap failed"; }
  # Test-only plumbing: the machine's CA bundle, for npm inside the build (NODE_EXTRA_CA_CERTS below).
  mkdir -p "$WORK/rootfs/etc/ssl"
  cp /etc/ssl/certs/ca-certificates.crt "$WORK/rootfs/etc/ssl/host-ca.crt"
  tar -C "$WORK/rootfs" -c . | podman import -q - "$BASE" >/dev/null
  rm -rf "$WORK/rootfs"
fi

step "build the image from the Containerfile"
# --format docker keeps HEALTHCHECK (the OCI format has none). The host's npm cache is lent to the build.
mkdir -p "$HOME/.npm"
podman build --pull=never --format docker -q -f Containerfile -t "$IMAGE" \
  -v "$HOME/.npm:/root/.npm" --build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/host-ca.crt . >"$WORK/build.log" 2>&1 \
  || { tail -n 60 "$WORK/build.log"; fail "the image did not build"; }
podman image inspect --format 'image {{.Id}} size {{.Size}} user {{.Config.User}} labels {{.Config.Labels}}' "$IMAGE" | cut -c1-300
[ "$(podman image inspect --format '{{.Config.User}}' "$IMAGE")" = "svc" ] || fail "the image does not run as svc"

step "run the image alone, embedded stores"
P=13100
U=http://127.0.0.1:$P
# Read-only root and a tmpfs /tmp, as the Kubernetes manifests run it. Without systemd, podman cannot
# schedule the HEALTHCHECK itself (its complaint goes to podman.log): it is run by hand below.
podman run -d --name "$SINGLE" --read-only --tmpfs /tmp -p 127.0.0.1:$P:3000 -v "$SINGLE-data:/data" -e BASE_URL=$U "$IMAGE" >/dev/null 2>>"$WORK/podman.log"
until_ok 120 curl -fsS "$U/healthz"
curl -fsS "$U/healthz"; echo
curl -fsS -D "$WORK/h" "$U/readyz" >/dev/null && grep -qi '^content-type: application/health+json' "$WORK/h" || fail "/readyz is not health+json"
podman healthcheck run "$SINGLE" || fail "the image's HEALTHCHECK fails"
[ "$(podman exec "$SINGLE" id -u)" = "10001" ] || fail "the process does not run as uid 10001"
KEY=$(podman exec "$SINGLE" cat /data/dev-key.txt)
LINK=$(curl -fsS -H "x-api-key: $KEY" -H 'content-type: application/json' -d '{"url":"https://example.com/container"}' "$U/public-api/v1/links")
ID=$(echo "$LINK" | json d.data.id); CODE=$(echo "$LINK" | json d.data.short_code)
[ "$(redirect "$U" "$CODE")" = 302 ] || fail "the redirect did not answer 302"
until_ok 30 clicks_are "$U" "$KEY" "$ID" 1
echo "link $CODE: 302, 1 click in the stats"
podman stop -t 30 "$SINGLE" >/dev/null 2>>"$WORK/podman.log"
[ "$(podman inspect --format '{{.State.ExitCode}}' "$SINGLE")" = 0 ] || fail "SIGTERM did not end the server cleanly"
podman logs "$SINGLE" 2>&1 | grep -q '"shutting down","signal":"SIGTERM"' || fail "the server did not see SIGTERM"

step "build the stand-in images (Postgres, Redis, Caddy from Debian)"
for s in postgres redis caddy; do
  podman build --pull=never -q -f ".ci/images/$s.Containerfile" -t "localhost/ci-$s:latest" .ci/images >"$WORK/$s.log" 2>&1 \
    || { tail -n 40 "$WORK/$s.log"; fail "the $s stand-in did not build"; }
done

step "compose: two instances behind the proxy"
if [ ! -d secrets ]; then made_secrets=1; fi
sh deploy/compose/make-secrets.sh
"${COMPOSE[@]}" up -d >"$WORK/compose-up.log" 2>&1 || { cat "$WORK/compose-up.log"; fail "compose up failed"; }
A=http://127.0.0.1:$CI_SVC1_PORT
B=http://127.0.0.1:$CI_SVC2_PORT
PROXY=http://127.0.0.1:13180
until_ok 240 curl -fsS "$A/readyz"
until_ok 120 curl -fsS "$B/readyz"
until_ok 60 curl -fsS "$PROXY/readyz"
podman inspect --format '{{.Name}}: {{.RestartCount}} restarts while the stores started' "${PROJECT}_svc-1_1" "${PROJECT}_svc-2_1"
ADMIN=$(cat secrets/admin_token)
ACC=$(curl -fsS -H "authorization: Bearer $ADMIN" -H 'content-type: application/json' -d '{"name":"ci","tier":"scale"}' "$A/admin/v1/accounts" | json d.data.id)
KEY=$(curl -fsS -H "authorization: Bearer $ADMIN" -H 'content-type: application/json' \
  -d '{"name":"ci","scopes":["links:read","links:write","analytics:read"]}' "$A/admin/v1/accounts/$ACC/keys" | json d.data.key)
LINK=$(curl -fsS -H "x-api-key: $KEY" -H 'content-type: application/json' -d '{"url":"https://example.com/compose"}' "$A/public-api/v1/links")
ID=$(echo "$LINK" | json d.data.id); CODE=$(echo "$LINK" | json d.data.short_code)
# svc-2 flushes as usual: its click shows in svc-1's stats, and one through the proxy too.
[ "$(redirect "$B" "$CODE")" = 302 ] || fail "svc-2's redirect did not answer 302"
until_ok 60 clicks_are "$A" "$KEY" "$ID" 1
[ "$(redirect "$PROXY" "$CODE")" = 302 ] || fail "the proxy's redirect did not answer 302"
# svc-1 keeps its clicks in the spool (SPOOL_FLUSH_MS=600000) until SIGTERM drains it.
N=20
for _ in $(seq 1 $N); do [ "$(redirect "$A" "$CODE")" = 302 ] || fail "svc-1's redirect did not answer 302"; done
echo "svc-1 accepted $N clicks; stats on svc-2 before svc-1 stops: $(stats_clicks "$B" "$KEY" "$ID") (the proxy's click may be held by svc-1 too)"
podman stop -t 60 "${PROJECT}_svc-1_1" >/dev/null 2>>"$WORK/podman.log"
[ "$(podman inspect --format '{{.State.ExitCode}}' "${PROJECT}_svc-1_1")" = 0 ] || fail "svc-1 did not exit cleanly on SIGTERM"
until_ok 30 clicks_are "$B" "$KEY" "$ID" $((N + 2))
echo "after svc-1's SIGTERM: $(stats_clicks "$B" "$KEY" "$ID") clicks in svc-2's stats ($N + 2 expected)"
step "done"
