#!/bin/sh
# The `secrets` one-shot of docker-compose.yml: generates the stack's secrets
# once, into the hireflow-secrets volume (the compose project's state
# directory), one file per variable; later runs keep them. No published
# default (docs/security.md, API8).
set -eu
dir=/run/hireflow-secrets
umask 022
for name in ADMIN_TOKEN UNSUBSCRIBE_SIGNING_KEY APIKEY_EVENT_KEY; do
  if [ ! -s "$dir/$name" ]; then
    node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('base64url'))" > "$dir/$name.new"
    mv "$dir/$name.new" "$dir/$name"
    echo "generated $name"
  fi
done
