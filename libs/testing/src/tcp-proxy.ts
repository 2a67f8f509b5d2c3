import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The port clients connect to (127.0.0.1). */
  readonly port: number;
  /** Connections accepted so far, and those refused while cut. */
  readonly stats: { accepted: number; refused: number };
  /** An outage: every open connection is reset and new ones are reset at once, until `restore()`. */
  cut(): void;
  restore(): void;
  readonly isCut: boolean;
  /** Holds every chunk this long before forwarding it, both ways (a slow network); 0: none. */
  delayMs: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free loopback port in front of a real server (Postgres,
 * Redis, SMTP), so a test can cut the connection at the moment it chooses
 * and give it back: the component under test sees resets and refusals as in
 * an outage or a failover, the server itself keeps running.
 */
export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const host = target.host ?? '127.0.0.1';
  const open = new Set<Socket>();
  const stats = { accepted: 0, refused: 0 };
  let isCut = false;
  let delayMs = 0;
  // Chunks keep their order: each waits for the same delay after the previous one.
  const relay = (from: Socket, to: Socket) => {
    let last = 0;
    from.on('data', (chunk: Buffer) => {
      if (delayMs <= 0 && last <= Date.now()) {
        to.write(chunk);
        return;
      }
      last = Math.max(Date.now() + delayMs, last);
      setTimeout(() => to.writable && to.write(chunk), last - Date.now());
    });
    from.on('end', () => {
      setTimeout(() => to.end(), Math.max(0, last - Date.now()));
    });
  };

  const server: Server = createServer((client) => {
    if (isCut) {
      stats.refused++;
      client.resetAndDestroy();
      return;
    }
    stats.accepted++;
    const upstream = createConnection({ host, port: target.port });
    open.add(client);
    open.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  return {
    port: (server.address() as AddressInfo).port,
    stats,
    cut() {
      isCut = true;
      for (const socket of [...open]) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      isCut = false;
    },
    get isCut() {
      return isCut;
    },
    get delayMs() {
      return delayMs;
    },
    set delayMs(ms: number) {
      delayMs = ms;
    },
    close: async () => {
      for (const socket of [...open]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
