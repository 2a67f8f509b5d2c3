// Which service answers which public path: the one base URL's routing
// table. The local gateway (`pnpm start`, tools/launcher/src/gateway.ts)
// forwards by it, the AWS stack's load balancer rules are made from it
// (deploy/aws/src/plan.ts), and a test checks that every path of the public
// document goes to the service that serves it.

export type PublicService = 'jobs' | 'media' | 'notifications';

export interface PublicRoute {
  /** A path prefix: the path itself, or the path followed by `/` (or `?`). */
  prefix: string;
  service: PublicService;
}

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { prefix: '/v1/jobs', service: 'jobs' },
  { prefix: '/v1/candidates', service: 'jobs' },
  { prefix: '/v1/webhooks', service: 'jobs' },
  // A custom method (AIP-136 style): one exact path of its own, not under /v1/candidates/.
  { prefix: '/v1/candidates:batch', service: 'jobs' },
  { prefix: '/v1/uploads', service: 'media' },
  { prefix: '/media', service: 'media' },
  // The one-click unsubscribe links of emails: public, for mail clients, not in the API document.
  { prefix: '/v1/unsubscribe', service: 'notifications' },
  // The link of a contact-confirmation email (a posting's contact address): the same kind.
  { prefix: '/v1/contacts/confirm', service: 'notifications' },
];

/** A service's load balancer path patterns (the AWS stack's listener rules). */
export function patternsOf(service: PublicService): string[] {
  return PUBLIC_ROUTES.filter((route) => route.service === service).flatMap(loadBalancerPatterns);
}

/** The service that answers `path` (a request target, query allowed), or undefined: not public. */
export function routeOf(path: string): PublicService | undefined {
  const pathname = path.split('?', 1)[0]!;
  return PUBLIC_ROUTES.find((route) => pathname === route.prefix || pathname.startsWith(`${route.prefix}/`))
    ?.service;
}

/**
 * The load balancer's path patterns of a route (ALB listener rules): the
 * prefix and everything under it; a custom method (`/v1/candidates:batch`)
 * only itself, since an ALB rule takes at most five patterns.
 */
export function loadBalancerPatterns(route: PublicRoute): string[] {
  return route.prefix.includes(':') ? [route.prefix] : [route.prefix, `${route.prefix}/*`];
}
