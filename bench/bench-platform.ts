// A platform of a bench's own for spawned service processes: the emulator
// with the topology provisioned under a prefix of the run, an OTLP sink, one
// database per service (dropped at the end) and the environment each service
// process gets (benchServiceEnv). Used by `pnpm bench footprint` and the SSE
// part of `pnpm bench capacity`.
import { topology } from '@hireflow/contracts';
import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { provisionTopology } from '@hireflow/ops';
import { createSnsClient, createSqsClient } from '@hireflow/runtime';
import { createS3Client } from '@hireflow/runtime/s3';
import { benchServiceEnv } from './footprint-processes.ts';
import { startOtlpSink } from './tracing-system.ts';

const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

export interface BenchPlatform {
  /** Each service's database URL, in the order given. */
  databases: string[];
  /** A service process's environment; `redisPrefix` defaults to one per service and run. */
  env(service: string, redisPrefix?: string): Record<string, string>;
  close(): Promise<void>;
}

/** Starts the emulator and the sink, provisions the topology, creates each service's database (`hfbench_<label>_<service>_<suffix>`). */
export async function startBenchPlatform(
  services: readonly string[],
  label: string,
  suffix: string,
): Promise<BenchPlatform> {
  const emulator = await startEmulator({ region: REGION });
  const sink = await startOtlpSink();
  const databases = services.map((service) => `${SERVER}/hfbench_${label}_${service}_${suffix}`);
  const close = async () => {
    await sink.close();
    await emulator.stop();
    for (const url of databases) await dropDatabase(url).catch(() => undefined);
  };
  try {
    const aws = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
    const clients = { sns: createSnsClient(aws), sqs: createSqsClient(aws), s3: createS3Client(aws) };
    const provisioned = await provisionTopology(topology, { ...clients, prefix: `${label}-${suffix}-` });
    for (const client of Object.values(clients)) client.destroy();
    for (const url of databases) await ensureDatabase(url);
    return {
      databases,
      env: (service, redisPrefix) =>
        benchServiceEnv({
          service,
          region: REGION,
          emulator: emulator.endpoint,
          otlp: sink.endpoint,
          database: databases[services.indexOf(service)]!,
          redisPrefix: redisPrefix ?? `bench:${label}${suffix}:${service}`,
          topologyPrefix: provisioned.prefix,
        }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
