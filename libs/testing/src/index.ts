export type { TestDatabase } from './database.ts';
export { createTestDatabase } from './database.ts';
export { uniqueName } from './names.ts';
export type { TcpProxy } from './tcp-proxy.ts';
export { startTcpProxy } from './tcp-proxy.ts';
export type { TestAws } from './topology.ts';
export { testAws, testTopology } from './topology.ts';
export { waitFor } from './wait.ts';
