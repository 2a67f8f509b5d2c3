import { describe, expect, it } from 'vitest';
import { checkLiteralHost, DeliveryRefused, nonPublicReason, urlProblem } from './ssrf.ts';

describe('nonPublicReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
  ])('refuses %s as %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '172.32.0.1'])(
    'lets public %s through',
    (address) => {
      expect(nonPublicReason(address)).toBeUndefined();
    },
  );
});

describe('urlProblem', () => {
  it('wants https unless http is allowed', () => {
    expect(urlProblem('http://example.com/hook', { allowHttp: false })).toBe('must be an https URL');
    expect(urlProblem('http://example.com/hook', { allowHttp: true })).toBeUndefined();
    expect(urlProblem('https://example.com/hook', { allowHttp: false })).toBeUndefined();
    expect(urlProblem('ftp://example.com/', { allowHttp: true })).toBe('must be an http or https URL');
    expect(urlProblem('https://u:p@example.com/', { allowHttp: false })).toBe('must not carry credentials');
    expect(urlProblem('not a url', { allowHttp: false })).toBe('must be an absolute URL');
  });
});

describe('checkLiteralHost', () => {
  it('refuses a private literal unless allowed', () => {
    expect(() => checkLiteralHost('[::1]', { allowHttp: true, allowPrivate: false })).toThrow(
      DeliveryRefused,
    );
    expect(() => checkLiteralHost('10.0.0.1', { allowHttp: true, allowPrivate: false })).toThrow(
      'address refused: private',
    );
    expect(() => checkLiteralHost('10.0.0.1', { allowHttp: true, allowPrivate: true })).not.toThrow();
    expect(() => checkLiteralHost('example.com', { allowHttp: true, allowPrivate: false })).not.toThrow();
  });
});
