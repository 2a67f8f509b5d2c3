export { ownerHandlers } from './consumers.ts';
export { attachKnownOwners, type OwnerRef, recordOwner } from './store.ts';
