// Named load profiles. `small` is the load the README's cost table assumes
// (about 100,000 events a day, 1 M API requests a month) and the one the AWS
// app builds by default (`-c capacityProfile=...` picks another).
import type { LoadProfile } from './model.ts';

const small: LoadProfile = {
  name: 'small',
  description: 'a small board: 50 tenants, 100k candidates, ~100k events a day',
  tenants: 50,
  candidatesPerTenant: 2_000,
  largestTenantCandidates: 20_000,
  openPostingsPerTenant: 200,
  postingsPerDay: 3_000,
  registrationsPerDay: 20_000,
  uploadsPerDay: 5_000,
  apiRequestsPerDay: 33_000,
  // A browser tab watching a posting it sent, for a minute or two after it: a few hundred at once.
  peakOpenStreams: 300,
  emailsPerPosting: 5,
  matchesPerCandidate: 2,
  peakFactor: 4,
  backlogMinutes: 10,
};

/** 100× the load: 100× the tenants and the daily work, the largest tenant 10× larger. */
const x100: LoadProfile = {
  ...small,
  name: 'x100',
  description: '100× small: 5,000 tenants, 10M candidates, ~9M events a day',
  tenants: 5_000,
  largestTenantCandidates: 200_000,
  postingsPerDay: 300_000,
  registrationsPerDay: 2_000_000,
  uploadsPerDay: 500_000,
  apiRequestsPerDay: 3_300_000,
  peakOpenStreams: 30_000,
};

/** 10,000× the load: a national market's every board on one deployment. */
const x10000: LoadProfile = {
  ...small,
  name: 'x10000',
  description: '10,000× small: 50,000 tenants, 1B candidates, ~900M events a day',
  tenants: 50_000,
  candidatesPerTenant: 20_000,
  largestTenantCandidates: 2_000_000,
  postingsPerDay: 30_000_000,
  registrationsPerDay: 200_000_000,
  uploadsPerDay: 50_000_000,
  apiRequestsPerDay: 330_000_000,
  peakOpenStreams: 3_000_000,
};

export const capacityProfiles: Record<string, LoadProfile> = { small, x100, x10000 };
export const DEFAULT_CAPACITY_PROFILE = 'small';
