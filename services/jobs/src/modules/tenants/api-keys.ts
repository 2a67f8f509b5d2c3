import { randomBytes, randomUUID } from 'node:crypto';
import { createEvent, type EventData, signApiKeyEvent } from '@hireflow/contracts';
import type { EntityManager } from '@hireflow/db';
import { idFromKey } from '@hireflow/idempotency';
import { enqueueEvent, outboxInsertStatement } from '@hireflow/messaging';
import { hashApiKey } from '@hireflow/runtime';
import { ApiKey, Tenant } from '../../db/entities.ts';
import { allApiKeys, writeOutbox } from './store.ts';

const SOURCE = 'hireflow/jobs' as const;

function newApiKey(): string {
  return `hf_${randomBytes(32).toString('base64url')}`;
}

export interface IssuedKey {
  tenantId: string;
  tenantName: string;
  keyId: string;
  /** The plaintext key: shown once, never stored. */
  key: string;
}

/** How API-key events are signed: with APIKEY_EVENT_KEY when set (media refuses unsigned ones then). */
export interface KeyEventSigning {
  eventKey?: string | undefined;
}

function issuedData(
  data: EventData<'apikey.issued.v1'>,
  signing: KeyEventSigning,
): EventData<'apikey.issued.v1'> {
  const { eventKey } = signing;
  return eventKey
    ? { ...data, signature: signApiKeyEvent(eventKey, { type: 'apikey.issued.v1', data }) }
    : data;
}

function revokedData(
  data: EventData<'apikey.revoked.v1'>,
  signing: KeyEventSigning,
): EventData<'apikey.revoked.v1'> {
  const { eventKey } = signing;
  return eventKey
    ? { ...data, signature: signApiKeyEvent(eventKey, { type: 'apikey.revoked.v1', data }) }
    : data;
}

/** Creates the tenant if it is new, issues it a key, and announces the key, in one transaction. */
export async function issueApiKey(
  em: EntityManager,
  tenantName: string,
  contactEmail: string,
  signing: KeyEventSigning = {},
): Promise<IssuedKey> {
  return em.transactional(async (tx) => {
    let tenant = await tx.findOne(Tenant, { name: tenantName });
    if (!tenant) {
      tenant = tx.create(Tenant, { id: randomUUID(), name: tenantName, contactEmail });
      // The key references the tenant; entities here declare no relations, so order the inserts.
      await tx.flush();
    } else if (tenant.contactEmail !== contactEmail) {
      tenant.contactEmail = contactEmail;
    }
    const key = newApiKey();
    const apiKey = tx.create(ApiKey, { id: randomUUID(), tenantId: tenant.id, keyHash: hashApiKey(key) });
    const issuedAt = new Date();
    await enqueueEvent(
      tx,
      createEvent(
        'apikey.issued.v1',
        issuedData(
          {
            keyId: apiKey.id,
            tenantId: tenant.id,
            keyHash: apiKey.keyHash,
            issuedAt: issuedAt.toISOString(),
          },
          signing,
        ),
        { source: SOURCE, subject: apiKey.id },
      ),
    );
    return { tenantId: tenant.id, tenantName: tenant.name, keyId: apiKey.id, key };
  });
}

/** Revokes a key (idempotent: revoking twice announces once). Returns false for an unknown key. */
export async function revokeApiKey(
  em: EntityManager,
  keyId: string,
  signing: KeyEventSigning = {},
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const apiKey = await tx.findOne(ApiKey, { id: keyId });
    if (!apiKey) return false;
    if (apiKey.revokedAt) return true;
    apiKey.revokedAt = new Date();
    await enqueueEvent(
      tx,
      createEvent(
        'apikey.revoked.v1',
        revokedData(
          { keyId: apiKey.id, tenantId: apiKey.tenantId, revokedAt: apiKey.revokedAt.toISOString() },
          signing,
        ),
        { source: SOURCE, subject: apiKey.id },
      ),
    );
    return true;
  });
}

/**
 * Announces every key again: `apikey.issued.v1` for each active key,
 * `apikey.revoked.v1` for each revoked one, so that a consumer that missed
 * them (media's projection in a new database, messages an emulator dropped)
 * catches up. Each announcement's event id derives from the key id, so
 * announcing twice publishes the same events again (the outbox row is reset
 * to pending) and consumers, idempotent by event id, apply each once. The
 * event's time is the key's own, so an announcement is the same event every time.
 */
export async function announceApiKeys(
  em: EntityManager,
  signing: KeyEventSigning = {},
): Promise<{ issued: number; revoked: number }> {
  return em.transactional(async (tx) => {
    const counts = { issued: 0, revoked: 0 };
    for (const key of await allApiKeys(tx)) {
      const event = key.revokedAt
        ? createEvent(
            'apikey.revoked.v1',
            revokedData(
              { keyId: key.id, tenantId: key.tenantId, revokedAt: key.revokedAt.toISOString() },
              signing,
            ),
            {
              ...announcement(key.id, 'revoked'),
              time: key.revokedAt.toISOString(),
            },
          )
        : createEvent(
            'apikey.issued.v1',
            issuedData(
              {
                keyId: key.id,
                tenantId: key.tenantId,
                keyHash: key.keyHash,
                issuedAt: key.createdAt.toISOString(),
              },
              signing,
            ),
            {
              ...announcement(key.id, 'issued'),
              time: key.createdAt.toISOString(),
            },
          );
      await writeOutbox(tx, outboxInsertStatement(event, { republish: true }));
      counts[key.revokedAt ? 'revoked' : 'issued']++;
    }
    return counts;
  });
}

const announcement = (keyId: string, what: 'issued' | 'revoked') => ({
  source: SOURCE,
  subject: keyId,
  id: idFromKey(`apikey-announce:${what}:${keyId}`),
});
