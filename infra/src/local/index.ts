// The local platform as a library: what `pnpm start` runs, for tools that
// need whole systems of their own (`pnpm bench tracing`).

export type { Gateway } from './gateway.ts';
export { startGateway } from './gateway.ts';
export type { PlatformOptions, RunningPlatform } from './platform.ts';
export { startPlatform } from './platform.ts';
export type { LauncherSettings } from './settings.ts';
export { launcherSchema, loadLauncherSettings } from './settings.ts';
