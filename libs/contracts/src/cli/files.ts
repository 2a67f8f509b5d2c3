// The schemas folder on disk: generate it, check it against the last
// release, cut a release (docs/contracts.md). A release is a copy of the
// published files in `released/`, with the public OpenAPI document beside
// them, made by `pnpm contracts:release` and committed: the check compares
// the catalog and the OpenAPI document with that copy.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { compareEvents } from '../compat/events.ts';
import { compareOpenApi } from '../compat/openapi.ts';
import type { Finding } from '../compat/rules.ts';
import { EVENTS_DIR, publishedEvents, publishedFiles } from '../published.ts';
import { type EventContractsView, hireflowEvents } from '../versions.ts';

type Json = Record<string, unknown>;

export const RELEASED_DIR = 'released';
export const RELEASED_OPENAPI = `${RELEASED_DIR}/openapi.json`;
export const RELEASE_NOTE = `${RELEASED_DIR}/release.json`;

export interface ContractFiles {
  /** The schemas folder (libs/contracts/schemas). */
  schemasDir: string;
  /** The public OpenAPI document (docs/api/openapi.json). */
  openapiFile: string;
  events?: EventContractsView;
  now?: Date;
}

export interface CheckReport {
  /** Published files that differ from the catalog (run `pnpm contracts:generate`). */
  stale: string[];
  /** No release in the folder yet: nothing to compare with. */
  unreleased: boolean;
  findings: Finding[];
  ok: boolean;
}

/** Files under `dir`, by path relative to it; `skip` leaves out a top-level folder. */
async function readTree(dir: string, skip?: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return files;
    throw error;
  }
  for (const name of names.sort()) {
    if ((skip && (name === skip || name.startsWith(`${skip}/`))) || !name.endsWith('.json')) continue;
    files.set(name, await readFile(join(dir, name), 'utf8'));
  }
  return files;
}

async function writeTree(dir: string, files: Map<string, string>, keep?: string): Promise<void> {
  for (const name of (await readTree(dir, keep)).keys()) if (!files.has(name)) await rm(join(dir, name));
  for (const [name, text] of files) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
}

/** Rewrites the published files from the catalog (the release copy stays as it is). */
export async function generateSchemas(schemasDir: string, events: EventContractsView = hireflowEvents) {
  await writeTree(schemasDir, publishedFiles(events), RELEASED_DIR);
}

export async function staleSchemas(schemasDir: string, events: EventContractsView = hireflowEvents) {
  const expected = publishedFiles(events);
  const onDisk = await readTree(schemasDir, RELEASED_DIR);
  const names = new Set([...expected.keys(), ...onDisk.keys()]);
  return [...names].filter((name) => expected.get(name) !== onDisk.get(name)).sort();
}

const parseJson = (text: string, where: string): Json => {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
};

/** The catalog and the OpenAPI document against the release copy. */
export async function checkContracts(options: ContractFiles): Promise<CheckReport> {
  const events = options.events ?? hireflowEvents;
  const stale = await staleSchemas(options.schemasDir, events);
  const released = await readTree(join(options.schemasDir, RELEASED_DIR));
  const releasedOpenApi = released.get('openapi.json');
  if (!releasedOpenApi) return { stale, unreleased: true, findings: [], ok: false };
  const releasedEvents = Object.fromEntries(
    [...released]
      .filter(([name]) => name.startsWith(`${EVENTS_DIR}/`))
      .map(([name, text]) => [name.slice(EVENTS_DIR.length + 1, -'.json'.length), parseJson(text, name)]),
  );
  const openapi = parseJson(await readFile(options.openapiFile, 'utf8'), options.openapiFile);
  const findings = [
    ...compareEvents(releasedEvents, publishedEvents(events), options.now),
    ...compareOpenApi(parseJson(releasedOpenApi, RELEASED_OPENAPI), openapi),
  ];
  return { stale, unreleased: false, findings, ok: stale.length === 0 && !findings.some((f) => f.breaking) };
}

/**
 * Copies the published files and the OpenAPI document into `released/`.
 * Refuses while the check fails: a release never records a break (a break
 * is a new version, docs/contracts.md).
 */
export async function releaseContracts(options: ContractFiles): Promise<CheckReport> {
  const report = await checkContracts(options);
  if (report.stale.length > 0 || report.findings.some((f) => f.breaking)) return report;
  const files = publishedFiles(options.events ?? hireflowEvents);
  files.set('openapi.json', await readFile(options.openapiFile, 'utf8'));
  const releasedAt = (options.now ?? new Date()).toISOString().slice(0, 10);
  files.set('release.json', `${JSON.stringify({ releasedAt }, null, 2)}\n`);
  await writeTree(join(options.schemasDir, RELEASED_DIR), files);
  return { ...report, unreleased: false, ok: true };
}
