// Dead letters, SQS and BullMQ (docs/operations.md):
//
// `pnpm dlq`                                   depth of every DLQ and every BullMQ dead-letter set
// `pnpm dlq list <queue> [n]`                  up to n dead letters of <queue>-dlq (they stay)
// `pnpm dlq redrive <queue> [n] [--dry-run]`   move dead letters back to <queue>
// `pnpm dlq jobs <service>/<queue> [n]`        up to n BullMQ dead letters (oldest first)
// `pnpm dlq show <service>/<queue> <id>`       one of them in full
// `pnpm dlq retry <service>/<queue> [id…|--all] [--dry-run]`  run them again, attempts reset
//
// SQS against AWS_ENDPOINT_URL (or AWS) with HIREFLOW_TOPOLOGY_PREFIX; Redis
// at REDIS_URL with each service's prefix (REDIS_PREFIX_<SERVICE>, else what
// `pnpm start` uses: hf:<service>, or hf-<instance>:<service> with HIREFLOW_INSTANCE).
import { parseConfig } from '@hireflow/config';
import { SERVICE_NAMES, topology } from '@hireflow/contracts';
import { awsConfigSchema, awsSettings, createSqsClient } from '@hireflow/runtime/aws';
import { Redis } from 'ioredis';
import { deadJobQueue, deadJobSets, listDeadJobs, retryDeadJobs, showDeadJob } from '../dead-jobs.ts';
import { deadLetterDepths, peekDeadLetters, redriveDeadLetters } from '../dlq.ts';
import { dlqCliSchema, redisPrefixOf } from '../dlq-config.ts';

const USAGE = `usage:
  pnpm dlq                                    depth of every DLQ and BullMQ dead-letter set
  pnpm dlq list <queue> [n]                   show SQS dead letters (they stay)
  pnpm dlq redrive <queue> [n] [--dry-run]    move them back to <queue>
  pnpm dlq jobs <service>/<queue> [n]         show BullMQ dead letters
  pnpm dlq show <service>/<queue> <id>        one BullMQ dead letter in full
  pnpm dlq retry <service>/<queue> [id…|--all] [--dry-run]   run them again`;

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const all = args.includes('--all');
const [action, target, ...rest] = args.filter((a) => !a.startsWith('--'));
const config = parseConfig(dlqCliSchema.extend(awsConfigSchema.shape), process.env);
const prefix = config.HIREFLOW_TOPOLOGY_PREFIX;
const prefixes = SERVICE_NAMES.map((service) => redisPrefixOf(service, config));

const usage = (problem: string) => {
  console.error(`${problem}\n${USAGE}`);
  process.exitCode = 64;
};

async function sqsCommand() {
  const sqs = createSqsClient(awsSettings(config, process.env));
  try {
    const queues = await deadLetterDepths(sqs, topology, prefix);
    if (!action) return queues;
    const found = queues.find((q) => q.queue === prefix + target || q.queue === target);
    if (!found) return usage(`no queue ${target}; queues: ${Object.keys(topology.queues).join(', ')}`);
    const count = rest[0] ? Number(rest[0]) : undefined;
    if (action === 'list' || (action === 'redrive' && dryRun)) {
      for (const m of await peekDeadLetters(sqs, found.dlqUrl, count ?? 10)) console.log(JSON.stringify(m));
      if (dryRun) console.log(`dry run: nothing moved from ${found.dlq}`);
    } else {
      const moved = await redriveDeadLetters(sqs, found, count);
      console.log(`moved ${moved} messages from ${found.dlq} to ${found.queue}`);
    }
  } finally {
    sqs.destroy();
  }
}

async function jobsCommand(redis: Redis) {
  const [service, queueName] = (target ?? '').split('/');
  const known = SERVICE_NAMES.find((s) => s === service);
  const servicePrefix = known && redisPrefixOf(known, config);
  if (!servicePrefix || !queueName)
    return usage(`name a BullMQ queue as <service>/<queue>, e.g. notifications/email`);
  const queue = deadJobQueue(redis, servicePrefix, queueName);
  try {
    if (action === 'jobs') {
      for (const job of await listDeadJobs(queue, rest[0] ? Number(rest[0]) : 10))
        console.log(JSON.stringify(job));
    } else if (action === 'show') {
      const job = rest[0] && (await showDeadJob(queue, rest[0]));
      if (!job) return usage(`${target} has no dead letter ${rest[0] ?? '(no id given)'}`);
      console.log(JSON.stringify(job, null, 2));
    } else {
      if (rest.length === 0 && !all) return usage('name the jobs to retry, or --all');
      const retried = await retryDeadJobs(queue, { ...(all ? {} : { ids: rest }), dryRun });
      for (const job of retried) console.log(JSON.stringify(job));
      console.log(`${dryRun ? 'would retry' : 'retried'} ${retried.length} jobs of ${target}`);
    }
  } finally {
    await queue.close();
  }
}

const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
try {
  if (!action) {
    const queues = (await sqsCommand()) ?? [];
    await redis.connect();
    const jobs = await deadJobSets(redis, prefixes);
    for (const q of queues) console.log(`sqs     ${q.dlq.padEnd(40)} ${q.depth}`);
    for (const j of jobs) console.log(`bullmq  ${`${j.prefix}/${j.queue}`.padEnd(40)} ${j.depth}`);
    process.exitCode = queues.some((q) => q.depth > 0) || jobs.length > 0 ? 1 : 0;
  } else if (action === 'list' || action === 'redrive') {
    await sqsCommand();
  } else if (action === 'jobs' || action === 'show' || action === 'retry') {
    await redis.connect();
    await jobsCommand(redis);
  } else {
    usage(`unknown command ${action}`);
  }
} finally {
  redis.disconnect();
}
