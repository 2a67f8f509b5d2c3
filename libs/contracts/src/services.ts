// The services and where they listen: the one definition that each service's
// default PORT, the launcher, the image's `hireflow` script, docker-compose
// (checked by a test) and the AWS stack read (docs/design.md, "Listeners").

/** Every service, in the order of its port. */
export const SERVICE_NAMES = ['jobs', 'matching', 'notifications', 'media'] as const;

/** The services of the system; each publishes on at most one topic and consumes one inbox. */
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** jobs' port; each next service listens on the next one (3001–3004). */
export const SERVICE_PORT_BASE = 3001;

/** A service's admin listener is its port plus this (4001–4004). */
export const ADMIN_PORT_OFFSET = 1000;

/** The public API's one base URL locally (`pnpm start`'s gateway in front of jobs, media and notifications). */
export const PUBLIC_API_PORT = 3000;

/** A service's port, counted from `base` (the launcher's HIREFLOW_PORT_BASE); 0 stays 0, a free port. */
export function servicePort(service: ServiceName, base: number = SERVICE_PORT_BASE): number {
  return base === 0 ? 0 : base + SERVICE_NAMES.indexOf(service);
}

/** The admin port that goes with a service port; 0 stays 0. */
export function adminPortFor(port: number): number {
  return port === 0 ? 0 : port + ADMIN_PORT_OFFSET;
}
