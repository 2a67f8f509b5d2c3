import type { FastifyInstance } from 'fastify';
import { withTimeout } from './timeout.ts';

export type ReadinessCheck = () => Promise<void>;

export interface HealthOptions {
  /** Named dependency checks for /health/ready (postgres, redis, sqs…). */
  checks: Record<string, ReadinessCheck>;
  timeoutMs?: number;
  /** False while shutting down, so load balancers stop sending traffic first. */
  accepting?: () => boolean;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<string> {
  try {
    await withTimeout(check(), timeoutMs);
    return 'ok';
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** `/health/live`: the process answers. `/health/ready`: every dependency answers. */
export function registerHealthRoutes(app: FastifyInstance, options: HealthOptions): void {
  const timeoutMs = options.timeoutMs ?? 2000;
  app.get('/health/live', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/health/ready', { logLevel: 'warn' }, async (_request, reply) => {
    const names = Object.keys(options.checks);
    const results = await Promise.all(names.map((name) => runCheck(options.checks[name]!, timeoutMs)));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
    const accepting = options.accepting?.() ?? true;
    const ready = accepting && results.every((r) => r === 'ok');
    reply.code(ready ? 200 : 503);
    return { status: ready ? 'ready' : accepting ? 'not ready' : 'shutting down', checks };
  });
}
