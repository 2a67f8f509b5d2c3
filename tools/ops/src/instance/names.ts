// One `pnpm start` instance's names: what a second instance (a test, the
// chaos soak, `pnpm burst`) changes so that it never touches the first's
// databases, queues, Redis keys or state. The launcher gives them; the
// operations tools (replay, dlq) find an instance's things by them.
import { resolve } from 'node:path';
import { z } from 'zod';

/** The variables that pick an instance, shared by the launcher and the tools that read its state. */
export const instanceSchema = z.object({
  HIREFLOW_INSTANCE: z
    .string()
    .regex(/^[a-z0-9]*$/, 'must contain only lowercase letters and digits')
    .max(20, 'must be at most 20 characters')
    .default('')
    .describe('Runs a separate copy: its own databases, topic/queue prefix, Redis prefix and state dir.'),
  HIREFLOW_STATE_DIR: z
    .string()
    .min(1)
    .default('.local')
    .describe('Where the launcher keeps its pid file, mail and demo key.'),
});

export interface InstanceSettings {
  HIREFLOW_INSTANCE: string;
  HIREFLOW_STATE_DIR: string;
  /** The AWS settings' topic/queue prefix; empty: the instance's own (`<instance>-`). */
  HIREFLOW_TOPOLOGY_PREFIX: string;
  /** The Postgres server of the instance's databases (only `databaseUrl` needs it). */
  POSTGRES_URL?: string | undefined;
}

/** The Redis prefix `pnpm start` gives a service of an instance. */
export const redisPrefixFor = (instance: string, service: string) =>
  instance ? `hf-${instance}:${service}` : `hf:${service}`;

/** The names one instance uses, so a second instance (tests) never touches the first's. */
export function instanceNames(settings: InstanceSettings, root: string) {
  const instance = settings.HIREFLOW_INSTANCE;
  const database = (service: string) =>
    instance ? `hireflow_${instance}_${service}` : `hireflow_${service}`;
  return {
    topologyPrefix: settings.HIREFLOW_TOPOLOGY_PREFIX || (instance ? `${instance}-` : ''),
    database,
    redisPrefix: (service: string) => redisPrefixFor(instance, service),
    databaseUrl: (service: string) => {
      if (!settings.POSTGRES_URL) throw new Error('databaseUrl needs POSTGRES_URL');
      const url = new URL(settings.POSTGRES_URL);
      url.pathname = `/${database(service)}`;
      return url.toString();
    },
    stateDir: resolve(root, settings.HIREFLOW_STATE_DIR, instance || 'default'),
  };
}
