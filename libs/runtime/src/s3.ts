// The S3 client, in a module of its own: only media stores objects, so only
// media (and the tools that provision buckets) load @aws-sdk/client-s3, ~10 MB
// of a process that never calls it otherwise (test/role-modules.test.ts).
import { S3Client } from '@aws-sdk/client-s3';
import { type AwsSettings, clientConfig } from './aws.ts';

export function createS3Client(settings: AwsSettings): S3Client {
  // The emulator serves buckets by path, not by virtual host.
  return new S3Client({ ...clientConfig(settings, 30_000), forcePathStyle: settings.endpoint !== undefined });
}
