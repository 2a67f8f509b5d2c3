// `node infra/src/aws/cli.ts [--prefix <p>] [--alarm-topic-arn <arn>] > stack.json`
// prints the topology's CloudFormation template. infra/aws/stack.json is its
// committed output (no options); infra/test/aws-stack.test.ts fails when stale.
import { parseArgs } from 'node:util';
import { topologyPrefix } from '@hireflow/config';
import { topology } from '@hireflow/contracts';
import { generateCloudFormation } from './cloudformation.ts';

const USAGE = 'usage: node infra/src/aws/cli.ts [--prefix <prefix>] [--alarm-topic-arn <arn>] > stack.json';

function main(args: string[]): number {
  let values: { prefix?: string; 'alarm-topic-arn'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        prefix: { type: 'string' },
        'alarm-topic-arn': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const prefix = topologyPrefix().safeParse(values.prefix ?? '');
  if (!prefix.success) {
    console.error(`--prefix ${prefix.error.issues.map((issue) => issue.message).join(', ')}`);
    return 2;
  }
  try {
    const template = generateCloudFormation(topology, {
      prefix: prefix.data,
      alarmTopicArn: values['alarm-topic-arn'],
    });
    process.stdout.write(`${JSON.stringify(template, null, 2)}\n`);
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
