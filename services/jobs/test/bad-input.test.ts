import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness, validCandidate, validPosting } from './harness.ts';

let h: JobsHarness;
beforeAll(async () => {
  h = await startJobsHarness('jobs-bad-input', { BODY_LIMIT_BYTES: String(64 * 1024) });
});
afterAll(async () => {
  await h?.close();
});

type Case = [label: string, value: unknown];
const LONE_SURROGATE = '\ud800';
// Outside SQS's character set (libs/contracts/src/transport/sqs-text.ts): an event holding it could not travel.
const NONCHARACTER = '\uffff';

// The bypasses of the old link filter (issue 25): one display text rule refuses each.
const DISPLAY_TEXT_BYPASSES: Case[] = [
  ['API6: a shortener', 'Ada bit.ly/abc'],
  ['API6: a .net host', 'scam.net'],
  ['API6: a .io host', 'evil.io'],
  ['API6: an IP address', '203.0.113.9/login'],
  ['API6: a space before the dot', 'evil .com'],
  ['API6: full-width', 'ｅｖｉｌ．ｃｏｍ'],
  ['API6: a right-to-left override', 'Ada \u202eevil'],
  ['API6: a line separator', 'Ada\u2028x'],
  ['API6: NEL', 'Ada\u0085x'],
];

// For each field: a wrong type, a missing value, out-of-range/oversized values, malformed formats, unicode edges.
const jobFields: Record<string, Case[]> = {
  title: [
    ['a number', 42],
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['only spaces', '   '],
    ['too long', 'x'.repeat(201)],
    ['a NUL character', 'a\u0000b'],
    ['a newline', 'two\nlines'],
    ['a lone surrogate', `bad${LONE_SURROGATE}`],
    ['U+FFFE, which SQS cannot carry', 'Engineer\ufffe'],
    ['an object', { text: 'x' }],
    ['API6: a link', 'Urgent: verify your account at https://evil.example/login'],
    ['API6: an email address', 'Write to hr@evil.example'],
    ...DISPLAY_TEXT_BYPASSES,
  ],
  description: [
    ['a boolean', true],
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'x'.repeat(20_001)],
    ['a NUL character', 'a\u0000b'],
    ['a lone surrogate', `bad${LONE_SURROGATE}`],
    ['U+FFFF, which SQS cannot carry', `Build event-driven services${NONCHARACTER}`],
  ],
  skills: [
    ['a string', 'node'],
    ['U+FFFF in a skill', [`node${NONCHARACTER}`]],
    ['missing', undefined],
    ['numbers', [1, 2]],
    ['an empty skill', ['']],
    ['a too long skill', ['x'.repeat(65)]],
    ['too many skills', Array.from({ length: 51 }, (_, i) => `s${i}`)],
    ['duplicates', ['node', 'Node']],
    ['a nested array', [['node']]],
  ],
  location: [
    ['a number', 1],
    ['missing', undefined],
    ['too long', 'x'.repeat(201)],
    ['a control character', 'a\u0007b'],
    ['U+FFFF', `Berlin${NONCHARACTER}`],
  ],
  remote: [
    ['a string', 'yes'],
    ['a number', 1],
    ['missing', undefined],
    ['null', null],
  ],
  contactEmail: [
    ['a number', 5],
    ['malformed', 'not-an-email'],
    ['too long', `${'a'.repeat(250)}@x.io`],
    ['empty', ''],
  ],
};

const candidateFields: Record<string, Case[]> = {
  name: [
    ['a number', 1],
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'x'.repeat(201)],
    ['a NUL character', 'a\u0000'],
    ['a lone surrogate', LONE_SURROGATE],
    ['U+FFFF, which SQS cannot carry', `Ada${NONCHARACTER}`],
    ['API6: a link', 'Bob, your account is locked: www.evil.example'],
    ['API6: an email address', 'Bob bob@victim.test'],
    ...DISPLAY_TEXT_BYPASSES,
  ],
  email: [
    ['missing', undefined],
    ['malformed', 'ada@'],
    ['an array', ['a@b.io']],
    ['too long', `${'a'.repeat(250)}@x.io`],
  ],
  headline: [
    ['a number', 3],
    ['missing', undefined],
    ['too long', 'x'.repeat(301)],
    ['API6: a link', 'verify at https://evil.example/login'],
    ['U+FFFE', 'Engineer\ufffe'],
    ...DISPLAY_TEXT_BYPASSES,
  ],
  skills: [
    ['an object', {}],
    ['missing', undefined],
    ['too many', Array.from({ length: 51 }, (_, i) => `s${i}`)],
  ],
  location: [
    ['a boolean', false],
    ['missing', undefined],
    ['too long', 'x'.repeat(201)],
  ],
};

function withField(base: Record<string, unknown>, field: string, value: unknown) {
  const body = { ...base };
  if (value === undefined) delete body[field];
  else body[field] = value;
  return body;
}

