// The relay and the consumer of `pnpm bench messaging` in a process of their
// own, as they run in production (the relay in the producing service's worker
// role, the consumer in the consuming service), for the bench's
// "production shape" variant: the producers commit in the bench's process,
// the emulator runs in a third one. Forked by messaging.bench.ts with IPC;
// it counts the events its handler sees and says when a phase has seen all.
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createDatabase } from '@hireflow/db';
import { OutboxRelay, outboxMigrations, SnsPublisher, SqsConsumer } from '@hireflow/messaging';
import { benchClientConfig } from './messaging-split.ts';

export interface PipelineSetup {
  databaseUrl: string;
  region: string;
  endpoint: string;
  topicArn: string;
  queue: { name: string; url: string; dlq: { url: string } };
}

/** Parent → child: a phase expecting `count` events (the relay started first when asked); stop the relay; end. */
export type PipelineCommand =
  | { cmd: 'phase'; count: number; startRelay: boolean }
  | { cmd: 'stop-relay' }
  | { cmd: 'close' };

/** Child → parent: ready (after setup or a phase's start), a phase's end, the relay stopped. */
export type PipelineReply = { kind: 'ready' } | { kind: 'done' } | { kind: 'stopped' };

const setup = JSON.parse(process.env.BENCH_PIPELINE_SETUP ?? '{}') as PipelineSetup;
const send = (reply: PipelineReply) => process.send?.(reply);

const sns = new SNSClient(benchClientConfig(setup.region, setup.endpoint));
const sqs = new SQSClient(benchClientConfig(setup.region, setup.endpoint));
// The bench's process migrated the database already.
const orm = createDatabase({
  url: setup.databaseUrl,
  migrations: outboxMigrations,
});
// Warm the pool as the bench's process has: the first phase should not pay the connects.
await orm.em.fork().execute('SELECT 1');

let seen = new Set<string>();
let expected = Number.POSITIVE_INFINITY;
const consumer = new SqsConsumer({
  sqs,
  queue: setup.queue,
  waitTimeSeconds: 1,
  handlers: {
    'job.closed.v1': (event) => {
      seen.add(event.id);
      if (seen.size === expected) {
        expected = Number.POSITIVE_INFINITY;
        send({ kind: 'done' });
      }
    },
  },
});
await consumer.start();
let relay: OutboxRelay | undefined;

process.on('message', (message: PipelineCommand) => {
  void (async () => {
    if (message.cmd === 'phase') {
      seen = new Set();
      expected = message.count;
      if (message.startRelay && !relay) {
        relay = new OutboxRelay({
          orm,
          publisher: new SnsPublisher(sns),
          topicArns: { 'jobs-events': setup.topicArn },
        });
        await relay.start();
      }
      send({ kind: 'ready' });
    } else if (message.cmd === 'stop-relay') {
      await relay?.close();
      relay = undefined;
      send({ kind: 'stopped' });
    } else {
      await relay?.close();
      await consumer.close();
      await orm.close();
      sns.destroy();
      sqs.destroy();
      process.disconnect();
    }
  })();
});
send({ kind: 'ready' });
