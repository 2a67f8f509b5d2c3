// `pnpm --filter @hireflow/client generate` (or `pnpm api:generate` at the
// root): src/openapi.generated.ts from docs/api/openapi.json.
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { GENERATED_TYPES, generateTypes, PUBLIC_API_DOCUMENT } from './generate-types.ts';

const document = JSON.parse(await readFile(PUBLIC_API_DOCUMENT, 'utf8'));
await writeFile(GENERATED_TYPES, await generateTypes(document));
console.log(
  `wrote ${relative(process.cwd(), GENERATED_TYPES)} from ${relative(process.cwd(), PUBLIC_API_DOCUMENT)}`,
);
