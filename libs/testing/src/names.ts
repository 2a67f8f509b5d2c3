import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

/** A name no other test (or a running `pnpm start`) uses: `<label>-<8 hex>`, lowercase. */
export function uniqueName(label: string): string {
  return `${label.toLowerCase().replace(/[^a-z0-9-]/g, '-')}-${randomBytes(4).toString('hex')}`;
}

/** A loopback port nothing listens on right now (bound, read, released): for a test that needs a closed port or a port number before it starts a server. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Every port a launched system (`pnpm start`, the launcher) listens on, free
 * ones: the launcher's own list, where its port settings are (the launcher
 * must not depend on the test helpers).
 */
export { FREE_PORTS } from '@hireflow/launcher/free-ports';
