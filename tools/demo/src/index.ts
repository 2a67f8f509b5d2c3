export type { DemoCandidate, DemoRole } from './cast.ts';
export { demoCast } from './cast.ts';
export { demoLogo } from './logo.ts';
