import { describe, expect, it } from 'vitest';
import { newSecret, sign, webhookHeaders } from './signing.ts';

describe('Standard Webhooks signing', () => {
  it('makes whsec_ secrets of 24 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(newSecret()).not.toBe(secret);
  });

  it("matches the spec's published example", () => {
    // The example of the Standard Webhooks specification (spec/standard-webhooks.md).
    const signature = sign(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with every secret given, space separated', () => {
    const headers = webhookHeaders('d1', '{}', [newSecret(), newSecret()], new Date(1_700_000_000_000));
    expect(headers['webhook-id']).toBe('msg_d1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
  });
});
