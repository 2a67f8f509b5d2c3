// Writes libs/contracts/asyncapi.json from the schemas. A test fails when the
// committed file is stale: run `node libs/contracts/src/generate-asyncapi.ts`.
import { writeFile } from 'node:fs/promises';
import { renderAsyncApi } from './asyncapi.ts';

export const ASYNCAPI_PATH = new URL('../asyncapi.json', import.meta.url);

if (import.meta.main) {
  await writeFile(ASYNCAPI_PATH, renderAsyncApi());
  console.log(`wrote ${ASYNCAPI_PATH.pathname}`);
}
