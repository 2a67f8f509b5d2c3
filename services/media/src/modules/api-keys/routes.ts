import type { Database } from '@hireflow/db';
import { HttpProblem } from '@hireflow/runtime';
import type { FastifyInstance } from 'fastify';
import { describeKey } from './store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Admin port: whether media's projection knows a key. `pnpm start` asks it
 * for the demo key and announces the keys again when media is behind.
 */
export function registerApiKeyInternalRoutes(admin: FastifyInstance, options: { orm: Database }): void {
  admin.get<{ Params: { keyId: string } }>('/internal/api-keys/:keyId', async (request) => {
    const { keyId } = request.params;
    const known = UUID.test(keyId) ? await describeKey(options.orm.em.fork(), keyId) : null;
    if (!known) throw new HttpProblem(404, 'NOT_FOUND', `media knows no API key ${keyId}`);
    return known;
  });
}
