#!/usr/bin/env bash
# Runs a command in a network namespace of its own, with only loopback up, and always removes the
# namespace afterwards (its processes first). Everything the command starts (servers, instances,
# proxies) lives on that loopback, so iptables rules made there (io.ambergarden.chaos.net.Firewall)
# touch nothing else on the machine. Needs root and the iptables package.
#
#   src/dev/chaos-in-netns.sh mvn -o -Pchaos            # the chaos run
#   AMBER_CHAOS_NETNS=amber-chaos-ci src/dev/chaos-in-netns.sh <command...>
#
# The command sees AMBER_CHAOS_NETNS, the namespace's name, which Firewall checks against
# `ip netns identify`. Maven works offline there once its dependencies are in ~/.m2.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi
ns="${AMBER_CHAOS_NETNS:-amber-chaos-$$}"
case "$ns" in
  amber-*) ;;
  *) echo "namespace name must start with amber-: $ns" >&2; exit 2 ;;
esac
if ip netns list | awk '{print $1}' | grep -qx -- "$ns"; then
  echo "network namespace $ns exists already (a run in progress, or a crashed one: ip netns del $ns)" >&2
  exit 1
fi

cleanup() {
  local pids
  pids="$(ip netns pids "$ns" 2>/dev/null || true)"
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 1 60); do
      pids="$(ip netns pids "$ns" 2>/dev/null || true)"
      [ -z "$pids" ] && break
      sleep 0.5
    done
    # shellcheck disable=SC2086
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
  fi
  ip netns del "$ns" 2>/dev/null || true
}

ip netns add "$ns"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ip netns exec "$ns" ip link set lo up
set +e
ip netns exec "$ns" env AMBER_CHAOS_NETNS="$ns" "$@"
status=$?
set -e
exit "$status"
