import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from './webhooks.ts';

const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const body = JSON.stringify({
  type: 'posting.matched',
  timestamp: '2026-12-01T12:00:00Z',
  data: { matchCount: 3 },
});

function signed(id = 'msg_1', at = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

describe('verifyWebhook', () => {
  it('returns the body of a delivery signed with the secret (Node headers, fetch Headers)', () => {
    expect(verifyWebhook(body, signed(), secret)).toMatchObject({
      type: 'posting.matched',
      data: { matchCount: 3 },
    });
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(signed()), secret).type).toBe(
      'posting.matched',
    );
  });

  it('accepts either of two signatures (a rotation) and refuses a tampered body or an old timestamp', () => {
    const headers = signed();
    const other = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    const both = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
    expect(verifyWebhook(body, both, secret).type).toBe('posting.matched');
    expect(() => verifyWebhook(`${body} `, headers, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, headers, other)).toThrow(WebhookVerificationError);
    const old = signed('msg_1', new Date(Date.now() - 10 * 60_000));
    expect(() => verifyWebhook(body, old, secret)).toThrow(WebhookVerificationError);
  });
});
