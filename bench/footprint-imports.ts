// Where a service process's memory goes (issue 31): imports a list of modules
// one after another in this process and prints, after each, the resident set
// and V8 heap once garbage is collected, and the time the import took. The
// deltas are cumulative (a module already loaded by an earlier step costs
// nothing later), so the order is part of the answer.
//   node --expose-gc bench/footprint-imports.ts <specifier | path | dir:specifier>...
// `dir:specifier` imports a package as the workspace package in `dir` sees it
// (a dependency of libs/db, say, is not one of the root's).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

function sample() {
  gc!();
  gc!();
  const m = process.memoryUsage();
  const status = readFileSync('/proc/self/status', 'utf8');
  const anon = Number(/^RssAnon:\s+(\d+) kB/m.exec(status)?.[1]) / 1000;
  const file = Number(/^RssFile:\s+(\d+) kB/m.exec(status)?.[1]) / 1000;
  return { rss: m.rss / 1e6, heap: m.heapUsed / 1e6, external: m.external / 1e6, anon, file };
}

let probes = 0;
const rows: Record<string, string | number>[] = [];
let last = sample();
rows.push({ step: '(start)', 'RSS MB': last.rss.toFixed(1), 'heap MB': last.heap.toFixed(1), ms: 0 });
for (const spec of process.argv.slice(2)) {
  const [dir, name] = spec.includes(':') ? spec.split(':') : [undefined, spec];
  // A one-line module in that package's folder, so Node resolves the name from there.
  const probe = dir && join(resolve(dir), `.footprint-probe-${process.pid}-${probes++}.mjs`);
  if (probe) writeFileSync(probe, `import ${JSON.stringify(name)};\n`);
  const target = probe ?? (/^[./]/.test(name!) ? pathToFileURL(resolve(name!)).href : name!);
  const t = performance.now();
  try {
    await import(probe ? pathToFileURL(probe).href : target);
  } finally {
    if (probe) rmSync(probe);
  }
  const ms = performance.now() - t;
  const now = sample();
  rows.push({
    step: spec,
    'RSS MB': now.rss.toFixed(1),
    'Δ RSS': (now.rss - last.rss).toFixed(1),
    'heap MB': now.heap.toFixed(1),
    'Δ heap': (now.heap - last.heap).toFixed(1),
    'anon MB': now.anon.toFixed(1),
    'file MB': now.file.toFixed(1),
    ms: Math.round(ms),
  });
  last = now;
}
console.table(rows);
