// The deliberately broken build of a chaos run (`pnpm chaos --broken
// skip-http-claim`), loaded into each service with `--import` by the harness
// only: it rewrites a module's source as it loads, so the code under test
// stays untouched and no production path reads the flag.
import { registerHooks } from 'node:module';

const BREAKS: Record<string, { file: string; from: string; to: string }> = {
  // The public POSTs' Idempotency-Key is never claimed: a retried request runs again.
  'skip-http-claim': {
    file: '/libs/idempotency/src/http-plugin.ts',
    from: "const header = request.headers['idempotency-key'];",
    to: 'const header = undefined;',
  },
};

const name = process.env.CHAOS_BROKEN ?? '';
const broken = BREAKS[name];
if (!broken)
  throw new Error(`CHAOS_BROKEN: no such break "${name}" (known: ${Object.keys(BREAKS).join(', ')})`);

registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (!url.endsWith(broken.file)) return loaded;
    const source = String(loaded.source);
    if (!source.includes(broken.from))
      throw new Error(`CHAOS_BROKEN=${name}: ${broken.file} changed, the break no longer applies`);
    return { ...loaded, source: source.replace(broken.from, broken.to) };
  },
});

export const BROKEN_BUILDS = Object.keys(BREAKS);
