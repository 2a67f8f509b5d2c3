export { ownerHandlers } from './consumers.ts';
export { attachKnownOwners, isKnownOwner, type OwnerRef, recordOwner } from './store.ts';
