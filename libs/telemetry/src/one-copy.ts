// One copy of the OpenTelemetry API in a process (issue 31, fifth pass).
// `@opentelemetry/api` and `@opentelemetry/semantic-conventions` ship an ESM
// and a CommonJS build, chosen by the `import` / `require` condition. The SDK,
// the instrumentations and Hireflow's code import the ESM build; `@fastify/otel`
// is CommonJS and `require`s the other, so every traced process loaded both:
// 51 more modules of the API and 7 of the conventions (~370 kB of source
// kept as strings, their constant tables built twice), ~1.3 MB of RSS. Here a
// `require` of either package resolves to its ESM build, which Node 24 loads
// for `require` as well (require(esm)): one module instance, shared.
// The two builds of one version are the same API; the global registry already
// made them share state (Symbol.for), so nothing recorded changes.
import { registerHooks } from 'node:module';

/** Packages whose CommonJS build a `require` is sent past: the same version's ESM build is loaded instead. */
export const ESM_ONLY_PACKAGES: readonly string[] = [
  '@opentelemetry/api',
  '@opentelemetry/semantic-conventions',
];

/** The conditions to resolve `specifier` with: `require` swapped for `import` for the packages above. */
export function oneCopyConditions(specifier: string, conditions: readonly string[]): readonly string[] {
  if (!ESM_ONLY_PACKAGES.includes(specifier) || !conditions.includes('require')) return conditions;
  return conditions.map((condition) => (condition === 'require' ? 'import' : condition));
}

/** Installs the resolve hook (synchronous module hooks, Node 22.15 and later; nothing on older). */
export function loadOneCopyOfTheApi(): void {
  if (typeof registerHooks !== 'function') return;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const conditions = context.conditions && oneCopyConditions(specifier, context.conditions);
      return conditions === context.conditions
        ? nextResolve(specifier, context)
        : nextResolve(specifier, { ...context, conditions: [...(conditions ?? [])] });
    },
  });
}
