import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { configTables } from '@hireflow/api-docs';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

// Markdown tables compared cell by cell: the formatter may pad columns.
const tableRows = (markdown: string): string[] =>
  markdown
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim())
        .join('|'),
    );

describe('README', () => {
  it('carries the configuration tables generated from the config schemas', async () => {
    const readme = await readFile(resolve(root, 'README.md'), 'utf8');
    const { sections } = await configTables();
    const rows = tableRows(readme);
    for (const [title, table] of Object.entries(sections)) {
      expect(readme, `README has no section "${title}": run pnpm readme:config`).toContain(`### ${title}`);
      for (const row of tableRows(table)) expect(rows, `run pnpm readme:config`).toContain(row);
    }
  });

  it('shows the quick start and the test command', async () => {
    const readme = await readFile(resolve(root, 'README.md'), 'utf8');
    // The quick start is exactly the two commands of a fresh machine (issue 32).
    const quickStart = readme.split('## Quick start')[1]?.split('```sh\n')[1]?.split('```')[0] ?? '';
    expect(
      quickStart
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('#')[0]?.trim()),
    ).toEqual(['./hireflow start', './hireflow test']);
    for (const command of [
      'source scripts/env.sh',
      'pnpm install --frozen-lockfile',
      'pnpm start',
      'pnpm test',
      'pnpm bench',
    ]) {
      expect(readme).toContain(command);
    }
    const pkg = JSON.parse(await readFile(resolve(root, 'package.json'), 'utf8'));
    for (const script of ['start', 'test', 'bench', 'lint', 'typecheck', 'provision'])
      expect(pkg.scripts[script]).toBeDefined();
  });
});
