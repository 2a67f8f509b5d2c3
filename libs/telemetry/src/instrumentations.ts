import { builtinModules } from 'node:module';
import { context } from '@opentelemetry/api';
import type { Instrumentation, InstrumentationBase } from '@opentelemetry/instrumentation';
import { nameStatementSpan } from './statement-span.ts';

// The instrumentations Hireflow uses, each imported on its own and only when
// enabled: the auto-instrumentations package imported some forty of them
// (and their dependencies) to enable five, about 40 MB of every process.

type Env = Record<string, string | undefined>;

/** What `OTEL_NODE_ENABLED_INSTRUMENTATIONS` can name; all five unless it says otherwise. */
export const INSTRUMENTATIONS = ['http', 'pg', 'ioredis', 'aws-sdk', 'pino'] as const;
export type InstrumentationName = (typeof INSTRUMENTATIONS)[number];

const factories: Record<InstrumentationName, () => Promise<Instrumentation>> = {
  http: async () => {
    const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
    return new HttpInstrumentation({
      // Probes and scrapes would otherwise fill Jaeger; what they run is untraced too.
      ignoreIncomingRequestHook: (req) => isPolledPath(req.url),
      // The services' only HTTP calls are the AWS SDK's, which has spans of its own:
      // client spans repeated them, twice over (node:http is patched by both loaders).
      disableOutgoingRequestInstrumentation: true,
    });
  },
  pg: async () => {
    const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg');
    return new PgInstrumentation({
      // A poll (outbox, samplers, LISTEN) is no trace of its own.
      requireParentSpan: true,
      // Taking a pooled connection is no step worth a span (it was one per query).
      ignoreConnectSpans: true,
      // `INSERT job_posting`, not `pg.query:hf_9e0b12d386ad90bbe98f hireflow_jobs`.
      requestHook: (span, { query }) => nameStatementSpan(span, query),
    });
  },
  ioredis: async () => {
    const { IORedisInstrumentation } = await import('@opentelemetry/instrumentation-ioredis');
    return new IORedisInstrumentation({
      // Commands only: arguments carry keys and payloads. A command outside
      // any operation (BullMQ's blocking waits) records nothing.
      dbStatementSerializer: (command) => command,
      requireParentSpan: true,
    });
  },
  'aws-sdk': async () => {
    const [{ AwsInstrumentation }, { isTracingSuppressed }] = await Promise.all([
      import('@opentelemetry/instrumentation-aws-sdk'),
      import('@opentelemetry/core'),
    ]);
    const instrumentation = new AwsInstrumentation();
    passUntracedCallsThrough(instrumentation, () => isTracingSuppressed(context.active()));
    return instrumentation;
  },
  pino: async () =>
    new (await import('@opentelemetry/instrumentation-pino')).PinoInstrumentation({
      // Log correlation only (trace_id and span_id on each line). By default it
      // also re-parsed every line written into an OpenTelemetry log record, for
      // a logs SDK that is not there (the lines go to stdout).
      disableLogSending: true,
    }),
};

/**
 * The enabled instrumentations, created (which hooks their modules' loading):
 * `OTEL_NODE_ENABLED_INSTRUMENTATIONS` (default all of `INSTRUMENTATIONS`)
 * less `OTEL_NODE_DISABLED_INSTRUMENTATIONS`, plus `@fastify/otel`, always.
 * A name outside the list is reported in `unknown` and otherwise ignored.
 */
export async function createInstrumentations(
  env: Env,
): Promise<{ instrumentations: Instrumentation[]; unknown: string[] }> {
  const list = (value: string | undefined) =>
    (value ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  const wanted = env.OTEL_NODE_ENABLED_INSTRUMENTATIONS
    ? list(env.OTEL_NODE_ENABLED_INSTRUMENTATIONS)
    : INSTRUMENTATIONS;
  const disabled = new Set(list(env.OTEL_NODE_DISABLED_INSTRUMENTATIONS));
  const known = (name: string): name is InstrumentationName =>
    (INSTRUMENTATIONS as readonly string[]).includes(name);
  const names = wanted.filter((name) => known(name) && !disabled.has(name)) as InstrumentationName[];
  const instrumentations = await Promise.all(names.map((name) => factories[name]()));
  const { FastifyOtelInstrumentation } = await import('@fastify/otel');
  instrumentations.push(
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      // The request and its handler; no span per lifecycle hook (auth, idempotency,
      // rate limit): what a hook does (its SQL, its Redis call) is a child of the request.
      instrumentHooks: false,
      ignorePaths: (route) => isPolledPath(route.url),
    }) as unknown as Instrumentation,
  );
  return { instrumentations, unknown: [...wanted, ...disabled].filter((name) => !known(name)) };
}

