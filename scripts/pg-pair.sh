#!/usr/bin/env bash
# A two-node PostgreSQL 15 on one machine, to try bot replicas on a shared journal (docs/journal.md,
# "Two replicas on one machine"): a primary and a synchronous streaming standby, on loopback only,
# in a folder of their own. Trust authentication on 127.0.0.1: for trying, never for a real fleet.
#
#   scripts/pg-pair.sh start DIR [PORT_A PORT_B]   make and start both nodes (default 25432 25433: below the
#                                                  ephemeral range, so no client socket ever takes them), print the URLs
#   scripts/pg-pair.sh status DIR                  which node is the primary
#   scripts/pg-pair.sh kill-primary DIR            the primary dies as a power cut would take it
#   scripts/pg-pair.sh promote DIR                 the standby that is left becomes the primary
#   scripts/pg-pair.sh stop DIR                    stop both and remove DIR
#
# As root, the server runs as the `postgres` user (PostgreSQL refuses root). Needs Debian's
# postgresql package (PG_BIN, default /usr/lib/postgresql/15/bin).
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { sed -n '5,10p' "$0" >&2; exit 2; }
[ -x "$PG_BIN/initdb" ] || { echo "pg-pair: no $PG_BIN/initdb: apt-get install postgresql" >&2; exit 3; }

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg() { as_pg timeout 120 "$PG_BIN/$1" "${@:2}"; }
sql() { as_pg timeout 30 "$PG_BIN/psql" -X -q -t -A -h 127.0.0.1 -p "$1" -U postgres -d "${3:-postgres}" -c "$2"; }
ports() { cat "$dir/ports"; }
primary_port() {
  for p in $(ports); do
    if [ "$(sql "$p" 'SELECT pg_is_in_recovery()' 2>/dev/null || true)" = f ]; then echo "$p"; return 0; fi
  done
  return 1
}
urls() {
  local hosts
  hosts=$(for p in $(ports); do printf '127.0.0.1:%s,' "$p"; done)
  hosts=${hosts%,}
  echo "owner: postgres://seat_owner@$hosts/seat?target_session_attrs=read-write"
  echo "bot:   postgres://seat_bot@$hosts/seat?target_session_attrs=read-write"
}

case "$cmd" in
  start)
    a=${3:-25432}
    b=${4:-25433}
    [ ! -e "$dir" ] || { echo "pg-pair: $dir exists: stop it first, or pick another folder" >&2; exit 2; }
    mkdir -p "$dir"
    chmod 700 "$dir"
    [ "$(id -u)" != 0 ] || chown postgres: "$dir"
    if ! as_pg test -w "$dir"; then
      rm -rf "$dir"
      echo "pg-pair: the postgres user cannot reach $dir (a folder above it is private): pick one it may enter, e.g. under /tmp" >&2
      exit 2
    fi
    echo "$a $b" > "$dir/ports"
    pg initdb -D "$dir/a" -U postgres -A trust -E UTF8 --locale=C >/dev/null
    cat >> "$dir/a/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $a
unix_socket_directories = ''
wal_level = replica
max_wal_senders = 4
hot_standby = on
synchronous_commit = on
EOF
    printf 'host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n' > "$dir/a/pg_hba.conf"
    [ "$(id -u)" != 0 ] || chown postgres: "$dir/a/pg_hba.conf"
    pg pg_ctl -D "$dir/a" -l "$dir/a.log" -w -t 60 start >/dev/null
    sql "$a" 'CREATE ROLE seat_owner LOGIN' >/dev/null
    sql "$a" 'CREATE ROLE seat_bot LOGIN' >/dev/null
    sql "$a" 'CREATE DATABASE seat OWNER seat_owner' >/dev/null
    sql "$a" 'ALTER SCHEMA public OWNER TO seat_owner' seat >/dev/null
    pg pg_basebackup -h 127.0.0.1 -p "$a" -U postgres -D "$dir/b" -R -X stream -c fast
    echo "port = $b" >> "$dir/b/postgresql.conf"
    pg pg_ctl -D "$dir/b" -l "$dir/b.log" -w -t 60 start >/dev/null
    # Synchronous: a commit answers once the standby has it, so a promoted standby lost nothing shown as recorded.
    sql "$a" "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
    sql "$a" 'SELECT pg_reload_conf()' >/dev/null
    for _ in $(seq 1 100); do
      [ "$(sql "$a" "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" = 1 ] && break
      sleep 0.1
    done
    echo "pg-pair: primary on 127.0.0.1:$a, synchronous standby on 127.0.0.1:$b (in $dir)"
    urls
    ;;
  status)
    if p=$(primary_port); then echo "pg-pair: primary on 127.0.0.1:$p"; else echo "pg-pair: no primary answers"; fi
    urls
    ;;
  kill-primary)
    p=$(primary_port) || { echo "pg-pair: no primary answers" >&2; exit 1; }
    read -r a _ < "$dir/ports"
    node="$dir/b"; [ "$p" = "$a" ] && node="$dir/a"
    pg pg_ctl -D "$node" -m immediate -w stop >/dev/null
    echo "pg-pair: killed the primary on 127.0.0.1:$p"
    ;;
  promote)
    if p=$(primary_port); then echo "pg-pair: 127.0.0.1:$p is already the primary"; exit 0; fi
    for n in a b; do
      if as_pg "$PG_BIN/pg_ctl" -D "$dir/$n" status >/dev/null 2>&1; then
        # The old primary is gone: the standby stops waiting for a synchronous partner it no longer has.
        pg pg_ctl -D "$dir/$n" -w -t 60 promote >/dev/null
        port=$(grep -E '^port = ' "$dir/$n/postgresql.conf" | tail -1 | cut -d' ' -f3)
        sql "$port" "ALTER SYSTEM SET synchronous_standby_names = ''" >/dev/null
        sql "$port" 'SELECT pg_reload_conf()' >/dev/null
        echo "pg-pair: promoted 127.0.0.1:$port"
        exit 0
      fi
    done
    echo "pg-pair: no node is running to promote" >&2
    exit 1
    ;;
  stop)
    for n in a b; do [ -d "$dir/$n" ] && pg pg_ctl -D "$dir/$n" -m fast -w stop >/dev/null 2>&1 || true; done
    rm -rf "$dir"
    echo "pg-pair: stopped, $dir removed"
    ;;
  *)
    sed -n '5,10p' "$0" >&2
    exit 2
    ;;
esac
