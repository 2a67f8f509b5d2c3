import { afterEach, describe, expect, it } from 'vitest';
import { createInstrumentations, instrumentedModules, loaderHookInclude } from './instrumentations.ts';

let created: { disable(): void }[] = [];
afterEach(() => {
  for (const instrumentation of created) instrumentation.disable();
  created = [];
});
const create = async (env: Record<string, string>) => {
  const result = await createInstrumentations(env);
  created = result.instrumentations;
  return { names: result.instrumentations.map((i) => i.instrumentationName), unknown: result.unknown };
};

describe('createInstrumentations', () => {
  it('creates the five and @fastify/otel by default, fewer as the variables say, and names what it cannot create', async () => {
    expect((await create({})).names).toEqual([
      '@opentelemetry/instrumentation-http',
      '@opentelemetry/instrumentation-pg',
      '@opentelemetry/instrumentation-ioredis',
      '@opentelemetry/instrumentation-aws-sdk',
      '@opentelemetry/instrumentation-pino',
      '@fastify/otel',
    ]);
    expect(
      await create({
        OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'pg, ioredis,express',
        OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'ioredis',
      }),
    ).toEqual({ names: ['@opentelemetry/instrumentation-pg', '@fastify/otel'], unknown: ['express'] });
  });

  it('says which modules they patch, for the loader hook', async () => {
    await create({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'pg,http' });
    expect(instrumentedModules(created as never).sort()).toEqual(['http', 'https', 'pg', 'pg-pool']);
  });
});

describe('loaderHookInclude', () => {
  // As the hook matches: a string is a builtin's name, a regular expression is tested on the URL.
  const include = loaderHookInclude(['pg', 'http', '@smithy/smithy-client']);
  const wraps = (url: string) =>
    include.some((each) => (typeof each === 'string' ? `node:${each}` === url : each.test(url)));
  it('wraps the patched packages (any of their files) and builtins, nothing else', () => {
    expect(wraps('file:///r/node_modules/.pnpm/pg@8.23.0/node_modules/pg/lib/index.js')).toBe(true);
    expect(wraps('file:///r/node_modules/.pnpm/x/node_modules/@smithy/smithy-client/dist-es/client.js')).toBe(
      true,
    );
    expect(wraps('node:http')).toBe(true);
    expect(wraps('node:https')).toBe(false);
    expect(wraps('file:///r/node_modules/.pnpm/pg-pool@3/node_modules/pg-pool/index.js')).toBe(false);
    expect(wraps('file:///r/node_modules/.pnpm/x/node_modules/pg-types/index.js')).toBe(false);
    expect(wraps('file:///r/services/jobs/src/app.ts')).toBe(false);
  });
});
