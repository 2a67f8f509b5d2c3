import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board on the admin port: every BullMQ queue of the service, its jobs
 * and dead letters. Read-only unless the admin port is guarded by a token
 * (then whoever opened it proved they may retry or remove jobs).
 */
export async function registerBullBoard(
  admin: FastifyInstance,
  options: { queues: Queue[]; readOnly: boolean },
): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: options.queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: options.readOnly })),
    serverAdapter,
  });
  // Its own context: the board's routes use Fastify's default JSON-schema compilers, not zod.
  await admin.register(async (scope) => {
    scope.setValidatorCompiler(() => () => true);
    scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
    await scope.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
  });
}
