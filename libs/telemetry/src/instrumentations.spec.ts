import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { isTracingSuppressed, suppressTracing } from '@opentelemetry/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createInstrumentations,
  instrumentedModules,
  loaderHookInclude,
  passUntracedCallsThrough,
} from './instrumentations.ts';
import { startTestTracing } from './testing.ts';

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
  it('names the built-in modules patched, no package: a package would be lexed by WebAssembly', () => {
    expect(
      loaderHookInclude(['https', 'http', 'pg', 'pg-pool', 'ioredis', '@smithy/smithy-client', 'pino']),
    ).toEqual(['https', 'http']);
  });
});

describe('passUntracedCallsThrough (the AWS SDK instrumentation)', () => {
  // The instrumentation's own per-call patch of the SDK's MiddlewareStack.resolve, as the SDK calls it.
  const setUp = async () => {
    const { AwsInstrumentation } = await import('@opentelemetry/instrumentation-aws-sdk');
    const instrumentation = new AwsInstrumentation();
    created.push(instrumentation);
    passUntracedCallsThrough(instrumentation, () => isTracingSuppressed(context.active()));
    const internals = instrumentation as unknown as {
      servicesExtensions: { requestPreSpanHook: (...args: unknown[]) => unknown };
      _getV3MiddlewareStackResolvePatch: (
        version: string,
        original: (handler: Handler) => Handler,
      ) => (this: unknown, handler: Handler, executionContext: object) => Handler;
    };
    const hooked = vi.spyOn(internals.servicesExtensions, 'requestPreSpanHook');
    // The SDK's resolve without any instrumentation: the handler itself.
    const resolve = internals._getV3MiddlewareStackResolvePatch('3.1000.0', (handler) => handler);
    const handler: Handler = async () => ({ output: { $metadata: { httpStatusCode: 200 } } });
    const send = () =>
      resolve.call({}, handler, { clientName: 'S3Client', commandName: 'PutObjectCommand' })({
        input: { Bucket: 'logos', Key: 'k' },
      });
    return { hooked, send };
  };
  type Handler = (command: unknown) => Promise<unknown>;

  it('leaves a call with tracing suppressed to the SDK alone (no request attributes, no span, no hooks)', async () => {
    const tracing = startTestTracing();
    try {
      const { hooked, send } = await setUp();
      await context.with(suppressTracing(ROOT_CONTEXT), send);
      expect(hooked).not.toHaveBeenCalled();
      expect(tracing.exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await tracing.stop();
    }
  });

  it('still records a call in a trace', async () => {
    const tracing = startTestTracing();
    try {
      const { hooked, send } = await setUp();
      await trace.getTracer('spec').startActiveSpan('request', async (span) => {
        await send();
        span.end();
      });
      expect(hooked).toHaveBeenCalledTimes(1);
      const spans = tracing.exporter.getFinishedSpans();
      expect(spans.map((s) => s.instrumentationScope.name)).toContain(
        '@opentelemetry/instrumentation-aws-sdk',
      );
    } finally {
      await tracing.stop();
    }
  });
});
