import type { FastifyInstance } from 'fastify';
import type { Logger } from './logger.ts';
import { withTimeout } from './timeout.ts';

export type ReadinessCheck = () => Promise<void>;

export interface HealthOptions {
  /** Named dependency checks for /health/ready (postgres, redis, sqs…). */
  checks: Record<string, ReadinessCheck>;
  timeoutMs?: number;
  /** The checks run at most once per this period, whatever the number of probes (default 1 s). */
  cacheMs?: number;
  /** False while shutting down, so load balancers stop sending traffic first. */
  accepting?: () => boolean;
  log?: Logger;
}

type Outcome = 'ok' | 'error';

/**
 * `/health/live`: the process answers. `/health/ready`: every dependency
 * answers. The probe is unauthenticated, so it answers only `ok`/`error` per
 * dependency (the cause goes to the log) and runs the checks at most once per
 * `cacheMs`: a flood of probes costs the dependencies nothing more.
 */
export function registerHealthRoutes(app: FastifyInstance, options: HealthOptions): void {
  const timeoutMs = options.timeoutMs ?? 2000;
  const cacheMs = options.cacheMs ?? 1000;
  const names = Object.keys(options.checks);
  let last: { at: number; results: Promise<Outcome[]> } | undefined;

  const runCheck = async (name: string): Promise<Outcome> => {
    try {
      await withTimeout(options.checks[name]!(), timeoutMs);
      return 'ok';
    } catch (error) {
      options.log?.warn({ check: name, err: error }, 'readiness check failed');
      return 'error';
    }
  };
  const results = (): Promise<Outcome[]> => {
    const now = Date.now();
    if (!last || now - last.at >= cacheMs) {
      last = { at: now, results: Promise.all(names.map(runCheck)) };
    }
    return last.results;
  };

  app.get('/health/live', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/health/ready', { logLevel: 'warn' }, async (_request, reply) => {
    const outcomes = await results();
    const checks = Object.fromEntries(names.map((name, i) => [name, outcomes[i]!]));
    const accepting = options.accepting?.() ?? true;
    const ready = accepting && outcomes.every((r) => r === 'ok');
    reply.code(ready ? 200 : 503).header('cache-control', 'no-store');
    return { status: ready ? 'ready' : accepting ? 'not ready' : 'shutting down', checks };
  });
}
