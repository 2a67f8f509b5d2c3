import { randomBytes } from 'node:crypto';

/** A name no other test (or a running `pnpm start`) uses: `<label>-<8 hex>`, lowercase. */
export function uniqueName(label: string): string {
  return `${label.toLowerCase().replace(/[^a-z0-9-]/g, '-')}-${randomBytes(4).toString('hex')}`;
}