async function expectProblem(res: Awaited<ReturnType<typeof h.app.inject>>, status: number, field: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body.status).toBe(status);
  // The field itself, or an element of it (`skills[0]`).
  const fields: string[] = body.errors.map((e: { field: string }) => e.field);
  expect(
    fields.some((f) => f === field || f.startsWith(`${field}[`) || f.startsWith(`${field}.`)),
    fields.join(),
  ).toBe(true);
}

describe('POST /v1/jobs rejects bad input with a 4xx problem naming the field', () => {
  for (const [field, cases] of Object.entries(jobFields)) {
    it.each(cases)(`${field}: %s`, async (_label, value) => {
      const res = await h.app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: h.tenants.a.auth,
        payload: withField(validPosting, field, value),
      });
      await expectProblem(res, 400, field);
    });
  }
});

describe('POST /v1/candidates rejects bad input with a 4xx problem naming the field', () => {
  for (const [field, cases] of Object.entries(candidateFields)) {
    it.each(cases)(`${field}: %s`, async (_label, value) => {
      const res = await h.app.inject({
        method: 'POST',
        url: '/v1/candidates',
        headers: h.tenants.a.auth,
        payload: withField(validCandidate, field, value),
      });
      await expectProblem(res, 400, field);
    });
  }
});

describe('request-level bad input', () => {
  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: { ...h.tenants.a.auth, 'content-type': 'application/json', ...headers },
      payload,
    });

  it.each(['/v1/jobs', '/v1/candidates'])('%s: malformed JSON → 400 naming the body', async (url) => {
    await expectProblem(await post(url, '{"title": "x",'), 400, 'body');
  });

  it.each(['/v1/jobs', '/v1/candidates'])('%s: a JSON array → 400', async (url) => {
    await expectProblem(await post(url, '[1,2]'), 400, 'body');
  });

  it.each(['/v1/jobs', '/v1/candidates'])('%s: an empty body → 400', async (url) => {
    await expectProblem(await post(url, ''), 400, 'body');
  });

  it.each(['/v1/jobs', '/v1/candidates'])('%s: a wrong content type → 415', async (url) => {
    await expectProblem(
      await post(url, 'title=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'content-type',
    );
  });

  it.each(['/v1/jobs', '/v1/candidates'])('%s: an oversized body → 413', async (url) => {
    const huge = JSON.stringify({ ...validPosting, description: 'x'.repeat(70 * 1024) });
    await expectProblem(await post(url, huge), 413, 'body');
  });

  it('U+FFFF written as a JSON escape in the description → 400 naming description, nothing accepted', async () => {
    const body = JSON.stringify({ ...validPosting, description: 'Build services' }).replace(
      'Build services',
      'Build services\\uffff',
    );
    const res = await post('/v1/jobs', body);
    await expectProblem(res, 400, 'description');
    expect(res.json().errors.find((e: { field: string }) => e.field === 'description').message).toMatch(
      /characters a message can carry/,
    );
  });

  it('unknown fields → 400 naming each', async () => {
    const res = await post('/v1/jobs', JSON.stringify({ ...validPosting, salary: 1, admin: true }));
    await expectProblem(res, 400, 'salary');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain('admin');
  });

  it('a prototype-pollution key is rejected, not applied', async () => {
    const res = await post(
      '/v1/jobs',
      `{"title":"x","description":"d","skills":[],"location":"l","remote":true,"__proto__":{"admin":true}}`,
    );
    expect(res.statusCode).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it.each([
    ['/v1/jobs/not-a-uuid', 'id'],
    ['/v1/jobs/not-a-uuid/matches', 'id'],
    ['/v1/candidates/123', 'id'],
  ])('GET %s → 400 naming %s', async (url, field) => {
    await expectProblem(await h.app.inject({ method: 'GET', url, headers: h.tenants.a.auth }), 400, field);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['cursor=%%%', 'cursor'],
    ['unknown=1', 'unknown'],
  ])('GET /v1/jobs?%s → 400 naming %s', async (query, field) => {
    await expectProblem(
      await h.app.inject({ method: 'GET', url: `/v1/jobs?${query}`, headers: h.tenants.a.auth }),
      400,
      field,
    );
  });

  it('accepts unicode that is valid: emoji, RTL, combining marks', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: h.tenants.a.auth,
      payload: {
        ...validPosting,
        title: 'Ingeniera 👩‍💻 مهندس',
        description: 'e\u0301 — “quotes” \n line two',
        location: 'Zürich',
      },
    });
    expect(res.statusCode).toBe(202);
    const got = await h.app.inject({
      method: 'GET',
      url: `/v1/jobs/${res.json().id}`,
      headers: h.tenants.a.auth,
    });
    expect(got.json().title).toBe('Ingeniera 👩‍💻 مهندس');
  });

  it('never answers 5xx for any of the above (server errors would have failed the cases)', async () => {
    const res = await post('/v1/jobs', '{"title":"\\u0000"}');
    expect(res.statusCode).toBeLessThan(500);
  });
});
