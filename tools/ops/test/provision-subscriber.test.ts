import { spawnSync } from 'node:child_process';
import { PublishCommand } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, GetQueueUrlCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { topology } from '@hireflow/contracts';
import { provisionTopology } from '@hireflow/ops';
import { type TestAws, testAws, uniqueName, waitFor } from '@hireflow/testing';
import { sampleEvent } from '@hireflow/testing/samples';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

// `pnpm provision --subscriber`: the inbox of a service outside this
// repository, on the same topics as the services' own, filtered on its types.
// Each test starts the command as a process (seconds each on a loaded machine).
const CLI = new URL('../src/cli/provision.ts', import.meta.url).pathname;

function provision(prefix: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      AWS_ENDPOINT_URL: inject('awsEndpoint'),
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      HIREFLOW_TOPOLOGY_PREFIX: prefix,
    },
  });
}

describe('pnpm provision --subscriber', () => {
  let aws: TestAws;
  beforeAll(() => {
    aws = testAws();
  });
  afterAll(() => aws.close());

  it('creates its inbox and DLQ on the topics the system publishes to, receiving its types only', async () => {
    const prefix = `${uniqueName('ext')}-`;
    const system = await provisionTopology(topology, { sns: aws.sns, sqs: aws.sqs, prefix });
    const run = provision(prefix, '--subscriber', 'analytics', '--events', 'job.posted.v1,match.found.v1');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`queue ${prefix}analytics-inbox -> `);
    expect(run.stdout).toContain(`(dlq ${prefix}analytics-inbox-dlq)`);
    expect(run.stdout).toContain(
      'subscription jobs-events -> analytics-inbox filter {"type":["job.posted.v1"]}',
    );
    expect(run.stdout).toContain(
      'subscription matching-events -> analytics-inbox filter {"type":["match.found.v1"]}',
    );
    expect(
      provision(prefix, '--subscriber', 'analytics', '--events', 'job.posted.v1,match.found.v1').status,
    ).toBe(0);

    const url = (await aws.sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}analytics-inbox` })))
      .QueueUrl!;
    const attributes = await aws.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
    );
    expect(JSON.parse(attributes.Attributes!.RedrivePolicy!).deadLetterTargetArn).toMatch(
      /analytics-inbox-dlq$/,
    );

    const wanted = sampleEvent('job.posted.v1');
    const other = sampleEvent('job.closed.v1');
    for (const event of [other, wanted]) {
      await aws.sns.send(
        new PublishCommand({
          TopicArn: system.topics['jobs-events']!.arn,
          Message: JSON.stringify(event),
          MessageAttributes: { type: { DataType: 'String', StringValue: event.type } },
        }),
      );
    }
    const bodies: string[] = [];
    await waitFor(
      async () => {
        const got = await aws.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        bodies.push(...(got.Messages ?? []).map((m) => m.Body!));
        return bodies.some((body) => body.includes(wanted.id));
      },
      { timeoutMs: 30_000, intervalMs: 100, message: 'job.posted.v1 in the subscriber inbox' },
    );
    expect(bodies.map((body) => JSON.parse(body).type)).toEqual(['job.posted.v1']);
  }, 180_000);

  it('refuses a name of ours or an unknown type, naming the field, creating nothing', async () => {
    const prefix = `${uniqueName('ext-bad')}-`;
    const run = provision(prefix, '--subscriber', 'media', '--events', 'job.posted.v1,job.exploded.v1');
    expect(run.status).toBe(64);
    expect(run.stderr).toContain('name: media is taken by Hireflow itself');
    expect(run.stderr).toContain('events: job.exploded.v1 is not an event type of the catalog');
    expect(provision(prefix, '--subscriber', 'crm').stderr).toContain('events: name at least one event type');
    await expect(
      aws.sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}media-inbox` })),
    ).rejects.toThrow();
  }, 180_000);
});
