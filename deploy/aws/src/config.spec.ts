import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_COLLECTOR_IMAGE, settingsFromContext, stackNameOf } from './config.ts';

const HTTPS = {
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0b5c1f4e-1111-2222-3333-444455556666',
  publicUrl: 'https://api.example.com',
};
const fromContext = (context: Record<string, unknown>) =>
  settingsFromContext((key) => ({ ...HTTPS, ...context })[key]);

describe('stack settings from CDK context', () => {
  it('defaults to the plain topology names, a Docker build of the repository and one zone per store', () => {
    expect(fromContext({})).toEqual({
      ...HTTPS,
      prefix: '',
      collectorImage: DEFAULT_COLLECTOR_IMAGE,
      multiAz: false,
      capacityProfile: 'small',
      traceSampleRatio: 0.1,
      subscribers: [],
    });
    expect(stackNameOf(fromContext({}))).toBe('hireflow');
  });

  it('takes strings from -c and values from cdk.json alike', () => {
    const settings = fromContext({
      prefix: 'staging-',
      multiAz: 'true',
      imageUri: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/hireflow:1.2.3',
      certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0b5c1f4e-1111-2222-3333-444455556666',
      publicUrl: 'https://api.example.com',
      alertEmail: 'oncall@example.com',
    });
    expect(settings).toMatchObject({
      prefix: 'staging-',
      multiAz: true,
      publicUrl: 'https://api.example.com',
    });
    expect(stackNameOf(settings)).toBe('hireflow-staging');
    expect(fromContext({ multiAz: true }).multiAz).toBe(true);
    expect(fromContext({ traceSampleRatio: '1' }).traceSampleRatio).toBe(1);
  });

  it('names each bad key', () => {
    const error = (() => {
      try {
        fromContext({
          prefix: 'Not Valid',
          imageUri: 'latest',
          multiAz: 'yes',
          alertEmail: 'oncall',
          traceSampleRatio: '2',
        });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable).sort()).toEqual([
      'alertEmail',
      'imageUri',
      'multiAz',
      'prefix',
      'traceSampleRatio',
    ]);
  });

  it('serves HTTPS only: wants a certificate and the https URL of its domain', () => {
    expect(() => settingsFromContext(() => undefined)).toThrow(/certificateArn: is required/);
    expect(() => fromContext({ publicUrl: undefined })).toThrow(/publicUrl: is required/);
    expect(() => fromContext({ publicUrl: 'http://api.example.com' })).toThrow(
      /publicUrl: must be the https:\/\//,
    );
  });
});
