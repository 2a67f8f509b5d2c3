// The local platform as a library: what `pnpm start` runs, for tools that
// need whole systems of their own (`pnpm bench tracing`).
export type { PlatformOptions, RunningPlatform } from './platform.ts';
export { startPlatform } from './platform.ts';
export type { LauncherSettings } from './settings.ts';
export { loadLauncherSettings } from './settings.ts';
