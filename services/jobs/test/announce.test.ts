import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type AnyEvent, apiKeyEventSigned, parseEvent } from '@hireflow/contracts';
import { idFromKey } from '@hireflow/idempotency';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../src/modules/tenants/api-keys.ts';
import { type JobsHarness, startJobsHarness } from './harness.ts';

// `pnpm cli api-key announce`: every key announced again, under event ids
// derived from the key ids, for a consumer (media) that missed them.
const run = promisify(execFile);
const cli = join(resolve(import.meta.dirname, '..'), 'src/cli/main.ts');

// jobs signs every API-key event with it: media, holding it too, refuses unsigned ones (API10).
const EVENT_KEY = 'test-apikey-event-key-of-jobs-announce-0123456789';

let h: JobsHarness;
beforeAll(async () => {
  h = await startJobsHarness('jobs-announce', { APIKEY_EVENT_KEY: EVENT_KEY });
});
afterAll(async () => {
  await h?.close();
});

interface OutboxRow {
  event_id: string;
  payload: AnyEvent;
  sent_at: Date | null;
}

const announced = (ids: string[]) =>
  h.deps.orm.em
    .fork()
    .execute<OutboxRow[]>('SELECT event_id, payload, sent_at FROM outbox WHERE event_id = ANY(?::uuid[])', [
      `{${ids.join(',')}}`,
    ]);

const announce = async () => {
  const { stdout } = await run(process.execPath, [cli, 'api-key', 'announce', '--json'], {
    env: { ...process.env, ...h.env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
};

describe('pnpm cli api-key announce', () => {
  it('announces active keys as issued and revoked keys as revoked; announcing again republishes the same events', async () => {
    const { a, b } = h.tenants;
    await revokeApiKey(h.deps.orm.em.fork(), b.keyId);
    const ids = [
      idFromKey(`apikey-announce:issued:${a.keyId}`),
      idFromKey(`apikey-announce:revoked:${b.keyId}`),
    ];

    expect(await announce()).toEqual({ issued: 1, revoked: 1 });
    const first = await announced(ids);
    expect(first).toHaveLength(2);
    const events = first.map((row) => parseEvent(row.payload));
    const issued = events.find((e) => e.type === 'apikey.issued.v1');
    const revoked = events.find((e) => e.type === 'apikey.revoked.v1');
    expect(issued && apiKeyEventSigned(EVENT_KEY, issued)).toBe(true);
    expect(revoked && apiKeyEventSigned(EVENT_KEY, revoked)).toBe(true);
    expect(issued && apiKeyEventSigned(`${EVENT_KEY}x`, issued)).toBe(false);
    expect(issued).toMatchObject({
      id: ids[0],
      subject: a.keyId,
      data: { keyId: a.keyId, tenantId: a.tenantId },
    });
    expect(issued?.type === 'apikey.issued.v1' && issued.data.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(revoked).toMatchObject({ id: ids[1], data: { keyId: b.keyId, tenantId: b.tenantId } });

    // As if the relay had published them: a second announcement makes them pending again, one row each.
    await h.deps.orm.em
      .fork()
      .execute('UPDATE outbox SET sent_at = now() WHERE event_id = ANY(?::uuid[])', [`{${ids.join(',')}}`]);
    expect(await announce()).toEqual({ issued: 1, revoked: 1 });
    const second = await announced(ids);
    expect(second).toHaveLength(2);
    expect(second.every((row) => row.sent_at === null)).toBe(true);
    expect(second.map((row) => row.payload).sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      first.map((row) => row.payload).sort((x, y) => x.id.localeCompare(y.id)),
    );
    // Two CLI processes, each seconds of start-up on a loaded two-core machine.
  }, 90_000);
});
