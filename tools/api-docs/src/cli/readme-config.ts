// `pnpm readme:config`: rewrites the README's configuration section from the
// config schemas. test/readme.test.ts fails when it is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { configTables } from '../config-table.ts';

const file = resolve(import.meta.dirname, '../../../../README.md');
const readme = await readFile(file, 'utf8');
const start = readme.indexOf('<!-- config:start');
const end = readme.indexOf('<!-- config:end -->');
if (start < 0 || end < 0) throw new Error('README.md has no config:start/config:end markers');
const t = await configTables();
const sections = Object.entries(t.sections)
  .map(([title, table]) => `### ${title}\n\n${table}`)
  .join('\n\n');
const header = readme.slice(start, readme.indexOf('\n', start) + 1);
await writeFile(file, `${readme.slice(0, start)}${header}${sections}\n${readme.slice(end)}`);
console.log('README.md configuration tables rewritten');
