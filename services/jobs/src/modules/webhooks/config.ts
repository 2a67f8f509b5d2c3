import { ConfigError, positiveInt } from '@hireflow/config';
import { z } from 'zod';

const flag = (description: string) =>
  z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true')
    .describe(description);

/** The webhooks' variables (docs/webhooks.md): jobs' own, parsed with the rest of its config. */
export const webhookConfigSchema = z.object({
  WEBHOOK_ALLOW_HTTP: flag(
    'Accept and deliver to http:// webhook URLs (local development only; refused with NODE_ENV=production).',
  ),
  WEBHOOK_ALLOW_PRIVATE: flag(
    'Deliver to loopback, private, link-local, unique-local and multicast addresses (local development only; refused with NODE_ENV=production).',
  ),
  WEBHOOK_TIMEOUT_MS: positiveInt(
    'A delivery attempt succeeds only with a 2xx within this long (connect, send and answer).',
    10_000,
    60_000,
  ),
  WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt(
    'Delivery attempts in flight to one endpoint at once, across every worker.',
    4,
    100,
  ),
  WEBHOOK_WORKER_CONCURRENCY: positiveInt('Delivery attempts one worker process runs at once.', 32, 1000),
  WEBHOOK_RETRY_BASE_MS: positiveInt(
    'Full-jitter retry base: retry n waits a random time below min(cap, base × 2^n).',
    10_000,
    3_600_000,
  ),
  WEBHOOK_RETRY_CAP_MS: positiveInt(
    'Full-jitter retry cap (the longest wait between two attempts).',
    6 * 3600_000,
    86_400_000,
  ),
  WEBHOOK_RETRY_WINDOW_MS: positiveInt(
    'A delivery is retried this long after it was created; an endpoint failing this long is disabled (3 days).',
    3 * 24 * 3600_000,
    30 * 24 * 3600_000,
  ),
  WEBHOOK_ROTATION_GRACE_MS: positiveInt(
    'After a secret rotation, deliveries are signed with both secrets for this long (24 h).',
    24 * 3600_000,
    30 * 24 * 3600_000,
  ),
});

export type WebhookConfig = z.output<typeof webhookConfigSchema>;

/** A production process never reaches plain-http or private webhook URLs, whatever the environment says. */
export function refuseLocalWebhooksInProduction<C extends WebhookConfig & { NODE_ENV: string }>(
  config: C,
): C {
  if (config.NODE_ENV !== 'production') return config;
  const refused = (['WEBHOOK_ALLOW_HTTP', 'WEBHOOK_ALLOW_PRIVATE'] as const).filter((name) => config[name]);
  if (refused.length > 0) {
    throw new ConfigError(
      refused.map((variable) => ({ variable, message: 'must not be true when NODE_ENV=production' })),
    );
  }
  return config;
}
