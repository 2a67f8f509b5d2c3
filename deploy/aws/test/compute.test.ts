// The services on ECS: one Fargate service per service and role, the public
// routes on the load balancer, admin ports never public, and an environment
// each service's own config accepts in production.
import { existsSync, readFileSync } from 'node:fs';
import { describePublicServices } from '@hireflow/api-docs';
import { loadConfig as jobsConfig } from '@hireflow/jobs/config';
import { loadConfig as matchingConfig } from '@hireflow/matching/config';
import { loadConfig as mediaConfig } from '@hireflow/media/config';
import { loadConfig as notificationsConfig } from '@hireflow/notifications/config';
import { describe, expect, it } from 'vitest';
import {
  adminPortOf,
  capacityFor,
  deploymentPlan,
  type ServicePlan,
  SMTP_URL_PLACEHOLDER,
} from '../src/index.ts';
import { synthesize } from './synth.ts';
import {
  type ResourceJson,
  referencedIds,
  refOf,
  resource,
  resourcesOfType,
  type TemplateJson,
} from './template.ts';

const { template } = synthesize();
const json = template.toJSON() as TemplateJson;
const root = new URL('../../../', import.meta.url);
const loaders = {
  jobs: jobsConfig,
  matching: matchingConfig,
  notifications: notificationsConfig,
  media: mediaConfig,
};
const plans = deploymentPlan as Record<string, ServicePlan>;

interface Container {
  Name: string;
  Environment: { Name: string; Value: unknown }[];
  Secrets: { Name: string; ValueFrom: unknown }[];
  PortMappings: { ContainerPort: number }[];
  HealthCheck: { Command: string[] };
  StopTimeout: number;
}

interface Deployed {
  serviceId: string;
  service: ResourceJson;
  task: ResourceJson;
  app: Container;
  env: Record<string, unknown>;
}

/** Each ECS service with its task definition and its app container's environment. */
const deployed: Deployed[] = resourcesOfType(json, 'AWS::ECS::Service').map(([serviceId, service]) => {
  const task = resource(json, refOf(service.Properties.TaskDefinition));
  const app = task.Properties.ContainerDefinitions.find((c: Container) => c.Name === 'app') as Container;
  const env = Object.fromEntries(app.Environment.map((e) => [e.Name, e.Value]));
  return { serviceId, service, task, app, env };
});

