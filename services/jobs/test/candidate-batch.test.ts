import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness, validCandidate } from './harness.ts';

// POST /v1/candidates:batch (docs/fairness.md): one result per item in order,
// a bad item reported in its place while the others go ahead, idempotent per
// item, and every event it writes in the bulk lane.
let h: JobsHarness;
beforeAll(async () => {
  h = await startJobsHarness('jobs-batch');
});
afterAll(async () => {
  await h?.close();
});

interface BatchAnswer {
  batchId: string;
  items: { id: string | null; status: string; errors?: { field: string; message: string }[] }[];
  traceId: string | null;
}

const post = (payload: unknown, auth = h.tenants.a.auth) =>
  h.app.inject({ method: 'POST', url: '/v1/candidates:batch', headers: auth, payload: payload as object });

const person = (n: number, run = randomUUID().slice(0, 8)) => ({
  ...validCandidate,
  name: `Candidate ${n}`,
  email: `c${n}-${run}@example.test`,
});

async function outboxOf(ids: string[]) {
  return h.deps.orm.em
    .fork()
    .execute<{ payload: { lane?: string; data: { candidateId: string; tenantId: string } } }[]>(
      "SELECT payload FROM outbox WHERE type = 'candidate.registered.v1' AND payload->'data'->>'candidateId' = ANY(?::text[])",
      [`{${ids.join(',')}}`],
    );
}

describe('POST /v1/candidates:batch', () => {
  it('registers every good item, reports each bad one in its place naming the field, in order', async () => {
    const items = [
      person(0),
      { ...person(1), email: 'not-an-email' },
      person(2),
      { ...person(3), extra: 1 },
      {},
    ];
    const res = await post({ items });
    expect(res.statusCode, res.body).toBe(202);
    const body = res.json<BatchAnswer>();
    expect(body.batchId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.items.map((i) => i.status)).toEqual([
      'registered',
      'invalid',
      'registered',
      'invalid',
      'invalid',
    ]);
    expect(body.items[1]!.errors).toEqual([{ field: 'items[1].email', message: 'must be an email address' }]);
    expect(body.items[3]!.errors).toEqual([{ field: 'items[3].extra', message: 'is not a known field' }]);
    expect(body.items[4]!.errors).toContainEqual({ field: 'items[4].name', message: 'is required' });
    expect(body.items[1]!.id).toBeNull();

    const registered = [body.items[0]!.id!, body.items[2]!.id!];
    for (const [i, id] of registered.entries()) {
      const got = await h.app.inject({
        method: 'GET',
        url: `/v1/candidates/${id}`,
        headers: h.tenants.a.auth,
      });
      expect(got.json()).toMatchObject({ id, name: `Candidate ${i * 2}` });
    }
    // Their events wait behind interactive work: the bulk lane.
    const events = await outboxOf(registered);
    expect(events).toHaveLength(2);
    for (const e of events)
      expect(e.payload).toMatchObject({ lane: 'bulk', data: { tenantId: h.tenants.a.tenantId } });
  });

  it('is idempotent per item: by key (a conflict for another item under it), and by email without one', async () => {
    const run = randomUUID().slice(0, 8);
    const first = await post({
      items: [{ ...person(0, run), key: `row-0-${run}` }, person(1, run)],
    });
    const [keyed, plain] = first.json<BatchAnswer>().items;
    const again = await post({
      items: [
        { ...person(0, run), key: `row-0-${run}` },
        person(1, run),
        { ...person(2, run), key: `row-0-${run}` },
      ],
    });
    expect(again.statusCode).toBe(202);
    const items = again.json<BatchAnswer>().items;
    expect(items[0]).toEqual(keyed); // the first answer, again
    expect(items[1]).toEqual({ id: plain!.id, status: 'existing' });
    expect(items[2]).toMatchObject({ id: null, status: 'conflict', errors: [{ field: 'items[2].key' }] });
    // One event per candidate, whatever was sent twice.
    expect(await outboxOf([keyed!.id!, plain!.id!])).toHaveLength(2);
  });

  it('refuses a body that is not 1 to 1000 items as a problem naming the field', async () => {
    for (const payload of [{ items: [] }, { items: Array.from({ length: 1001 }, (_, i) => person(i)) }, {}]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().errors[0].field).toBe('items');
    }
  });

  it('registers a thousand in one request', async () => {
    const run = randomUUID().slice(0, 8);
    const res = await post({ items: Array.from({ length: 1000 }, (_, i) => person(i, run)) });
    expect(res.statusCode).toBe(202);
    const items = res.json<BatchAnswer>().items;
    expect(items).toHaveLength(1000);
    expect(items.every((i) => i.status === 'registered')).toBe(true);
    expect(new Set(items.map((i) => i.id)).size).toBe(1000);
  });
});
