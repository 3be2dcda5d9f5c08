#!/usr/bin/env bash
# Throwaway PostgreSQL cluster for the collector's tests and benchmark.
#
# As a library (source it):
#     source tests/pg/pg-cluster.sh
#     pg_cluster_start            # exports PG_CLUSTER_DIR PGHOST PGPORT ISOCHECK_DSN
#     ...                         # stopped and removed on EXIT/INT/TERM (trap)
# As a command:
#     bash tests/pg/pg-cluster.sh run CMD ARGS...   # start, run CMD with the env, stop
#
# The cluster lives in a `mktemp -d` folder, listens on a unix socket in that
# folder and on 127.0.0.1 at a free port, trusts local connections, and is
# tuned for throughput (fsync off: the data is thrown away). initdb/postgres
# refuse to run as root, so as root they run as the `postgres` user (or
# $PG_CLUSTER_USER).

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

_pg_as() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u "${PG_CLUSTER_USER:-postgres}" -- "$@"
  else
    "$@"
  fi
}

pg_cluster_stop() {
  if [[ -n ${PG_CLUSTER_DIR:-} && -d $PG_CLUSTER_DIR ]]; then
    if [[ -f $PG_CLUSTER_DIR/data/postmaster.pid ]]; then
      _pg_as "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$PG_CLUSTER_DIR"
  fi
  PG_CLUSTER_DIR=
}

_pg_port_free() {
  ! ss -Htln 2>/dev/null | awk '{print $4}' | grep -q ":$1\$"
}

# pg_cluster_start [EXTRA postgres -c settings...]
pg_cluster_start() {
  trap pg_cluster_stop EXIT
  trap 'pg_cluster_stop; exit 130' INT
  trap 'pg_cluster_stop; exit 143' TERM
  PG_CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/isocheck-pg.XXXXXX") || return 1
  chmod 755 "$PG_CLUSTER_DIR"
  [[ $(id -u) -eq 0 ]] && chown "${PG_CLUSTER_USER:-postgres}" "$PG_CLUSTER_DIR"
  if ! _pg_as "$PG_BIN/initdb" -D "$PG_CLUSTER_DIR/data" -U postgres --auth=trust --no-sync \
        -E UTF8 --locale=C.UTF-8 >"$PG_CLUSTER_DIR/initdb.log" 2>&1; then
    echo "pg-cluster: initdb failed:" >&2; cat "$PG_CLUSTER_DIR/initdb.log" >&2
    return 1
  fi
  local tries=0 port
  while :; do
    tries=$((tries + 1))
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    _pg_port_free "$port" || continue
    if _pg_as "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" -l "$PG_CLUSTER_DIR/server.log" -W \
        -o "-p $port -k $PG_CLUSTER_DIR -c listen_addresses=127.0.0.1 -c fsync=off \
            -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 \
            -c shared_buffers=64MB -c deadlock_timeout=10ms $*" start >/dev/null 2>&1; then
      # Bounded wait: up to ~30 s, a probe every 0.1 s.
      local i
      for ((i = 0; i < 300; i++)); do
        if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 1; then
          export PG_CLUSTER_DIR PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres
          export ISOCHECK_DSN="host=127.0.0.1 port=$port user=postgres dbname=postgres"
          export ISOCHECK_DSN_SOCKET="host=$PG_CLUSTER_DIR port=$port user=postgres dbname=postgres"
          return 0
        fi
        # The server died (port taken after all, bad setting): try another port.
        if ! _pg_as "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" status >/dev/null 2>&1; then break; fi
        sleep 0.1
      done
      _pg_as "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    if ((tries >= 10)); then
      echo "pg-cluster: server did not start; log:" >&2
      cat "$PG_CLUSTER_DIR/server.log" >&2 2>/dev/null
      return 1
    fi
  done
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -u
  case ${1:-} in
    run)
      shift
      pg_cluster_start || exit 1
      "$@"
      rc=$?
      pg_cluster_stop
      exit $rc
      ;;
    *)
      echo "usage: $0 run CMD [ARGS...]   (or source it: pg_cluster_start / pg_cluster_stop)" >&2
      exit 2
      ;;
  esac
fi
