import { buildApp } from 'fauxqs';

export interface Emulator {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the SNS/SQS/S3 emulator (fauxqs) on loopback only. Its own
 * `startFauxqs` binds 0.0.0.0; this machine's emulator must not be reachable
 * from elsewhere. State is in memory: what is queued is gone on restart.
 */
export async function startEmulator(options: { port?: number; region: string }): Promise<Emulator> {
  const app = buildApp({ logger: false, defaultRegion: options.region });
  const address = await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () => app.close(),
  };
}
