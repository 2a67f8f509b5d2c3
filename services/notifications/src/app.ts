import { lazyTaskQueue } from '@hireflow/messaging';
import { type AppState, createAdminServer, createServiceServer, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';
import { registerContactRoutes } from './modules/contacts/routes.ts';
import { confirmationTokens } from './modules/contacts/token.ts';
import { releaseHeldEmails } from './modules/email/release-held.ts';
import { createEmailQueue, type EmailTask, emailTaskOptions } from './modules/intents/email-queue.ts';
import { registerInternalRoutes } from './modules/intents/routes.ts';
import { releaseUnconfirmed } from './modules/intents/store.ts';
import { recordConfirmedContact } from './modules/projections/store.ts';
import { registerUnsubscribeRoutes } from './modules/suppression/routes.ts';
import { unsubscribeTokens } from './modules/suppression/token.ts';

/**
 * The notifications service port, ready but not listening (tests use
 * `inject()`): health, and the public links emails carry: the one-click
 * unsubscribe link, and the confirmation of a posting's contact address.
 */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer(config, deps, state);
  if (config.ROLE !== 'worker') {
    registerUnsubscribeRoutes(app, {
      orm: deps.orm,
      tokens: unsubscribeTokens(config.UNSUBSCRIBE_SIGNING_KEY),
    });
    // A confirmation sends the summaries that waited for it at once (within
    // the tenant's quota and the address's cap), not at the next sweep. A rare
    // path: BullMQ is loaded on the first confirmation that releases an
    // email, not at start (issue 31).
    const emails = createEmailQueue(lazyTaskQueue<EmailTask>(emailTaskOptions(deps.redis, config)));
    app.addHook('onClose', () => emails.close());
    registerContactRoutes(app, {
      tokens: confirmationTokens(config.UNSUBSCRIBE_SIGNING_KEY),
      confirm: async (tenantId, address) => {
        const waiting = await deps.orm.em.fork().transactional(async (tx) => {
          await recordConfirmedContact(tx, tenantId, address);
          return releaseUnconfirmed(tx, tenantId, address);
        });
        await releaseHeldEmails(deps.orm, emails, {
          tenantDailyQuota: config.TENANT_DAILY_EMAIL_QUOTA,
          recipientDailyCap: config.EMAILS_PER_ADDRESS_PER_DAY,
          keys: waiting,
        });
      },
    });
  }
  await app.ready();
  return app;
}

/** The admin listener: the internal read API of the notification log. */
export async function buildAdmin(config: Config, deps: ServiceDeps) {
  const admin = createAdminServer(config, deps);
  registerInternalRoutes(admin, { orm: deps.orm });
  await admin.ready();
  return admin;
}
