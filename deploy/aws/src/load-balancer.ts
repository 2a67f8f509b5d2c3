// The one public entry point: an internet-facing ALB whose listener sends each
// public route to its service's API role and answers everything else 404.
// Only service ports are ever targets; admin ports are never behind it.
import { Duration } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Construct } from 'constructs';

export interface PublicEntryProps {
  vpc: ec2.IVpc;
  /** HTTPS on 443 (and a redirect from 80) when given; plain HTTP on 80 otherwise. */
  certificateArn?: string | undefined;
}

const NOT_FOUND = JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404 });

export class PublicEntry extends Construct {
  readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  readonly listener: elbv2.ApplicationListener;
  readonly scheme: 'http' | 'https';
  #priority = 0;

  constructor(scope: Construct, id: string, props: PublicEntryProps) {
    super(scope, id);
    this.loadBalancer = new elbv2.ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc: props.vpc,
      internetFacing: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      dropInvalidHeaderFields: true,
      // SSE streams send a comment every 15 s; a minute of silence is a dead client.
      idleTimeout: Duration.seconds(60),
    });
    const defaultAction = elbv2.ListenerAction.fixedResponse(404, {
      contentType: 'application/json',
      messageBody: NOT_FOUND,
    });
    if (props.certificateArn) {
      this.scheme = 'https';
      this.listener = this.loadBalancer.addListener('Https', {
        port: 443,
        protocol: elbv2.ApplicationProtocol.HTTPS,
        certificates: [elbv2.ListenerCertificate.fromArn(props.certificateArn)],
        sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
        defaultAction,
      });
      this.loadBalancer.addRedirect({ sourcePort: 80, targetPort: 443 });
    } else {
      this.scheme = 'http';
      this.listener = this.loadBalancer.addListener('Http', {
        port: 80,
        protocol: elbv2.ApplicationProtocol.HTTP,
        defaultAction,
      });
    }
  }

  get dnsUrl(): string {
    return `${this.scheme}://${this.loadBalancer.loadBalancerDnsName}`;
  }

  /**
   * Routes `paths` to the service port of `service`, healthy when
   * `/health/ready` answers 200. An ALB rule takes at most 5 path patterns:
   * more make more rules to the same target group.
   */
  route(
    id: string,
    service: ecs.FargateService,
    port: number,
    paths: string[],
  ): elbv2.ApplicationTargetGroup {
    const [first, ...rest] = chunks(paths, MAX_PATTERNS_PER_RULE);
    this.#priority += 10;
    const group = this.listener.addTargets(id, {
      priority: this.#priority,
      conditions: [elbv2.ListenerCondition.pathPatterns(first ?? [])],
      port,
      protocol: elbv2.ApplicationProtocol.HTTP,
      targets: [service.loadBalancerTarget({ containerName: 'app', containerPort: port })],
      healthCheck: {
        path: '/health/ready',
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 3,
      },
      // A stopping task answers ready 503 at once and drains in SHUTDOWN_TIMEOUT_MS (25 s).
      deregistrationDelay: Duration.seconds(30),
    });
    rest.forEach((more, i) => {
      this.#priority += 10;
      this.listener.addTargetGroups(`${id}${i + 2}`, {
        priority: this.#priority,
        conditions: [elbv2.ListenerCondition.pathPatterns(more)],
        targetGroups: [group],
      });
    });
    return group;
  }
}

/** AWS's limit of condition values in one listener rule. */
const MAX_PATTERNS_PER_RULE = 5;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
