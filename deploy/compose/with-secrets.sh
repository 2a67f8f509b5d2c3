#!/bin/sh
# The services' entrypoint in docker-compose.yml: the secrets the `secrets`
# one-shot generated, unless the environment sets them (it wins), then the
# command.
set -eu
dir=/run/hireflow-secrets
for name in ADMIN_TOKEN UNSUBSCRIBE_SIGNING_KEY APIKEY_EVENT_KEY; do
  eval "given=\${$name:-}"
  if [ -z "$given" ]; then
    export "$name=$(cat "$dir/$name")"
  fi
done
exec "$@"
