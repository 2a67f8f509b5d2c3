// The import graph between packages and between the folders of one
// package's src/, and the cycles in it: a rule over edges, so a test can
// show it catching a cycle made up for the purpose.
import { dirname, join, relative } from 'node:path';
import type { SourceFile } from './rules.ts';
import { importsOf, isTestFile, packageNameOf, ROOT, type WorkspacePackage } from './source.ts';

export interface Edge {
  from: string;
  to: string;
  /** The file whose import makes the edge (the first one found). */
  file: string;
  /** Made by a test's file (a spec, a test, a fixture), not by what a process loads. */
  test: boolean;
}

/** Package → package edges: every import of another workspace package by one package's files. */
export function packageEdges(pkg: WorkspacePackage, files: SourceFile[], names: Set<string>): Edge[] {
  const edges = new Map<string, Edge>();
  for (const file of files) {
    const test = isTestFile(file.path) || pkg.dir === ROOT;
    for (const specifier of importsOf(file.text)) {
      const to = packageNameOf(specifier);
      if (!to || to === pkg.name || !names.has(to)) continue;
      const key = `${to}:${test}`;
      if (!edges.has(key)) edges.set(key, { from: pkg.name, to, file: file.path, test });
    }
  }
  return [...edges.values()];
}

/**
 * The cycles of a graph, one per strongly connected component of two or
 * more nodes, each as a closed path (`a → b → a`).
 */
export function cycles(edges: { from: string; to: string }[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) next.set(from, (next.get(from) ?? new Set()).add(to));
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component);
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => closedPath(component, next));
}

/** A path through a component that returns to its start (breadth first from its first node, by name). */
function closedPath(component: string[], next: Map<string, Set<string>>): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of [...(next.get(node) ?? [])].sort()) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [...component, component[0]!];
}

/**
 * Package cycles, counting tests' imports too, but for one edge kind: a test
 * importing the test helpers (`@hireflow/testing` provisions with the ops
 * tools and starts the emulator, whose own tests use the helpers).
 */
export function packageCycleViolations(edges: Edge[]): string[] {
  const counted = edges.filter((e) => !(e.test && e.to === '@hireflow/testing'));
  return cycles(counted).map((path) => {
    const via = path.slice(1).map((to, i) => counted.find((e) => e.from === path[i] && e.to === to)!.file);
    return `package cycle: ${path.join(' → ')} (${via.join(', ')})`;
  });
}

/** One folder inside the other (`src` and `src/metrics`): a folder may use its parent's shared files and be used by them. */
const nested = (a: string, b: string) => a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/**
 * Folder cycles inside one package's `src/`: folder A imports from folder B
 * and B, through any path, from A, where neither holds the other (the
 * folder of a file is a node). An `index.ts` re-exporting its subfolders is
 * the folder's surface and makes no edge.
 */
export function folderCycleViolations(pkg: WorkspacePackage, files: SourceFile[]): string[] {
  const src = join(relative(ROOT, pkg.dir), 'src');
  const edges: { from: string; to: string }[] = [];
  for (const file of files.filter((f) => f.path.startsWith(`${src}/`) && !f.path.endsWith('/index.ts'))) {
    for (const specifier of importsOf(file.text)) {
      if (!specifier.startsWith('.')) continue;
      const target = join(dirname(file.path), specifier);
      if (!target.startsWith(`${src}/`)) continue;
      const [from, to] = [dirname(file.path), dirname(target)].map((d) => relative(pkg.dir, join(ROOT, d)));
      if (from !== to && !nested(from!, to!)) edges.push({ from: from!, to: to! });
    }
  }
  return cycles(edges).map((path) => `folder cycle in ${pkg.name}: ${path.join(' → ')}`);
}
