export { apiKeyHandlers } from './consumers.ts';
export { applyIssued, applyRevoked, describeKey, findActiveKey } from './store.ts';
