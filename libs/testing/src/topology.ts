import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  createSnsClient,
  createSqsClient,
  topology as defaultTopology,
  type ProvisionedTopology,
  provisionTopology,
  type Topology,
} from '@hireflow/infra';
import { inject } from 'vitest';
import { uniqueName } from './names.ts';

export interface TestAws {
  endpoint: string;
  region: string;
  sns: SNSClient;
  sqs: SQSClient;
  close(): void;
}

/** SNS/SQS clients for the emulator that the global setup started. */
export function testAws(): TestAws {
  const endpoint = inject('awsEndpoint');
  const region = 'eu-west-1';
  const settings = { region, endpoint, dummyCredentials: true };
  const sns = createSnsClient(settings);
  const sqs = createSqsClient(settings);
  return {
    endpoint,
    region,
    sns,
    sqs,
    close: () => {
      sns.destroy();
      sqs.destroy();
    },
  };
}

/** Provisions the topology (or a test's own) under a unique prefix owned by the calling test. */
export async function testTopology(
  aws: TestAws,
  label: string,
  topology: Topology = defaultTopology,
): Promise<ProvisionedTopology> {
  return provisionTopology(topology, { sns: aws.sns, sqs: aws.sqs, prefix: `${uniqueName(label)}-` });
}
