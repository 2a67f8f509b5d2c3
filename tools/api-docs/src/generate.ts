import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describeApi as describeJobsApi, webhooksSection } from '@hireflow/jobs';
import { describeApi as describeMediaApi } from '@hireflow/media';
import type { OpenApiDocument } from '@hireflow/runtime';
import { buildPublicApiDocument } from './document.ts';

/** The committed public API document: what consumers and the TypeScript client use. */
export const PUBLIC_API_DOCUMENT = resolve(import.meta.dirname, '../../../docs/api/openapi.json');

/** Each public service's own document, built from its routes (nothing listens or connects). */
export async function describePublicServices(): Promise<{ jobs: OpenApiDocument; media: OpenApiDocument }> {
  return { jobs: await describeJobsApi(), media: await describeMediaApi() };
}

/** The public API document as the code describes it now. */
export async function generatePublicApiDocument(): Promise<OpenApiDocument> {
  const { jobs, media } = await describePublicServices();
  return buildPublicApiDocument([jobs, media], webhooksSection());
}

/** How the document is written to disk (a test compares this text). */
export function documentText(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export async function readCommittedDocument(): Promise<string> {
  return readFile(PUBLIC_API_DOCUMENT, 'utf8').catch(() => '');
}
