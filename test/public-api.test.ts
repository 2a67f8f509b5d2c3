import { spawn } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ASYNCAPI_DOCUMENT,
  describePublicServices,
  documentText,
  generatePublicApiDocument,
  lintOpenApi,
  PUBLIC_API_DOCUMENT,
  parseAsyncApi,
  readCommittedDocument,
} from '@hireflow/api-docs';
import { GENERATED_TYPES, generateTypes } from '@hireflow/client/generate';
import { loadBalancerPatterns, PUBLIC_ROUTES, routeOf } from '@hireflow/contracts';
import type { OpenApiDocument } from '@hireflow/runtime';
import { beforeAll, describe, expect, it } from 'vitest';

// The one public API document (docs/api/openapi.json), built from the routes
// of jobs and media, and the TypeScript client generated from it. Regenerate
// both with `pnpm api:generate`.
const root = resolve(import.meta.dirname, '..');
let document: OpenApiDocument;
beforeAll(async () => {
  document = await generatePublicApiDocument();
});

describe('the public API document', () => {
  it('is committed and up to date (pnpm api:generate)', async () => {
    expect(await readCommittedDocument(), 'docs/api/openapi.json is stale: run pnpm api:generate').toBe(
      documentText(document),
    );
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const result = await lintOpenApi(PUBLIC_API_DOCUMENT);
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('and the AsyncAPI event catalog parses with no error and no warning', async () => {
    const result = await parseAsyncApi(ASYNCAPI_DOCUMENT);
    expect(result.problems).toEqual([]);
  }, 60_000);

  it('describes every operation for generated clients: operationId, tag, examples, statuses', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method} ${path}`;
        expect(operation.operationId, where).toMatch(/^[a-z]+[A-Z][A-Za-z]+$/);
        expect(operation.tags, where).toHaveLength(1);
        const responses = operation.responses as Record<string, object>;
        // The front door's statuses, everywhere; 401 and 429 where an API key is needed.
        expect(Object.keys(responses), where).toEqual(expect.arrayContaining(['408', '503']));
        const open = Array.isArray(operation.security) && operation.security.length === 0;
        if (!open) expect(Object.keys(responses), where).toEqual(expect.arrayContaining(['401', '429']));
        if (method === 'post') {
          expect(operation.parameters, where).toContainEqual({
            $ref: '#/components/parameters/IdempotencyKey',
          });
          expect(Object.keys(responses), where).toEqual(expect.arrayContaining(['409', '422']));
        }
      }
    }
    const text = JSON.stringify(document);
    expect(text).not.toMatch(/\/(internal|admin|metrics|health)\b/);
    expect(document.servers).toHaveLength(2);
    expect(document.info.license).toBeDefined();
  });

  it("routes every path, through the one base URL's table, to the service that serves it", async () => {
    const services = await describePublicServices();
    for (const [service, part] of Object.entries(services)) {
      for (const path of Object.keys(part.paths)) {
        const concrete = path.replace(/\{[^}]+\}/g, '0b6f3c8e-4a2d-4c1e-9f57-2d8a1e6b9c40');
        expect(routeOf(concrete), path).toBe(service);
        expect(routeOf(`${concrete}?limit=1`), path).toBe(service);
      }
    }
    expect(routeOf('/v1/jobsx')).toBeUndefined();
    // The AWS load balancer routes the same prefixes (docs/deploy.md says which, for the stack).
    const deploy = await readFile(join(root, 'docs/deploy.md'), 'utf8');
    for (const route of PUBLIC_ROUTES) {
      for (const pattern of loadBalancerPatterns(route)) expect(deploy).toContain(`\`${pattern}\``);
    }
    expect(routeOf('/internal/api-keys/x')).toBeUndefined();
    expect(routeOf('/health/ready')).toBeUndefined();
  });
});

describe('the TypeScript client (@hireflow/client)', () => {
  it('has the types generated from the document (pnpm api:generate)', async () => {
    const committed = await readFile(GENERATED_TYPES, 'utf8');
    expect(committed, 'clients/typescript/src/openapi.generated.ts is stale: run pnpm api:generate').toBe(
      await generateTypes(document),
    );
  });

  it('type-checks a consumer program against types generated afresh from the services', async () => {
    // Inside the client package, so openapi-fetch and @types/node resolve as they do for the client.
    const dir = join(root, 'clients/typescript', `.typecheck-${process.pid}`);
    await rm(dir, { recursive: true, force: true });
    try {
      await cp(join(root, 'clients/typescript/src'), join(dir, 'src'), {
        recursive: true,
        filter: (file) => !file.endsWith('.spec.ts'),
      });
      await writeFile(join(dir, 'src/openapi.generated.ts'), await generateTypes(document));
      await mkdir(join(dir, 'test'));
      await cp(join(root, 'clients/typescript/test/sample.ts'), join(dir, 'test/sample.ts'));
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../../../tsconfig.base.json', include: ['src', 'test'] }),
      );
      const { code, output } = await run(join(root, 'node_modules/.bin/tsc'), ['--noEmit', '-p', dir]);
      expect(output).toBe('');
      expect(code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((done) =>
    child.once('close', (code) => done({ code, output: Buffer.concat(chunks).toString('utf8') })),
  );
}
