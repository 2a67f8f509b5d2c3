import { createRequire } from 'node:module';
import { scrubUrl } from '@hireflow/telemetry';
import type * as Pino from 'pino';
import type { Logger, LoggerOptions } from 'pino';

// `require`d, not imported: the telemetry preload's pino instrumentation puts
// the active span's `trace_id` and `span_id` on each line by replacing pino's
// factory, which require-in-the-middle hands to a `require`. An ESM import
// would get the factory unpatched: the preload's ESM hook wraps no package
// (docs/tracing.md, "What a process loads").
const { pino } = createRequire(import.meta.url)('pino') as typeof Pino;

export type { Logger };

/** pino options shared by every service: JSON lines, service name, secrets redacted. */
function loggerOptions(service: string, level: string): LoggerOptions {
  return {
    level,
    base: { service },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.password'],
      censor: '[redacted]',
    },
    serializers: {
      // Request logs keep the path and the query's parameter names, never their
      // values (`?recipient=<an email>`); no headers.
      req: (req: { method?: string; url?: string; ip?: string; socket?: { remoteAddress?: string } }) => ({
        method: req.method,
        url: scrubUrl(req.url ?? ''),
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
      }),
    },
  };
}

/**
 * The one logger of a process (`runService` makes it and passes it on: to
 * Fastify, the worker role, the libraries). Components take `log.child(...)`.
 */
export function createLogger(service: string, level: string): Logger {
  return pino(loggerOptions(service, level));
}

/** A logger that writes nothing: for apps built only to be described (`describeRoutes`), never served. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
