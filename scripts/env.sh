# Source me: `source scripts/env.sh`. Bootstraps Node 24 + pnpm if needed and
# puts them first on PATH for this shell only.
_hf_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
sh "$_hf_root/scripts/bootstrap.sh" && . "$_hf_root/.toolchain/env.sh"
unset _hf_root
