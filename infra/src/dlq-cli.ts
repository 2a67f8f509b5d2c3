// `pnpm dlq`                    depth of every DLQ
// `pnpm dlq list <queue> [n]`   show up to n dead letters of <queue>-dlq (they stay)
// `pnpm dlq redrive <queue> [n]` move dead letters back to <queue>
// Against AWS_ENDPOINT_URL (or AWS), with HIREFLOW_TOPOLOGY_PREFIX.
import { parseConfig } from '@hireflow/config';
import { topology } from '@hireflow/contracts';
import { awsConfigSchema, awsSettings, createSqsClient } from '@hireflow/runtime/aws';
import { deadLetterDepths, peekDeadLetters, redriveDeadLetters } from './dlq.ts';

const [action, queue, count] = process.argv.slice(2);
const config = parseConfig(awsConfigSchema, process.env);
const sqs = createSqsClient(awsSettings(config, process.env));
const prefix = config.HIREFLOW_TOPOLOGY_PREFIX;
try {
  const queues = await deadLetterDepths(sqs, topology, prefix);
  if (!action) {
    for (const q of queues) console.log(`${q.dlq.padEnd(40)} ${q.depth}`);
    process.exitCode = queues.some((q) => q.depth > 0) ? 1 : 0;
  } else {
    const target = queues.find((q) => q.queue === prefix + queue || q.queue === queue);
    if (!target || (action !== 'list' && action !== 'redrive')) {
      console.error(
        `usage: pnpm dlq [list|redrive <queue> [n]]; queues: ${Object.keys(topology.queues).join(', ')}`,
      );
      process.exitCode = 64;
    } else if (action === 'list') {
      for (const m of await peekDeadLetters(sqs, target.dlqUrl, Number(count ?? 10))) {
        console.log(JSON.stringify(m));
      }
    } else {
      const moved = await redriveDeadLetters(sqs, target, count ? Number(count) : undefined);
      console.log(`moved ${moved} messages from ${target.dlq} to ${target.queue}`);
    }
  }
} finally {
  sqs.destroy();
}
