import { awsEndpointUrl, awsRegion, topologyPrefix } from '@hireflow/config';
import { z } from 'zod';
import type { AwsSettings } from './aws.ts';

/** The AWS part of every process's config schema. */
export const awsConfigSchema = z.object({
  AWS_REGION: awsRegion(),
  AWS_ENDPOINT_URL: awsEndpointUrl(),
  HIREFLOW_TOPOLOGY_PREFIX: topologyPrefix(),
});

/**
 * Client settings from parsed config. With an endpoint (the emulator) and no
 * credentials in the environment, dummy credentials: the SDK must never walk
 * its provider chain to the EC2 metadata address from a developer machine.
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
