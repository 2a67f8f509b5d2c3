import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { QueueHandles } from './queue-handles.ts';

export const BULL_BOARD_PATH = '/admin/queues';

/** Response headers of the board's own reply that the admin server sets itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * Bull Board on the admin port: every BullMQ queue of the service, its jobs
 * and dead letters. Read-only unless the admin port is guarded by a token
 * (then whoever opened it proved they may retry or remove jobs).
 *
 * Loaded on its first request, not at start (issue 31): Bull Board and its
 * Fastify adapter are ~7 MB of every service process's memory (4.5 MB of V8
 * heap, bench/footprint-imports.ts) for a page someone opens now and then, and
 * the queue handles it shows are made then too (an API process, which
 * samples no queue, loads BullMQ only for it).
 * The admin server routes `/admin/queues` and everything under it to a
 * Fastify instance of the board's own, made then, through `inject` (its
 * routes cannot be added to a server that is already listening); the admin
 * server's hooks (host check, token, headers) run first, as for any route.
 */
export async function registerBullBoard(
  admin: FastifyInstance,
  options: { queues: Pick<QueueHandles, 'get'>; readOnly: boolean },
): Promise<void> {
  let board: Promise<FastifyInstance> | undefined;
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    board ??= createBoard(options).catch((error: unknown) => {
      board = undefined;
      throw error;
    });
    const response = await (await board).inject({
      method: request.method as 'GET',
      url: request.url,
      headers: request.headers,
      ...(request.body === undefined ? {} : { payload: request.body as Buffer }),
    });
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
    }
    return reply.code(response.statusCode).send(response.rawPayload);
  };
  admin.addHook('onClose', async () => {
    await (await board?.catch(() => undefined))?.close();
  });
  await admin.register(async (scope) => {
    // The board parses its own bodies: they are handed on as they came.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    for (const url of [BULL_BOARD_PATH, `${BULL_BOARD_PATH}/*`]) scope.all(url, forward);
  });
}

/** The board itself, on a Fastify instance of its own that never listens. */
async function createBoard(options: {
  queues: Pick<QueueHandles, 'get'>;
  readOnly: boolean;
}): Promise<FastifyInstance> {
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }, queues] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/fastify'),
    options.queues.get(),
  ]);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: options.readOnly })),
    serverAdapter,
  });
  // The board's routes use Fastify's default JSON-schema compilers, not zod.
  const board = Fastify({ logger: false });
  board.setValidatorCompiler(() => () => true);
  board.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await board.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
  await board.ready();
  return board;
}