/** A stand-in for what CloudFormation resolves at deploy time. */
function resolved(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { Ref?: string; 'Fn::Join'?: [string, unknown[]]; 'Fn::GetAtt'?: [string, string] };
  if (v.Ref === 'AWS::Region') return 'eu-west-1';
  if (v.Ref) return `ref-${v.Ref.toLowerCase()}`;
  if (v['Fn::GetAtt']) return `${v['Fn::GetAtt'][0].toLowerCase()}.example.com`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(resolved).join(v['Fn::Join'][0]);
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

/** Values of the shape each secret holds on AWS. */
function secretValues(service: string): Record<string, string> {
  return {
    DATABASE_URL: `postgres://hireflow:password@db.example.com:5432/hireflow_${service}`,
    REDIS_URL: 'rediss://:token@redis.example.com:6379',
    ADMIN_TOKEN: 'a'.repeat(48),
    SMTP_URL: SMTP_URL_PLACEHOLDER,
    UNSUBSCRIBE_SIGNING_KEY: 'k'.repeat(64),
    APIKEY_EVENT_KEY: 'e'.repeat(64),
  };
}

/** ALB path pattern semantics: `*` any run of characters, `?` one. */
const pathMatches = (pattern: string, path: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(path);

describe('Fargate services', () => {
  it('one per service and role: an API where the service has public routes, a worker for each', () => {
    const roles = deployed.map((d) => `${d.env.SERVICE}/${d.env.ROLE}`).sort();
    const expected = Object.entries(plans).flatMap(([name, plan]) => [
      ...(plan.api ? [`${name}/api`] : []),
      `${name}/worker`,
    ]);
    expect(roles).toEqual(expected.sort());
    expect(roles).not.toContain('matching/api');
  });

  it("give each process an environment its service's config accepts in production", () => {
    for (const { env, app } of deployed) {
      const service = env.SERVICE as keyof typeof loaders;
      const values = secretValues(service);
      const variables: Record<string, string> = Object.fromEntries(
        Object.entries(env).map(([name, value]) => [name, resolved(value)]),
      );
      for (const secret of app.Secrets) variables[secret.Name] = values[secret.Name]!;
      const config = loaders[service](variables);
      expect(config).toMatchObject({
        NODE_ENV: 'production',
        ROLE: env.ROLE,
        PORT: plans[service]!.port,
        ADMIN_PORT: adminPortOf(plans[service]!),
        ADMIN_HOST: '0.0.0.0',
        HOST: '0.0.0.0',
      });
      // The SDK uses the regional endpoints and the task role.
      expect(config.AWS_ENDPOINT_URL).toBeUndefined();
      expect(config.DATABASE_URL).toMatch(new RegExp(`/hireflow_${service}$`));
      // ECS waits this long after SIGTERM before SIGKILL: longer than the service's own drain.
      expect(app.StopTimeout * 1000).toBeGreaterThan(config.SHUTDOWN_TIMEOUT_MS);
      expect(app.HealthCheck.Command).toEqual(['CMD', 'hireflow', 'health', 'live']);
      // Every span to the sidecar, which samples whole traces (test/collector.test.ts).
      expect(env).toMatchObject({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
      expect(env.OTEL_TRACES_SAMPLER).toBeUndefined();
    }
  });

  it('hand the secrets over from Secrets Manager, each service its own database URL', () => {
    for (const { env, app } of deployed) {
      const names = app.Secrets.map((s) => s.Name).sort();
      const extra =
        env.SERVICE === 'notifications'
          ? ['SMTP_URL', 'UNSUBSCRIBE_SIGNING_KEY']
          : ['jobs', 'media'].includes(String(env.SERVICE))
            ? ['APIKEY_EVENT_KEY']
            : [];
      expect(names).toEqual(['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL', ...extra].sort());
      for (const name of Object.keys(env)) expect(name).not.toMatch(/TOKEN|PASSWORD|SECRET|KEY$/);
      const url = resource(json, refOf(app.Secrets.find((s) => s.Name === 'DATABASE_URL')!.ValueFrom));
      const composed = JSON.stringify(url.Properties.SecretString);
      expect(composed).toContain(`/hireflow_${env.SERVICE}`);
      expect(composed).toContain('{{resolve:secretsmanager:');
    }
  });

  it('API2/API8: tell the API tasks to believe X-Forwarded-For from the VPC only (the load balancer), and notifications its public unsubscribe base and the per-tenant email quota of the plan', () => {
    for (const { env } of deployed) {
      const service = String(env.SERVICE);
      expect(env.TRUST_PROXY, service).toBe(plans[service]!.api ? '10.40.0.0/16' : undefined);
      expect(env.UNSUBSCRIBE_BASE_URL, service).toBe(
        service === 'notifications' ? 'https://api.example.com' : undefined,
      );
      // The model's quota for the default profile, never the service's default of 1,000 (which the
      // small board's largest tenant passes every day).
      expect(env.TENANT_DAILY_EMAIL_QUOTA, service).toBe(
        service === 'notifications' ? String(capacityFor().tenantDailyEmailQuota) : undefined,
      );
    }
    const vpc = resourcesOfType(json, 'AWS::EC2::VPC')[0]![1];
    expect(vpc.Properties.CidrBlock).toBe('10.40.0.0/16');
  });

  it('tell media its bucket, and media and jobs the https public URL of the variants', () => {
    for (const { env } of deployed) {
      expect('MEDIA_BUCKET' in env, String(env.SERVICE)).toBe(env.SERVICE === 'media');
      expect('MEDIA_PUBLIC_URL' in env, String(env.SERVICE)).toBe(
        ['media', 'jobs'].includes(String(env.SERVICE)),
      );
      if ('MEDIA_PUBLIC_URL' in env) expect(env.MEDIA_PUBLIC_URL).toMatch(/^https:\/\//);
    }
    const media = deployed.find((d) => d.env.SERVICE === 'media')!;
    const [bucketId] = resourcesOfType(json, 'AWS::S3::Bucket')[0]!;
    expect(refOf(media.env.MEDIA_BUCKET)).toBe(bucketId);
  });
});

describe('the load balancer', () => {
  const rules = resourcesOfType(json, 'AWS::ElasticLoadBalancingV2::ListenerRule').map(([, rule]) => {
    const groupId = refOf(rule.Properties.Actions[0].TargetGroupArn);
    const owner = deployed.find((d) =>
      (d.service.Properties.LoadBalancers ?? []).some(
        (lb: { TargetGroupArn: unknown }) => refOf(lb.TargetGroupArn) === groupId,
      ),
    )!;
    const patterns = rule.Properties.Conditions.flatMap(
      (c: { PathPatternConfig?: { Values: string[] } }) => c.PathPatternConfig?.Values ?? [],
    );
    return { owner, group: resource(json, groupId), patterns: patterns as string[] };
  });

  it("routes each service's public paths to its API role's service port, healthy on /health/ready", () => {
    // A rule holds at most 5 patterns (AWS's limit): a service with more has more rules, one target group.
    for (const { patterns } of rules) expect(patterns.length).toBeLessThanOrEqual(5);
    expect([...new Set(rules.map((r) => `${r.owner.env.SERVICE}/${r.owner.env.ROLE}`))].sort()).toEqual(
      Object.entries(plans)
        .filter(([, p]) => p.api)
        .map(([name]) => `${name}/api`)
        .sort(),
    );
    for (const { owner, group } of rules) {
      const plan = plans[owner.env.SERVICE as string]!;
      const patterns = rules.filter((r) => r.owner === owner).flatMap((r) => r.patterns);
      expect(patterns).toEqual(plan.api!.routes);
      expect(group.Properties).toMatchObject({
        Port: plan.port,
        HealthCheckPath: '/health/ready',
        TargetType: 'ip',
      });
      const [binding] = owner.service.Properties.LoadBalancers;
      expect(binding).toMatchObject({ ContainerName: 'app', ContainerPort: plan.port });
    }
  });

  it('sends every path of the public API document to the service that serves it and no other', async () => {
    const parts = await describePublicServices();
    let checked = 0;
    for (const [name, part] of Object.entries(parts)) {
      for (const path of Object.keys(part.paths)) {
        const concrete = path.replace(/\{[^}]+\}/g, 'x');
        const owners = rules
          .filter((r) => r.patterns.some((p) => pathMatches(p, concrete)))
          .map((r) => r.owner.env.SERVICE);
        expect(owners, path).toEqual([name]);
        checked++;
      }
    }
    expect(checked).toBe(
      Object.keys(JSON.parse(readFileSync(new URL('docs/api/openapi.json', root), 'utf8')).paths).length,
    );
    // The one-click unsubscribe links and the contact-confirmation links reach notifications.
    for (const link of ['/v1/unsubscribe', '/v1/contacts/confirm'])
      expect(
        rules.filter((r) => r.patterns.some((p) => pathMatches(p, link))).map((r) => r.owner.env.SERVICE),
        link,
      ).toEqual(['notifications']);
    // And nothing administrative is ever public.
    for (const r of rules)
      for (const path of ['/metrics', '/admin/queues', '/internal/x', '/health/ready'])
        expect(r.patterns.some((p) => pathMatches(p, path))).toBe(false);
  }, 60_000);

  it('answers anything else 404 and has no other targets', () => {
    const [, listener] = resourcesOfType(json, 'AWS::ElasticLoadBalancingV2::Listener')[0]!;
    expect(listener.Properties.DefaultActions[0]).toMatchObject({
      Type: 'fixed-response',
      FixedResponseConfig: { StatusCode: '404' },
    });
    expect(resourcesOfType(json, 'AWS::ElasticLoadBalancingV2::TargetGroup')).toHaveLength(
      new Set(rules.map((r) => r.owner)).size,
    );
  });
});

describe('admin ports', () => {
  const adminPorts = new Set(Object.values(plans).map(adminPortOf));
  const vpcId = resourcesOfType(json, 'AWS::EC2::VPC')[0]![0];
  /** Standalone ingress resources and those inline in security groups, with the group they open. */
  const ingress = [
    ...resourcesOfType(json, 'AWS::EC2::SecurityGroupIngress').map(([, r]) => ({
      group: refOf(r.Properties.GroupId),
      ...r.Properties,
    })),
    ...resourcesOfType(json, 'AWS::EC2::SecurityGroup').flatMap(([id, g]) =>
      (g.Properties.SecurityGroupIngress ?? []).map((r: Record<string, unknown>) => ({ group: id, ...r })),
    ),
  ] as {
    group: string;
    FromPort: number;
    ToPort: number;
    CidrIp?: string | object;
    SourceSecurityGroupId?: unknown;
  }[];

  it('are open to the VPC only, and to nothing on the internet', () => {
    let found = 0;
    for (const rule of ingress) {
      const opens = [...adminPorts].filter((p) => rule.FromPort <= p && p <= rule.ToPort);
      if (opens.length === 0) continue;
      found++;
      expect(rule.CidrIp).toEqual({ 'Fn::GetAtt': [vpcId, 'CidrBlock'] });
    }
    expect(found).toBe(Object.keys(plans).length);
  });

  it('are never a load balancer target, and only the load balancer listens to the internet', () => {
    for (const { service } of deployed) {
      for (const lb of service.Properties.LoadBalancers ?? [])
        expect(adminPorts.has(lb.ContainerPort)).toBe(false);
    }
    const [albId, alb] = resourcesOfType(json, 'AWS::ElasticLoadBalancingV2::LoadBalancer')[0]!;
    const albGroups = referencedIds(alb.Properties.SecurityGroups);
    for (const rule of ingress.filter((r) => r.CidrIp === '0.0.0.0/0')) {
      expect(albGroups.has(rule.group), `${rule.group} open to the internet`).toBe(true);
      expect([80, 443], albId).toContain(rule.FromPort);
    }
  });
});

describe('the image', () => {
  it("is the repository's Dockerfile, built by cdk deploy, unless a pushed image is given", () => {
    const { app } = synthesize({ imageUri: undefined });
    const assembly = app.synth();
    const manifest = JSON.parse(readFileSync(`${assembly.directory}/hireflow.assets.json`, 'utf8'));
    const images = Object.values(manifest.dockerImages) as {
      source: { directory: string; dockerFile?: string; dockerBuildTarget?: string; platform?: string };
    }[];
    expect(images).toHaveLength(1);
    expect(images[0]!.source).toMatchObject({ platform: 'linux/amd64', dockerBuildTarget: 'runtime' });
    const context = `${assembly.directory}/${images[0]!.source.directory}`;
    // The staged context is the repository minus .dockerignore: the Dockerfile and the workspace, no node_modules.
    for (const needed of [
      'Dockerfile',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'services/jobs/src/main.ts',
      'tools/ops/src/cli/provision.ts',
    ]) {
      expect(existsSync(`${context}/${needed}`), needed).toBe(true);
    }
    for (const left of ['node_modules', 'deploy/aws', 'tools/launcher', 'tools/chaos', '.git'])
      expect(existsSync(`${context}/${left}`), left).toBe(false);
  });

  it('pulls a pushed ECR image with the execution role', () => {
    const [, policy] = resourcesOfType(json, 'AWS::IAM::Policy').find(([, p]) =>
      JSON.stringify(p.Properties.PolicyDocument).includes('ecr:BatchGetImage'),
    )!;
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain(':repository/hireflow');
  });
});
