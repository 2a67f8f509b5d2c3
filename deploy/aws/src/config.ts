// The stack's settings, from CDK context (`cdk synth -c prefix=staging-`, or
// `context` in cdk.json), validated with a message naming each bad one.
import { fileURLToPath } from 'node:url';
import { ConfigError, parseConfig, topologyPrefix } from '@hireflow/config';
import { parseExternalSubscribers } from '@hireflow/contracts';
import { capacityProfiles, DEFAULT_CAPACITY_PROFILE } from '@hireflow/contracts/capacity';
import { z } from 'zod';

/** The repository root: the Docker build context of the one image. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** ADOT collector, pinned; override with `-c collectorImage=...`. */
export const DEFAULT_COLLECTOR_IMAGE = 'public.ecr.aws/aws-observability/aws-otel-collector:v0.48.0';

const optionalText = (description: string, pattern?: RegExp, message?: string) => {
  const text = z.string().trim();
  return (pattern ? text.regex(pattern, message) : text).optional().describe(description);
};

const flag = (description: string) =>
  z
    .union([z.boolean(), z.enum(['true', 'false'])], { message: 'must be true or false' })
    .transform((value) => value === true || value === 'true')
    .default(false)
    .describe(description);

export const settingsSchema = z.object({
  prefix: topologyPrefix().describe(
    'Prefix of every topic and queue name (and the stack name): the HIREFLOW_TOPOLOGY_PREFIX of its services.',
  ),
  imageUri: optionalText(
    'A service image already pushed (CI); unset: cdk deploy builds the repository Dockerfile.',
    /^[a-z0-9.-]+(:[0-9]+)?\/[^\s]+$/,
    'must be an image reference: registry/repository:tag or @sha256:digest',
  ),
  // HTTPS only: API keys travel in headers, and the services refuse a
  // non-https MEDIA_PUBLIC_URL in production. cdk.json carries example
  // values, so `pnpm synth` works offline; a deploy must override both.
  certificateArn: z
    .string()
    .trim()
    .regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/, 'must be an ACM certificate ARN')
    .describe('ACM certificate of the public domain: the load balancer serves HTTPS only.'),
  alertEmail: z
    .email({ message: 'must be an email address' })
    .optional()
    .describe('Subscribed to the alert topic (dead letters); confirm the email AWS sends.'),
  publicUrl: z
    .string()
    .trim()
    .regex(
      /^https:\/\/[^\s/]+$/,
      'must be the https:// origin of the domain the certificate is for, without a path',
    )
    .describe(
      'Public base URL (the domain the certificate is for, pointing at the load balancer or a CDN in front).',
    ),
  collectorImage: z.string().min(1).default(DEFAULT_COLLECTOR_IMAGE).describe('ADOT collector image.'),
  traceSampleRatio: z.coerce
    .number({ message: 'must be a number from 0 to 1' })
    .min(0, 'must be a number from 0 to 1')
    .max(1, 'must be a number from 0 to 1')
    .default(0.1)
    .describe(
      'Share of the traces without an error, retry or dead letter that the collector keeps (tail sampling keeps all of those). X-Ray bills per trace, and the background polling alone starts several a second.',
    ),
  capacityProfile: z
    .enum(Object.keys(capacityProfiles) as [string, ...string[]], {
      message: `must be one of ${Object.keys(capacityProfiles).join(', ')}`,
    })
    .default(DEFAULT_CAPACITY_PROFILE)
    .describe(
      'The load profile the capacity model sizes the stack for: task sizes and counts, the database and cache classes (docs/capacity.md, `pnpm capacity`).',
    ),
  traceEndpoint: optionalText(
    "An OTLP/HTTP endpoint (a team's own Jaeger, Tempo or collector) that gets the traces instead of X-Ray; the task roles then get no X-Ray permissions.",
    /^https?:\/\/[^\s]+$/,
    'must be an http:// or https:// URL',
  ),
  multiAz: flag('A standby for Postgres and a replica for Redis in a second zone (about twice their price).'),
  subscribers: z
    .string()
    .trim()
    .default('')
    .transform((text, ctx) => {
      const { subscribers, problems } = parseExternalSubscribers(text);
      for (const message of problems) ctx.addIssue({ code: 'custom', message });
      return subscribers;
    })
    .describe(
      'Subscribers outside this repository, name:type,type;name:type (docs/subscribing.md): an inbox, DLQ and role each.',
    ),
});

export type StackSettings = z.output<typeof settingsSchema>;

/** Settings from a context lookup (`app.node.tryGetContext`); throws a ConfigError naming each bad key. */
export function settingsFromContext(context: (key: string) => unknown): StackSettings {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(settingsSchema.shape)) {
    const value = context(key);
    if (value !== undefined && value !== '') raw[key] = value;
  }
  return parseConfig(settingsSchema, raw as Record<string, string | undefined>);
}

export { ConfigError };

/** `hireflow`, or `hireflow-staging` for the prefix `staging-`. */
export function stackNameOf(settings: Pick<StackSettings, 'prefix'>): string {
  const suffix = settings.prefix.replace(/-+$/, '');
  return suffix ? `hireflow-${suffix}` : 'hireflow';
}
