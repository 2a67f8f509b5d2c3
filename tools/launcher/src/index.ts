// The local platform as a library: what `pnpm start` runs, for tools that
// need whole systems of their own (`pnpm chaos`, `pnpm bench tracing`), and
// what `pnpm demo` and the README's configuration table read of it.

export { jobsCli } from './demo-tenant.ts';
export type { Gateway } from './gateway.ts';
export { startGateway } from './gateway.ts';
export { readLocalSecrets } from './local-secrets.ts';
export type { PlatformOptions, RunningPlatform } from './platform.ts';
export { startPlatform } from './platform.ts';
export type { LauncherSettings } from './settings.ts';
export { launcherSchema, loadLauncherSettings } from './settings.ts';
export type { ReceivedDelivery, WebhookReceiver } from './webhook-receiver.ts';
export { startWebhookReceiver } from './webhook-receiver.ts';
