#!/usr/bin/env bash
# Three gateway replicas sharing one Redis, in front of one simulated PLC, all on loopback: no containers.
# Needs redis-server on the PATH (Debian: apt-get install redis-server). Ctrl-C stops everything.
#   examples/cluster/run.sh            ports: Redis 6391, ADS 48950, replicas 5101 5102 5103
set -euo pipefail
cd "$(dirname "$0")/../.."

redis_port=${REDIS_PORT:-6391}
ads_port=${ADS_PORT:-48950}
base_port=${BASE_PORT:-5101}
work=$(mktemp -d)
pids=()

cleanup() {
  trap - EXIT INT TERM
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Without persistence, as many plant Redis instances run: after a restart the replicas fill it again.
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
pids+=($!)

# The simulation runs once, with one clock; every replica reaches it as a Real PLC over ADS.
node --import tsx src/main.ts sim-ads --scenario examples/scenarios/line16 --port "$ads_port" --no-udp \
  >"$work/sim-ads.log" 2>&1 &
pids+=($!)

for i in 1 2 3; do
  port=$((base_port + i - 1))
  # One AMS NetId per replica: a real PLC needs one route for each.
  cat >"$work/replica$i.json" <<JSON
{
  "Logging": { "Level": "warn" },
  "Features": { "Alarms": true, "Lifecycle": true },
  "Auth": { "UseDevelopmentKey": true },
  "AmsRouter": { "NetId": "127.0.0.1.1.$((20 + i))" },
  "PlcTargets": {
    "line1": { "DisplayName": "Line 16", "Mode": "Real", "AmsNetId": "127.0.0.1.1.1", "Address": "127.0.0.1", "TcpPort": $ads_port }
  },
  "PlcAlarms": { "Targets": { "line1": { "SymbolPath": "GVL_HMI.fbAlarms.aAlarms" } } },
  "Cluster": { "Redis": "redis://127.0.0.1:$redis_port", "ReplicaId": "replica-$i" }
}
JSON
  node --import tsx src/main.ts serve --config "$work/replica$i.json" --host 127.0.0.1 --port "$port" \
    >"$work/replica$i.log" 2>&1 &
  pids+=($!)
done

for i in 1 2 3; do
  port=$((base_port + i - 1))
  until curl -fs "http://127.0.0.1:$port/health/ready" >/dev/null; do
    if ! kill -0 "${pids[$((i + 1))]}" 2>/dev/null; then
      echo "replica $i did not start:" >&2
      cat "$work/replica$i.log" >&2
      exit 1
    fi
    sleep 0.5
  done
done

token=$(node --import tsx src/main.ts token --config "$work/replica1.json" --sub demo --role admin \
  --scope "ads:read ads:write ads:lifecycle" 2>/dev/null)
cat <<TEXT
Redis 127.0.0.1:$redis_port, sim-ads 127.0.0.1:$ads_port (line16), replicas:
  http://127.0.0.1:$base_port  http://127.0.0.1:$((base_port + 1))  http://127.0.0.1:$((base_port + 2))
Logs: $work

TOKEN=$token
curl -s -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:$((base_port + 1))/health/ready
curl -s -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:$base_port/api/plcs/line1/variables/GVL_HMI.stMachine.rSpeed
curl -sN -H "Authorization: Bearer \$TOKEN" "http://127.0.0.1:$base_port/api/plcs/line1/notifications/sse?symbols=GVL_HMI.stMachine.rSpeed" &
curl -s -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:$((base_port + 2))/api/admin/connections
# Alarms: one replica holds line1's lease (see "leases" in /health/ready); every replica serves the same journal.
curl -sN -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:$((base_port + 1))/api/plcs/line1/alarms/stream &
curl -s -H "Authorization: Bearer \$TOKEN" "http://127.0.0.1:$((base_port + 2))/api/plcs/line1/alarms/history?limit=5"
Ctrl-C stops everything.
TEXT
wait
