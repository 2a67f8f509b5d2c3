// `pnpm lint:api`: Redocly's recommended rules on docs/api/openapi.json and
// the AsyncAPI parser on libs/contracts/schemas/asyncapi.json; exit 1 on any error
// or warning.
import { relative } from 'node:path';
import { PUBLIC_API_DOCUMENT } from '../generate.ts';
import { ASYNCAPI_DOCUMENT, type LintResult, lintOpenApi, parseAsyncApi } from '../lint.ts';

let failed = false;
const report = (file: string, what: string, result: LintResult) => {
  const name = relative(process.cwd(), file);
  for (const p of result.problems) console.log(`${name}: ${p.severity} ${p.rule}: ${p.message} (${p.where})`);
  console.log(`${name}: ${what}: ${result.errors} errors, ${result.warnings} warnings`);
  failed ||= result.errors + result.warnings > 0;
};
report(PUBLIC_API_DOCUMENT, 'redocly lint (recommended)', await lintOpenApi(PUBLIC_API_DOCUMENT));
report(ASYNCAPI_DOCUMENT, 'asyncapi parse', await parseAsyncApi(ASYNCAPI_DOCUMENT));
process.exitCode = failed ? 1 : 0;
