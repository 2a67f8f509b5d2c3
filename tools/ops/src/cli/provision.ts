// `pnpm provision`: applies the topology to the SNS/SQS/S3 endpoint in
// AWS_ENDPOINT_URL (or AWS itself when unset). Idempotent; prints the result.
import { parseConfig } from '@hireflow/config';
import { topology } from '@hireflow/contracts';
import { awsConfigSchema, awsSettings, createSnsClient, createSqsClient } from '@hireflow/runtime/aws';
import { createS3Client } from '@hireflow/runtime/s3';
import { provisionTopology } from '../provision.ts';

const config = parseConfig(awsConfigSchema, process.env);
const settings = awsSettings(config, process.env);
const sns = createSnsClient(settings);
const sqs = createSqsClient(settings);
const s3 = createS3Client(settings);
try {
  const result = await provisionTopology(topology, { sns, sqs, s3, prefix: config.HIREFLOW_TOPOLOGY_PREFIX });
  for (const q of Object.values(result.queues))
    console.log(`queue ${q.name} -> ${q.url} (dlq ${q.dlq.name})`);
  for (const t of Object.values(result.topics)) console.log(`topic ${t.name} -> ${t.arn}`);
  for (const b of Object.values(result.buckets)) console.log(`bucket ${b}`);
  console.log(`${result.subscriptions.length} subscriptions`);
} finally {
  sns.destroy();
  sqs.destroy();
  s3.destroy();
}
