// Reading the Dockerfile as data: its instructions by stage, and what a
// `pnpm install --filter-prod …` of one stage selects, asked of pnpm itself.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface Instruction {
  keyword: string;
  args: string;
  heredoc?: string;
}

/** Dockerfile instructions: comments dropped, `\` continuations joined, heredoc bodies attached. */
export function parseDockerfile(text: string): Instruction[] {
  const lines = text.split('\n');
  const instructions: Instruction[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
    const [, keyword = '', args = ''] = /^\s*(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction: Instruction = { keyword: keyword.toUpperCase(), args };
    const delimiter = /<<-?['"]?(\w+)['"]?/.exec(args)?.[1];
    if (delimiter) {
      const body: string[] = [];
      while (i + 1 < lines.length && lines[i + 1] !== delimiter) body.push(lines[++i]!);
      i++;
      instruction.heredoc = `${body.join('\n')}\n`;
    }
    instructions.push(instruction);
  }
  return instructions;
}

/** The instructions of each named stage (`FROM … AS <name>`), in order; the unnamed stage is ''. */
export function stagesOf(instructions: Instruction[]): Map<string, Instruction[]> {
  const stages = new Map<string, Instruction[]>();
  let current: Instruction[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      current = [];
      stages.set(/\sAS\s+(\S+)/i.exec(instruction.args)?.[1] ?? '', current);
    }
    current.push(instruction);
  }
  return stages;
}

/** The `pnpm install` of a stage, and its filters (`--filter` and `--filter-prod` apart). */
export function installOf(stage: Instruction[]): { run: string; filterProd: string[]; filter: string[] } {
  const run = stage.find((i) => i.keyword === 'RUN' && /\bpnpm install\b/.test(i.args))?.args ?? '';
  const all = (flag: string) => [...run.matchAll(new RegExp(`${flag}\\s+'([^']+)'`, 'g'))].map((m) => m[1]!);
  return { run, filterProd: all('--filter-prod'), filter: all('--filter') };
}

/** The workspace packages pnpm selects for `--filter-prod` filters (the project list `pnpm ls` prints). */
export async function pnpmSelection(root: string, filterProd: string[]): Promise<string[]> {
  const args = ['ls', '--json', '--depth', '-1', ...filterProd.flatMap((f) => ['--filter-prod', f])];
  const { stdout } = await promisify(execFile)('pnpm', args, { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return (JSON.parse(stdout) as { name: string }[]).map((p) => p.name).sort();
}
