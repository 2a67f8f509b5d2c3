import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ReplayInputError } from './plan.ts';

/** The queue a replay sends to: its full name (topology prefix + logical name) and URL. */
export async function replayTarget(
  sqs: SQSClient,
  prefix: string,
  queue: string,
): Promise<{ name: string; url: string }> {
  const name = `${prefix}${queue}`;
  try {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    return { name, url: QueueUrl! };
  } catch (error) {
    if (
      (error as Error).name === 'QueueDoesNotExist' ||
      (error as Error).name === 'AWS.SimpleQueueService.NonExistentQueue'
    ) {
      throw new ReplayInputError(
        `the queue ${name} does not exist: is the topology provisioned there (pnpm provision, or pnpm start), and is HIREFLOW_TOPOLOGY_PREFIX right?`,
      );
    }
    throw error;
  }
}
