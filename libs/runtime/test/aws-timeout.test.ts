import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnsClient } from '../src/aws.ts';

// Found by the chaos soak (docs/chaos.md): @smithy/node-http-handler 4.x only
// logs a warning when `requestTimeout` passes unless `throwOnRequestTimeout`
// is set, so a call to an endpoint that accepted the connection and never
// answered (a frozen emulator, a black-holed network) held its caller for
// good: a consumer's receive, the relay's publish with its row locks.
describe('AWS clients against an endpoint that never answers', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let port: number;

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('gives up at the request timeout instead of waiting for ever', async () => {
    const sns = createSnsClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${port}`,
      dummyCredentials: true,
    });
    // One attempt through the client's own handler (the SDK would retry a timeout twice more).
    const handler = sns.config.requestHandler as { handle(request: unknown): Promise<unknown> };
    const started = Date.now();
    const call = handler.handle({
      protocol: 'http:',
      hostname: '127.0.0.1',
      port,
      method: 'POST',
      path: '/',
      query: {},
      headers: { host: `127.0.0.1:${port}` },
    });
    const outcome = await Promise.race([
      call.then(
        () => 'answered',
        (error: Error) => error.name,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 15_000)),
    ]);
    sns.destroy();
    // 10 s: the SNS client's request timeout.
    expect(outcome).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
  }, 30_000);
});
