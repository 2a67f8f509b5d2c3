import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export interface AwsSettings {
  region: string;
  /** Set locally (the emulator); unset on AWS. */
  endpoint?: string | undefined;
  /**
   * Use dummy credentials (locally, against the emulator, when the environment
   * has none): the SDK must never walk its provider chain to the EC2 metadata
   * address from a developer machine.
   */
  dummyCredentials?: boolean;
}

function credentials(settings: AwsSettings) {
  return settings.dummyCredentials ? { accessKeyId: 'test', secretAccessKey: 'test' } : undefined;
}

export function createSqsClient(settings: AwsSettings): SQSClient {
  return new SQSClient({
    region: settings.region,
    endpoint: settings.endpoint,
    credentials: credentials(settings),
    // Above the 20 s long poll; a hung call must not hold a consumer forever.
    requestHandler: new NodeHttpHandler({ connectionTimeout: 3000, requestTimeout: 30_000 }),
  });
}

export function createSnsClient(settings: AwsSettings): SNSClient {
  return new SNSClient({
    region: settings.region,
    endpoint: settings.endpoint,
    credentials: credentials(settings),
    // A hung publish would hold the relay's row locks and its close().
    requestHandler: new NodeHttpHandler({ connectionTimeout: 3000, requestTimeout: 10_000 }),
  });
}
