// cdk-nag's AwsSolutions rule pack over the synthesized stack: no finding
// unless fixed, or acknowledged in src/nag.ts with a reason.
import { Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.ts';

function findings(context: Record<string, unknown> = {}) {
  const { stack } = synthesize(context);
  const report = new AwsSolutionsChecks(stack).validateScope(stack);
  return {
    stack,
    unacknowledged: report.violations.flatMap((v) =>
      v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath ?? r.resourceLogicalId}`),
    ),
  };
}

/** Every acknowledgement in the tree, with its reason. */
function acknowledgements(root: IConstruct): { id: string; reason: string; path: string }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          id,
          reason: String(reason),
          path: c.node.path,
        })),
      ),
  );
}

// Synthesized once for the first two tests (seconds of CPU each).
const single = findings();

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing that is neither fixed nor acknowledged with a reason', () => {
    const { stack, unacknowledged } = single;
    expect(unacknowledged).toEqual([]);
    const acks = acknowledgements(stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
  });

  it('has the VPC log rejected flows rather than acknowledging VPC7', () => {
    const { stack } = single;
    expect(acknowledgements(stack).map((a) => a.id)).not.toContain('AwsSolutions-VPC7');
  });

  it('runs at every synth: a finding nobody acknowledged fails it', () => {
    expect(() =>
      synthesize({ nag: 'on' }, {}, (stack) => {
        new sqs.Queue(stack, 'Unchecked');
      }),
    ).toThrow(/Validation failed|AwsSolutions-SQS/);
  });

  it('acknowledges single-AZ Postgres and Redis only when the stack is single-AZ', () => {
    const { stack, unacknowledged } = findings({ multiAz: 'true' });
    expect(unacknowledged).toEqual([]);
    const ids = acknowledgements(stack).map((a) => a.id);
    expect(ids).not.toContain('AwsSolutions-RDS3');
    expect(ids).not.toContain('AwsSolutions-AEC4');
  });
});
