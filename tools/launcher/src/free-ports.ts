// No imports: the test helpers (@hireflow/testing re-exports this) load it
// without the launcher, and the launcher depends on the test helpers in its
// tests only (docs/decisions.md, "One helper, one list").

/**
 * Every port setting of `pnpm start` (settings.ts) at 0, free ports: never
 * the defaults, which a developer's `pnpm start` or another test file may
 * hold. Spread into the environment of a launcher that runs beside others
 * (the tests, `pnpm burst`, the chaos soak, the benches).
 */
export const FREE_PORTS = {
  HIREFLOW_PORT_BASE: '0',
  HIREFLOW_API_PORT: '0',
  EMULATOR_PORT: '0',
  MAIL_SMTP_PORT: '0',
  MAIL_UI_PORT: '0',
  WEBHOOK_RECEIVER_PORT: '0',
  PROMETHEUS_PORT: '0',
  TRACE_OTLP_PORT: '0',
  TRACE_UI_PORT: '0',
} as const;
