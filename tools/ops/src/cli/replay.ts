// `pnpm replay --to <queue> [--types t1,t2] [--since T] [--until T] [--dry-run] [--rate n] [--checkpoint f] [--fresh]`
// Reads the producers' event logs (their admin ports) and sends the events,
// ids and trace context unchanged, straight to one consumer queue
// (docs/replay.md). Against AWS_ENDPOINT_URL (or AWS), or the `pnpm start`
// running from HIREFLOW_STATE_DIR.
import { join, resolve } from 'node:path';
import { ConfigError, parseConfig } from '@hireflow/config';
import { laneQueue, type ServiceName, topology } from '@hireflow/contracts';
import { awsSettings, createSqsClient } from '@hireflow/runtime/aws';
import { instanceNames } from '../instance/names.ts';
import { findRunning } from '../instance/running.ts';
import {
  adminEventLog,
  CheckpointFile,
  defaultAdminUrl,
  parseReplayArgs,
  planReplay,
  REPLAY_USAGE,
  type ReplayArgs,
  type ReplayConfig,
  replayConfigSchema,
  replayEvents,
  replayTarget,
} from '../replay/index.ts';

const root = resolve(import.meta.dirname, '../../../..');

let args: ReplayArgs;
let config: ReplayConfig;
try {
  args = parseReplayArgs(process.argv.slice(2));
  if (args.help) {
    console.log(REPLAY_USAGE);
    process.exit(0);
  }
  config = parseConfig(replayConfigSchema, process.env);
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `${(error as Error).message}\n${REPLAY_USAGE}`,
  );
  process.exit(error instanceof ConfigError ? 78 : 64);
}

const names = instanceNames(config, root);
// A `pnpm start` running from this state dir knows its admin ports and emulator.
const running = await findRunning(names.stateDir);
const configured: Partial<Record<ServiceName, string | undefined>> = {
  jobs: config.JOBS_ADMIN_URL,
  matching: config.MATCHING_ADMIN_URL,
  media: config.MEDIA_ADMIN_URL,
};
const adminUrl = (service: ServiceName): string =>
  configured[service] ?? running?.admin?.[service] ?? defaultAdminUrl(service);
const endpoint = config.AWS_ENDPOINT_URL ?? running?.urls['sns/sqs'];
const sqs = createSqsClient(awsSettings({ ...config, AWS_ENDPOINT_URL: endpoint }, process.env));

const controller = new AbortController();
const onSignal = () => {
  if (controller.signal.aborted) process.exit(130);
  console.error('replay: stopping after the batches in flight (again to quit at once)');
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

try {
  const plan = planReplay(topology, { queue: args.queue, types: args.types });
  // Into the consumer's bulk lane queue (docs/fairness.md): a replay waits behind no one's posting.
  const queue = await replayTarget(sqs, names.topologyPrefix, laneQueue(topology, plan.queue, 'bulk'));
  const checkpoint = new CheckpointFile(
    args.checkpoint ? resolve(args.checkpoint) : join(names.stateDir, 'replay', `${queue.name}.json`),
  );
  const sources = plan.sources.map(({ producer }) =>
    adminEventLog({ producer, adminUrl: adminUrl(producer), adminToken: config.ADMIN_TOKEN }),
  );
  const from = plan.sources.map((s) => `${s.producer} (${s.types.join(', ')})`).join(', ');
  console.log(
    `${args.dryRun ? 'dry run: would replay' : 'replaying'} ${from} into ${queue.name}` +
      `${args.since ? ` since ${args.since.toISOString()}` : ''}${args.dryRun ? '' : args.rate > 0 ? `, at most ${args.rate} events/s` : ', unpaced'}`,
  );
  let lastPrint = 0;
  const summary = await replayEvents({
    sqs,
    queue,
    plan,
    sources,
    since: args.since,
    until: args.until,
    ratePerSecond: args.rate,
    dryRun: args.dryRun,
    checkpoint,
    fresh: args.fresh,
    signal: controller.signal,
    onProgress: (p) => {
      if (Date.now() - lastPrint < 1000) return;
      lastPrint = Date.now();
      const sent = args.dryRun ? 'none sent (dry run)' : `${p.sent} sent, ${p.eventsPerSecond}/s`;
      console.log(`  ${p.producer}: ${p.read} read, ${sent}`);
    },
    // A dry run lists each event by id, type, time and subject: never its data (names, addresses, key hashes).
    onEvents: (items, outcome) => {
      if (outcome !== 'listed') return;
      for (const { event, position } of items)
        console.log(
          `  ${position.padStart(8)} ${event.time} ${event.type.padEnd(24)} ${event.id} ${event.subject ?? ''}`,
        );
    },
  });
  const byType = Object.entries(summary.byType)
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
  const seconds = (summary.elapsedMs / 1000).toFixed(1);
  const events = (n: number) => `${n} event${n === 1 ? '' : 's'}`;
  if (summary.dryRun)
    console.log(`would send ${events(summary.read)} (${byType || 'none'}) until ${summary.until}`);
  else if (summary.interrupted) {
    console.log(
      `interrupted after ${events(summary.sent)} in ${seconds} s: run the same command again to resume (checkpoint ${checkpoint.path})`,
    );
    process.exitCode = 130;
  } else {
    console.log(
      `${summary.resumed ? 'resumed and finished: ' : ''}sent ${events(summary.sent)} (${byType || 'none'}) to ${queue.name} in ${seconds} s, ${summary.eventsPerSecond}/s; events up to ${summary.until}`,
    );
  }
} catch (error) {
  const err = error as Error & { code?: string };
  const hint =
    err.name === 'CredentialsProviderError' && !endpoint
      ? ` (no AWS_ENDPOINT_URL, and no pnpm start running from ${names.stateDir}: start it, or set AWS_ENDPOINT_URL for an emulator, or AWS credentials for AWS)`
      : '';
  console.error(`replay: ${err.message}${hint}`);
  process.exitCode = err.name === 'ReplayInputError' ? 64 : 1;
} finally {
  sqs.destroy();
}
