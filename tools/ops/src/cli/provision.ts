// `pnpm provision`: applies the topology to the SNS/SQS/S3 endpoint in
// AWS_ENDPOINT_URL (or AWS itself when unset). Idempotent; prints the result.
// `pnpm provision --subscriber <name> --events a,b`: only the inbox (and DLQ,
// filter policy) of a subscriber outside this repository (docs/subscribing.md).
import { parseArgs } from 'node:util';
import { parseConfig } from '@hireflow/config';
import {
  type EventType,
  externalSubscriberProblems,
  externalSubscriberTopology,
  type Topology,
  topology,
} from '@hireflow/contracts';
import { awsConfigSchema, awsSettings, createSnsClient, createSqsClient } from '@hireflow/runtime/aws';
import { createS3Client } from '@hireflow/runtime/s3';
import { provisionTopology } from '../provision.ts';

const USAGE = 'usage: pnpm provision [--subscriber <name> --events job.posted.v1,candidate.registered.v1]';
let args: { subscriber?: string | undefined; events?: string | undefined };
try {
  args = parseArgs({ options: { subscriber: { type: 'string' }, events: { type: 'string' } } }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(64);
}
let target: Topology = topology;
if (args.subscriber !== undefined || args.events !== undefined) {
  const subscriber = {
    name: args.subscriber ?? '',
    events: (args.events ?? '').split(',').filter(Boolean) as EventType[],
  };
  const problems = externalSubscriberProblems(subscriber);
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    console.error(USAGE);
    process.exit(64);
  }
  target = externalSubscriberTopology(subscriber);
}

const config = parseConfig(awsConfigSchema, process.env);
const settings = awsSettings(config, process.env);
const sns = createSnsClient(settings);
const sqs = createSqsClient(settings);
const s3 = createS3Client(settings);
try {
  const result = await provisionTopology(target, { sns, sqs, s3, prefix: config.HIREFLOW_TOPOLOGY_PREFIX });
  for (const q of Object.values(result.queues))
    console.log(`queue ${q.name} -> ${q.url} (dlq ${q.dlq.name})`);
  for (const t of Object.values(result.topics)) console.log(`topic ${t.name} -> ${t.arn}`);
  for (const b of Object.values(result.buckets)) console.log(`bucket ${b}`);
  console.log(`${result.subscriptions.length} subscriptions`);
  for (const sub of target === topology ? [] : result.subscriptions)
    console.log(`subscription ${sub.topic} -> ${sub.queue} filter ${sub.filterPolicy}`);
} finally {
  sns.destroy();
  sqs.destroy();
  s3.destroy();
}
