import { describe, expect, it } from 'vitest';
import { ADMIN_PORT_OFFSET, adminPortFor, PUBLIC_API_PORT, SERVICE_NAMES, servicePort } from './services.ts';

describe('service ports', () => {
  it("are docs/design.md's: 3001–3004, admin 4001–4004, the public API on 3000", () => {
    expect(Object.fromEntries(SERVICE_NAMES.map((s) => [s, servicePort(s)]))).toEqual({
      jobs: 3001,
      matching: 3002,
      notifications: 3003,
      media: 3004,
    });
    expect(SERVICE_NAMES.map((s) => adminPortFor(servicePort(s)))).toEqual([4001, 4002, 4003, 4004]);
    expect(ADMIN_PORT_OFFSET).toBe(1000);
    expect(PUBLIC_API_PORT).toBe(3000);
  });

  it('count from another base, and 0 (free ports) stays 0', () => {
    expect(servicePort('notifications', 5001)).toBe(5003);
    expect(servicePort('media', 0)).toBe(0);
    expect(adminPortFor(0)).toBe(0);
  });
});
