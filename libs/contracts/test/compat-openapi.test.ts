// `pnpm contracts:check` on the public OpenAPI document: each change that
// would break a released client, made on a copy of docs/api/openapi.json,
// is refused with its own finding; additions pass.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareOpenApi, type Finding } from '../src/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: each test edits the parsed JSON document in place
type Json = Record<string, any>;

const released: Json = JSON.parse(
  readFileSync(new URL('../schemas/released/openapi.json', import.meta.url), 'utf8'),
);

function check(edit: (doc: Json) => void): Finding[] {
  const copy = structuredClone(released);
  edit(copy);
  return compareOpenApi(released, copy);
}

const breaks = (findings: Finding[]) =>
  findings.filter((f) => f.breaking).map((f) => [f.subject, f.path, f.kind].filter(Boolean).join(' '));
const jsonBody = (doc: Json, path: string, method: string) =>
  doc.paths[path][method].requestBody.content['application/json'].schema;

describe('contracts:check on the public OpenAPI document', () => {
  it('passes on the document as released', () => {
    expect(compareOpenApi(released, released)).toEqual([]);
  });

  it('refuses a removed path and a removed operation', () => {
    expect(breaks(check((d) => delete d.paths['/v1/uploads/{id}']))).toEqual([
      'GET /v1/uploads/{id} path-removed',
    ]);
    expect(breaks(check((d) => delete d.paths['/v1/jobs'].get))).toEqual(['GET /v1/jobs operation-removed']);
  });

  it('refuses a removed response field, wherever the shared schema is used', () => {
    const findings = check((d) => delete d.components.schemas.Accepted.properties.traceId);
    expect(new Set(findings.map((f) => `${f.path} ${f.kind} ${f.breaking}`))).toEqual(
      new Set(['202.traceId field-removed true', '200.traceId field-removed true']),
    );
    expect(breaks(findings)).toContain('POST /v1/jobs 202.traceId field-removed');
    expect(findings[0]!.why).toBe("today's clients read this field");
  });

  it('refuses a new required request field, and an optional one made required', () => {
    const added = check((d) => {
      const body = jsonBody(d, '/v1/jobs', 'post');
      body.properties.salary = { type: 'integer' };
      body.required.push('salary');
    });
    expect(breaks(added)).toEqual(['POST /v1/jobs body.salary field-added-required']);
    const required = check((d) => jsonBody(d, '/v1/jobs', 'post').required.push('contactEmail'));
    expect(breaks(required)).toEqual(['POST /v1/jobs body.contactEmail made-required']);
  });

  it('refuses a narrowed request field: a shorter maxLength', () => {
    const findings = check((d) => {
      jsonBody(d, '/v1/jobs', 'post').properties.title.maxLength = 100;
    });
    expect(breaks(findings)).toEqual(['POST /v1/jobs body.title bound-changed']);
    expect(findings[0]!.why).toBe("the server would refuse requests today's clients send");
  });

  it('refuses a narrowed response enum and a response type change', () => {
    const narrowed = check((d) => {
      const status = d.components.schemas.Posting.properties.status;
      status.enum = status.enum.filter((v: string) => v !== 'closed');
    });
    expect(breaks(narrowed)).toContain('GET /v1/jobs/{id} 200.status enum-narrowed');
    const retyped = check((d) => {
      d.components.schemas.Posting.properties.matchCount = { type: 'string' };
    });
    expect(breaks(retyped)).toContain('GET /v1/jobs/{id} 200.matchCount type-changed');
  });

  it('refuses a new required parameter, a removed success response and a removed response header', () => {
    const param = check((d) =>
      d.paths['/v1/jobs'].get.parameters.push({
        in: 'query',
        name: 'tenant',
        required: true,
        schema: { type: 'string' },
      }),
    );
    expect(breaks(param)).toEqual(['GET /v1/jobs query tenant parameter-added-required']);
    expect(breaks(check((d) => delete d.paths['/v1/jobs'].post.responses['202']))).toEqual([
      'POST /v1/jobs 202 response-removed',
    ]);
    expect(breaks(check((d) => delete d.paths['/v1/jobs'].post.responses['202'].headers.location))).toEqual([
      'POST /v1/jobs 202 header location header-removed',
    ]);
  });

  it('passes additions: an optional request field, a response field, a new operation, a widened request', () => {
    const findings = check((d) => {
      jsonBody(d, '/v1/jobs', 'post').properties.salary = { type: 'integer' };
      jsonBody(d, '/v1/jobs', 'post').properties.title.maxLength = 400;
      d.components.schemas.Posting.properties.salary = { type: 'integer' };
      d.paths['/v1/jobs/{id}'].delete = {
        operationId: 'deleteJob',
        responses: { '204': { description: 'gone' } },
      };
    });
    expect(breaks(findings)).toEqual([]);
    expect(findings.map((f) => f.kind)).toEqual(
      expect.arrayContaining(['field-added-optional', 'bound-changed', 'operation-added']),
    );
  });
});
