// The AWS SDK clients every service and tool makes, with the same settings:
// region, an endpoint locally (the emulator), timeouts, and dummy credentials
// against the emulator, so the SDK never walks its provider chain to the EC2
// metadata address from a developer machine.
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsEndpointUrl, awsRegion, topologyPrefix } from '@hireflow/config';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { z } from 'zod';

/** The AWS part of every process's config schema. */
export const awsConfigSchema = z.object({
  AWS_REGION: awsRegion(),
  AWS_ENDPOINT_URL: awsEndpointUrl(),
  HIREFLOW_TOPOLOGY_PREFIX: topologyPrefix(),
});

export interface AwsSettings {
  region: string;
  /** Set locally (the emulator); unset on AWS. */
  endpoint?: string | undefined;
  /** Use dummy credentials (locally, against the emulator, when the environment has none). */
  dummyCredentials?: boolean;
}

/**
 * Client settings from parsed config. With an endpoint (the emulator) and no
 * credentials in the environment, dummy credentials.
 */
export function awsSettings(
  config: z.output<typeof awsConfigSchema>,
  env: Record<string, string | undefined>,
): AwsSettings {
  return {
    region: config.AWS_REGION,
    endpoint: config.AWS_ENDPOINT_URL,
    dummyCredentials: config.AWS_ENDPOINT_URL !== undefined && !env.AWS_ACCESS_KEY_ID,
  };
}

/** What every client shares: region, endpoint, credentials, and bounded connect and request times. */
/** What every AWS client of a service is built with (region, endpoint, credentials, timeouts). */
export function clientConfig(settings: AwsSettings, requestTimeout: number) {
  return {
    region: settings.region,
    endpoint: settings.endpoint,
    credentials: settings.dummyCredentials ? { accessKeyId: 'test', secretAccessKey: 'test' } : undefined,
    // Without throwOnRequestTimeout, @smithy/node-http-handler 4.x only logs
    // when requestTimeout passes and keeps waiting (test/aws-timeout.test.ts).
    requestHandler: new NodeHttpHandler({
      connectionTimeout: 3000,
      requestTimeout,
      throwOnRequestTimeout: true,
    }),
  };
}

export function createSqsClient(settings: AwsSettings): SQSClient {
  // Above the 20 s long poll; a hung call must not hold a consumer forever.
  return new SQSClient(clientConfig(settings, 30_000));
}

export function createSnsClient(settings: AwsSettings): SNSClient {
  // A hung publish would hold the relay's row locks and its close().
  return new SNSClient(clientConfig(settings, 10_000));
}
