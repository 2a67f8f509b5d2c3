import { randomBytes, randomUUID } from 'node:crypto';
import { createEvent, type EventData, signApiKeyEvent } from '@hireflow/contracts';
import type { Sql } from '@hireflow/db';
import { idFromKey } from '@hireflow/idempotency';
import { enqueueEvent, outboxInsertStatement } from '@hireflow/messaging';
import { hashApiKey } from '@hireflow/runtime';
import {
  allApiKeys,
  findApiKey,
  findTenantByName,
  insertApiKey,
  insertTenant,
  setKeyRevoked,
  setTenantContact,
  writeOutbox,
} from './store.ts';

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
  em: Sql,
  tenantName: string,
  contactEmail: string,
  signing: KeyEventSigning = {},
): Promise<IssuedKey> {
  return em.transactional(async (tx) => {
    const found = await findTenantByName(tx, tenantName);
    const tenant = found ?? { id: randomUUID(), name: tenantName, contactEmail };
    // The key references the tenant: the tenant's row goes in first.
    if (!found) await insertTenant(tx, tenant, new Date());
    const key = newApiKey();
    const apiKey = { id: randomUUID(), tenantId: tenant.id, keyHash: hashApiKey(key), createdAt: new Date() };
    await insertApiKey(tx, apiKey);
    if (found && found.contactEmail !== contactEmail) await setTenantContact(tx, tenant.id, contactEmail);
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
export async function revokeApiKey(em: Sql, keyId: string, signing: KeyEventSigning = {}): Promise<boolean> {
  return em.transactional(async (tx) => {
    const apiKey = await findApiKey(tx, keyId);
    if (!apiKey) return false;
    if (apiKey.revokedAt) return true;
    const revokedAt = new Date();
    await setKeyRevoked(tx, apiKey.id, revokedAt);
    await enqueueEvent(
      tx,
      createEvent(
        'apikey.revoked.v1',
        revokedData(
          { keyId: apiKey.id, tenantId: apiKey.tenantId, revokedAt: revokedAt.toISOString() },
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
  em: Sql,
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
