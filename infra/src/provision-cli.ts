// `pnpm provision`: applies the topology to the SNS/SQS endpoint in
// AWS_ENDPOINT_URL (or AWS itself when unset). Idempotent; prints the result.
import { parseConfig } from '@hireflow/config';
import { z } from 'zod';
import { createSnsClient, createSqsClient } from './aws.ts';
import { awsConfigSchema, awsSettings } from './aws-config.ts';
import { provisionTopology } from './provision.ts';
import { topology } from './topology.ts';

const schema = z.object({ ...awsConfigSchema.shape });
const config = parseConfig(schema, process.env);
const settings = awsSettings(config, process.env);
const sns = createSnsClient(settings);
const sqs = createSqsClient(settings);
const result = await provisionTopology(topology, { sns, sqs, prefix: config.HIREFLOW_TOPOLOGY_PREFIX });
for (const q of Object.values(result.queues)) console.log(`queue ${q.name} -> ${q.url} (dlq ${q.dlq.name})`);
for (const t of Object.values(result.topics)) console.log(`topic ${t.name} -> ${t.arn}`);
console.log(`${result.subscriptions.length} subscriptions`);
sns.destroy();
sqs.destroy();
