// pnpm's install hook (https://pnpm.io/pnpmfile): what only tooling uses is
// dropped from the packages that name it, so that a production install (the
// image, `pnpm image:size`) does not link it (docs/deploy.md, "What the image
// carries"):
// - optional peers: pnpm fills them from the workspace root, where TypeScript,
//   the Node type definitions and supports-color are devDependencies; valibot
//   (through Bull Board) names TypeScript (~28 MB), sharp names @types/node,
//   debug names supports-color (two variants of it split ioredis and BullMQ
//   into two copies each);
// - type definitions the pg instrumentation declares as dependencies
//   (@types/pg, and with it two @types/node): nothing reads them at run time,
//   and the workspace's type checks have their own.
const DROPPED_PEERS = {
  valibot: ['typescript'],
  sharp: ['@types/node'],
  debug: ['supports-color'],
};
const DROPPED_DEPENDENCIES = {
  '@opentelemetry/instrumentation-pg': ['@types/pg', '@types/pg-pool'],
};

function readPackage(pkg) {
  for (const peer of DROPPED_PEERS[pkg.name] ?? []) {
    delete pkg.peerDependencies?.[peer];
    delete pkg.peerDependenciesMeta?.[peer];
  }
  for (const dependency of DROPPED_DEPENDENCIES[pkg.name] ?? []) delete pkg.dependencies?.[dependency];
  return pkg;
}

export const hooks = { readPackage };