type Handler = (command: unknown) => unknown;
type ResolveMiddleware = (this: unknown, handler: unknown, executionContext: unknown) => unknown;
type ResolvePatch = (this: unknown, moduleVersion: unknown, original: ResolveMiddleware) => ResolveMiddleware;

/**
 * The AWS SDK instrumentation builds a request's attributes, a span, a
 * promise chain and its services' hooks (SQS, SNS: message attributes,
 * receive links) for every call, also when tracing is suppressed and the span
 * is a no-op: the SQS long polls, deletes, visibility heartbeats and SNS
 * publishes, every one of them `untraced()` ([tracing.md](../../../docs/tracing.md#quiet-when-idle)).
 * This resolves such a call's middleware as the SDK does without the
 * instrumentation; a call in a trace (media's S3 calls) is instrumented as
 * before. Nothing recorded changes: a suppressed call records no span and
 * injects no context either way. The hook is the instrumentation's own
 * patch of `MiddlewareStack.resolve`; a version without it is left as it is.
 */
export function passUntracedCallsThrough(instrumentation: object, suppressed: () => boolean): void {
  const target = instrumentation as { _getV3MiddlewareStackResolvePatch?: ResolvePatch };
  const traced = target._getV3MiddlewareStackResolvePatch;
  if (typeof traced !== 'function') return;
  target._getV3MiddlewareStackResolvePatch = function (moduleVersion, original) {
    const tracedResolve = traced.call(this, moduleVersion, original);
    return function resolve(this: unknown, handler, executionContext) {
      // Decided per call (a client with `cacheMiddleware` reuses a handler), each
      // way resolved once, when first taken: `send` resolves, then calls at once.
      let plain: Handler | undefined;
      let instrumented: Handler | undefined;
      return (command: unknown) => {
        if (suppressed()) {
          plain ??= original.call(this, handler, executionContext) as Handler;
          return plain(command);
        }
        instrumented ??= tracedResolve.call(this, handler, executionContext) as Handler;
        return instrumented(command);
      };
    };
  };
}

/** The modules the instrumentations patch (`pg`, `http`, `@smithy/smithy-client` …). */
export function instrumentedModules(instrumentations: Instrumentation[]): string[] {
  // @fastify/otel patches nothing (it hooks Fastify's diagnostics channel): no definitions.
  const definitions = (i: Instrumentation) =>
    (i as Partial<Pick<InstrumentationBase, 'getModuleDefinitions'>>).getModuleDefinitions?.() ?? [];
  return instrumentations.flatMap((i) => definitions(i).map((d) => d.name));
}

/**
 * The ESM loader hook's `include` list: the built-in modules an instrumentation
 * patches (`http`, `https`), nothing else. A built-in's exports are read from
 * the module itself; wrapping a package's file meant lexing its source, which
 * instantiated import-in-the-middle's WebAssembly lexers (cjs-module-lexer for
 * CommonJS, es-module-lexer for ESM), ~3.5 MB of each process's RSS for the
 * five files it wrapped (pg, ioredis and pino's entries). The packages are
 * patched through require-in-the-middle instead, as they are `require`d: pg
 * requires its client and pg-pool, the AWS SDK's CommonJS clients their
 * middleware stack and client; ioredis and pino, which only ESM imports reached,
 * are `require`d by the modules that use them (`libs/messaging`'s and
 * `libs/runtime`'s), see docs/tracing.md ("What a process loads").
 */
export function loaderHookInclude(modules: string[]): string[] {
  return modules.filter((name) => builtinModules.includes(name));
}

/**
 * Paths machines poll: health probes, Prometheus scrapes, and the API Bull
 * Board's page polls while it is open. Their requests record no span.
 */
export function isPolledPath(url: string | undefined): boolean {
  if (!url) return false;
  return (
    url.startsWith('/health') ||
    url === '/metrics' ||
    url.startsWith('/metrics?') ||
    url.startsWith('/admin/queues/api')
  );
}
