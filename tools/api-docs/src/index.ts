export { configTables, markdownTable } from './config-table.ts';
export { buildPublicApiDocument, INFO, SERVERS, TAGS } from './document.ts';
export {
  describePublicServices,
  documentText,
  generatePublicApiDocument,
  PUBLIC_API_DOCUMENT,
  readCommittedDocument,
} from './generate.ts';
export type { LintProblem, LintResult } from './lint.ts';
export { ASYNCAPI_DOCUMENT, lintOpenApi, parseAsyncApi } from './lint.ts';
