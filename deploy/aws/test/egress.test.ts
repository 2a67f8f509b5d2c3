// Webhook deliveries leave through the NAT gateways: their Elastic IPs are the
// addresses a consumer allow-lists, and the stack says which (docs/webhooks.md).
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.ts';
import { resourcesOfType, type TemplateJson } from './template.ts';

const { template } = synthesize();
const json = template.toJSON() as TemplateJson & { Outputs: Record<string, { Value: unknown }> };

describe('egress addresses', () => {
  it("outputs EgressIps: the public IP of each NAT gateway's Elastic IP", () => {
    const eips = resourcesOfType(json, 'AWS::EC2::EIP').map(([id]) => id);
    const nats = resourcesOfType(json, 'AWS::EC2::NatGateway');
    expect(eips.length).toBeGreaterThan(0);
    expect(nats.map(([, nat]) => nat.Properties.AllocationId)).toEqual(
      eips.map((id) => ({ 'Fn::GetAtt': [id, 'AllocationId'] })),
    );
    const ips = eips.map((id) => ({ 'Fn::GetAtt': [id, 'PublicIp'] }));
    // One NAT gateway today: CloudFormation gets its address without a join of one.
    expect(json.Outputs.EgressIps?.Value).toEqual(ips.length === 1 ? ips[0] : { 'Fn::Join': [',', ips] });
  });
});
