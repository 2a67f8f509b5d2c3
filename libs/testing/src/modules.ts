import { fileURLToPath } from 'node:url';

/** The preload that records what a process loads (see module-recorder.ts): `--import` it first. */
export const moduleRecorder = fileURLToPath(new URL('./module-recorder.ts', import.meta.url));

/**
 * The npm packages among loaded module URLs, by name (`@grpc/grpc-js`,
 * `pg`): the package of the innermost `node_modules/` of each path.
 */
export function packagesOf(urls: Iterable<string>): Set<string> {
  const packages = new Set<string>();
  for (const url of urls) {
    const at = url.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const [scope, name] = url.slice(at + '/node_modules/'.length).split('/');
    if (scope) packages.add(scope.startsWith('@') && name ? `${scope}/${name}` : scope);
  }
  return packages;
}
