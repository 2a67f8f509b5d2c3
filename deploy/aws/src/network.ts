// Two availability zones: public subnets for the load balancer and the NAT
// gateway, private subnets with egress for the tasks (AWS APIs, the mail
// provider), isolated subnets for Postgres and Redis, which need no way out.
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The VPC's range: the load balancer's addresses are in it, so the API tasks trust its X-Forwarded-For (TRUST_PROXY). */
export const VPC_CIDR = '10.40.0.0/16';

export class Network extends Construct {
  readonly vpc: ec2.Vpc;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr(VPC_CIDR),
      maxAzs: 2,
      // One NAT gateway (~$35/month plus traffic): losing its zone stops
      // egress until it is back. Two double the price; see docs/deploy.md.
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'app', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
        { name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
      ],
      gatewayEndpoints: {
        // Free, and media's image bytes then never pay NAT processing.
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
      },
    });
    // Rejected traffic only (cdk-nag AwsSolutions-VPC7): what a security group
    // or network ACL refused is the signal; accepted flows would cost per GB.
    this.vpc.addFlowLog('RejectedFlows', {
      trafficType: ec2.FlowLogTrafficType.REJECT,
      destination: ec2.FlowLogDestination.toCloudWatchLogs(
        new logs.LogGroup(this, 'RejectedFlowsLogs', { retention: logs.RetentionDays.ONE_MONTH }),
      ),
    });
  }

  /**
   * The public addresses every connection out of the private subnets comes
   * from: the NAT gateways' Elastic IPs (one today). Webhook deliveries leave
   * through them, so a consumer can allow-list them (docs/webhooks.md). They
   * stay as long as the stack keeps its NAT gateways.
   */
  get egressIps(): string[] {
    return this.vpc.publicSubnets.flatMap((subnet) => {
      const eip = subnet.node.tryFindChild('EIP');
      return eip instanceof ec2.CfnEIP ? [eip.attrPublicIp] : [];
    });
  }

  /** The range allowed to reach admin ports: the VPC itself (a scraper inside it), never the internet. */
  get internalPeer(): ec2.IPeer {
    return ec2.Peer.ipv4(this.vpc.vpcCidrBlock);
  }
}
