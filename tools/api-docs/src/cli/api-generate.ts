// `pnpm api:generate`: writes docs/api/openapi.json from the routes of jobs and
// media (then `pnpm --filter @hireflow/client generate` makes the client's types).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { documentText, generatePublicApiDocument, PUBLIC_API_DOCUMENT } from '../generate.ts';

const document = await generatePublicApiDocument();
await mkdir(dirname(PUBLIC_API_DOCUMENT), { recursive: true });
await writeFile(PUBLIC_API_DOCUMENT, documentText(document));
const operations = Object.values(document.paths).flatMap((item) => Object.keys(item)).length;
console.log(`wrote ${relative(process.cwd(), PUBLIC_API_DOCUMENT)}: ${operations} operations`);
