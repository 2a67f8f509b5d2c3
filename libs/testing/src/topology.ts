import type { S3Client } from '@aws-sdk/client-s3';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { topology as defaultTopology, type Topology } from '@hireflow/contracts';
import { type ProvisionedTopology, provisionTopology } from '@hireflow/ops';
import { createSnsClient, createSqsClient } from '@hireflow/runtime/aws';
import { createS3Client } from '@hireflow/runtime/s3';
import { inject } from 'vitest';
import { uniqueName } from './names.ts';

// The provisioned names, for tests of what the ops tools depend on (messaging), which cannot import them back.
export type { ProvisionedQueue, ProvisionedTopology } from '@hireflow/ops';

export interface TestAws {
  endpoint: string;
  region: string;
  sns: SNSClient;
  sqs: SQSClient;
  s3: S3Client;
  close(): void;
}

/** SNS/SQS clients for the emulator that the global setup started. */
export function testAws(): TestAws {
  const endpoint = inject('awsEndpoint');
  const region = 'eu-west-1';
  const settings = { region, endpoint, dummyCredentials: true };
  const sns = createSnsClient(settings);
  const sqs = createSqsClient(settings);
  const s3 = createS3Client(settings);
  return {
    endpoint,
    region,
    sns,
    sqs,
    s3,
    close: () => {
      sns.destroy();
      sqs.destroy();
      s3.destroy();
    },
  };
}

/** Provisions the topology (or a test's own) under a unique prefix owned by the calling test. */
export async function testTopology(
  aws: TestAws,
  label: string,
  topology: Topology = defaultTopology,
): Promise<ProvisionedTopology> {
  return provisionTopology(topology, {
    sns: aws.sns,
    sqs: aws.sqs,
    s3: aws.s3,
    prefix: `${uniqueName(label)}-`,
  });
}
