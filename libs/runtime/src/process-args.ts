// How a service process is started (issue 31): the same Node flags, preload
// and environment for the launcher, the benches and the image (the
// Dockerfile's `hireflow start` repeats them; docs/performance.md, "Footprint").
// No imports beyond Node's own: the launcher loads this without the runtime.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * - `--max-semi-space-size=4`: V8's young generation capped at 2 × 4 MB. By
 *   default V8 sizes it from the machine's memory, and on a server-class host
 *   a service's start-up garbage grows it to 64 MB that stays committed while
 *   the process idles: a third of an idle service's resident memory. The price
 *   is more scavenges (each smaller) under allocation-heavy load.
 * - `--heap-growing-percent=20`: the next full collection once the old
 *   generation has grown 20 % past what the last one left alive. V8 picks
 *   the factor itself, up to 4× for a small heap that collects fast, so a
 *   worker holding ~55 MB alive let garbage (short-lived objects the small
 *   young generation promotes) pile up to 100–150 MB more before collecting
 *   it: its RSS rose 1.4× from 1,000 to 10,000 events, a saw-tooth that read
 *   as a leak (docs/performance.md, "Footprint"). The price is more full
 *   collections (each marks the live heap, mostly off the main thread).
 * The footprint bench measures the RSS, the jobs-api bench the throughput.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=20'];

/**
 * Where Node keeps its compile cache for the services' modules
 * (`NODE_COMPILE_CACHE`): V8 code and, for the TypeScript sources, the
 * type-stripped output, so a process whose files are all cached never loads
 * the type stripper (~18 MB of a process, plus the memory it grows to) and
 * compiles less at start. Keyed by path and content: a changed file misses
 * and is cached again.
 */
export function compileCacheDir(root: string): string {
  return join(root, 'node_modules/.cache/hireflow-node');
}

/**
 * The folder (relative to `root`) of the service whose package declares the
 * name `@hireflow/<service>`: `services/<service>` for the four and for a
 * subscriber `pnpm new:subscriber` wrote there, or the folder its `--dir`
 * named, whatever that folder is called.
 */
export function serviceFolder(root: string, service: string): string {
  const declared = `@hireflow/${service}`;
  const conventional = join('services', service);
  if (packageNameIn(join(root, conventional)) === declared) return conventional;
  for (const entry of readdirSync(join(root, 'services')).sort()) {
    if (packageNameIn(join(root, 'services', entry)) === declared) return join('services', entry);
  }
  throw new Error(`no folder of services/ holds the package ${declared}, the service ${service}`);
}

function packageNameIn(folder: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

/** node's arguments for a service's process: the flags, the telemetry preload, the entry point. */
export function serviceNodeArgs(root: string, service: string): string[] {
  return [
    ...SERVICE_NODE_FLAGS,
    '--import',
    join(root, 'libs/telemetry/src/register.ts'),
    join(root, serviceFolder(root, service), 'src/main.ts'),
  ];
}

/**
 * glibc's malloc arenas for a service's process (`MALLOC_ARENA_MAX`). By
 * default glibc gives each thread that allocates an arena of its own, up to
 * 8 per core: V8's GC helpers and libuv's pool each keep pages of theirs
 * resident after the start, ~3.5 MB of an idle worker on the 2-core machine
 * (docs/performance.md, "Ninth pass"). JavaScript runs on one thread, V8's
 * heap does not use malloc, so two arenas lose no throughput the benches see.
 * An operator's own value wins.
 */
export const SERVICE_MALLOC_ARENA_MAX = '2';

/** The environment a service's process adds to its own: the compile cache, the malloc arenas. */
export function serviceProcessEnv(
  root: string,
  inherited: Record<string, string | undefined> = process.env,
): Record<string, string> {
  return {
    NODE_COMPILE_CACHE: compileCacheDir(root),
    MALLOC_ARENA_MAX: inherited.MALLOC_ARENA_MAX ?? SERVICE_MALLOC_ARENA_MAX,
  };
}
