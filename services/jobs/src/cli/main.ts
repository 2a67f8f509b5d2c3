// `pnpm cli api-key create <tenant> --contact <email> [--json]`
// `pnpm cli api-key revoke <keyId>`
// `pnpm cli api-key announce [--json]`
// Reads the jobs service's configuration (DATABASE_URL, …) like the service.
import { parseArgs } from 'node:util';
import { ConfigError } from '@hireflow/config';
import { createDatabase, ensureDatabase, migrateDatabase } from '@hireflow/db';
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { migrations } from '../db/schema.ts';
import { announceApiKeys, issueApiKey, revokeApiKey } from '../modules/tenants/api-keys.ts';

const USAGE = `usage:
  pnpm cli api-key create <tenant> --contact <email> [--json]   create the tenant if new, print a new API key
  pnpm cli api-key revoke <keyId>                                revoke a key
  pnpm cli api-key announce [--json]                             publish every key again (apikey.issued/revoked.v1) for consumers that missed them`;

function fail(message: string, code = 64): never {
  console.error(message);
  process.exit(code);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    contact: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean' },
  },
});
const [group, action, arg] = positionals;
if (values.help || group !== 'api-key' || !action) fail(USAGE, values.help ? 0 : 64);

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error), 78);
}
await ensureDatabase(config.DATABASE_URL);
const signing = { eventKey: config.APIKEY_EVENT_KEY };
const orm = createDatabase({ url: config.DATABASE_URL, migrations, poolMax: 2 });
try {
  await migrateDatabase(orm);
  if (action === 'create') {
    const tenant = z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
      .safeParse(arg);
    if (!tenant.success)
      fail(`tenant must be lowercase letters, digits and dashes (got ${JSON.stringify(arg)})\n${USAGE}`);
    const contact = z.email().max(254).safeParse(values.contact);
    if (!contact.success) fail(`--contact must be an email address\n${USAGE}`);
    const issued = await issueApiKey(orm.em.fork(), tenant.data, contact.data, signing);
    if (values.json) console.log(JSON.stringify(issued));
    else {
      console.log(`tenant ${issued.tenantName} (${issued.tenantId})`);
      console.log(`key id ${issued.keyId}`);
      console.log(`API key (shown once): ${issued.key}`);
    }
  } else if (action === 'revoke') {
    if (!z.uuid().safeParse(arg).success) fail(`keyId must be a UUID\n${USAGE}`);
    if (!(await revokeApiKey(orm.em.fork(), arg!, signing))) fail(`no API key ${arg}`, 1);
    console.log(`revoked ${arg}`);
  } else if (action === 'announce') {
    const counts = await announceApiKeys(orm.em.fork(), signing);
    if (values.json) console.log(JSON.stringify(counts));
    else console.log(`announced ${counts.issued} active and ${counts.revoked} revoked keys`);
  } else {
    fail(USAGE);
  }
} finally {
  await orm.close();
}
