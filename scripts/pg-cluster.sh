#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks, from Debian's `postgresql` package.
#   scripts/pg-cluster.sh start DIR [PORT]   initdb in DIR (if new), start on 127.0.0.1:PORT (a free
#                                           one if not given), print the postgres:// URL on stdout
#   scripts/pg-cluster.sh stop DIR          stop it (the folder stays; rm -rf it yourself)
# Runs the server as the `postgres` user when started as root (initdb refuses root). Extra server
# settings: PG_CLUSTER_OPTS, e.g. "-c fsync=off" for a suite that never survives a machine crash.
set -euo pipefail

bin_dir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [[ -z "$dir" ]]; then
    echo "pg-cluster: PostgreSQL is not installed (apt-get install -y postgresql)" >&2
    exit 1
  fi
  echo "$dir"
}

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start DIR [PORT] | stop DIR" >&2
  exit 2
fi
bin=$(bin_dir)

case "$cmd" in
  start)
    port=${3:-$(free_port)}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
      as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 ${PG_CLUSTER_OPTS:-}" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  *)
    echo "usage: $0 start DIR [PORT] | stop DIR" >&2
    exit 2
    ;;
esac
