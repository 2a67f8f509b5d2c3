import { buildApp } from 'fauxqs';

export interface Emulator {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the SNS/SQS/S3 emulator (fauxqs) on loopback only. Its own
 * `startFauxqs` binds 0.0.0.0; by default this machine's emulator must not be
 * reachable from elsewhere (a container sets host 0.0.0.0 explicitly). State is in memory: what is queued is gone on restart.
 */
export async function startEmulator(options: {
  port?: number;
  host?: string;
  region: string;
}): Promise<Emulator> {
  const app = buildApp({ logger: false, defaultRegion: options.region });
  const host = options.host ?? '127.0.0.1';
  const address = await app.listen({ port: options.port ?? 0, host });
  const port = Number(new URL(address).port);
  return {
    endpoint: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    port,
    stop: () => app.close(),
  };
}
