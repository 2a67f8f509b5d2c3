// The secrets that are not credentials of a data store: the admin token every
// admin listener requires in production, the key notifications signs its
// unsubscribe links with, and the SMTP URL, which only the operator knows.
import { SecretValue, Stack } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** Generated values are letters and digits only: they go into URLs and headers unescaped. */
export const URL_SAFE: secretsmanager.SecretStringGenerator = {
  excludePunctuation: true,
  includeSpace: false,
};

/** Until the operator puts the real URL, sends fail and are retried (BullMQ backoff): nothing is lost. */
export const SMTP_URL_PLACEHOLDER = 'smtp://smtp-url-not-set.invalid:587';

export class AppSecrets extends Construct {
  /** ADMIN_TOKEN of every service (Bearer, or the Basic password, on the admin ports). */
  readonly adminToken: secretsmanager.Secret;
  /** UNSUBSCRIBE_SIGNING_KEY of notifications. */
  readonly unsubscribeSigningKey: secretsmanager.Secret;
  /** APIKEY_EVENT_KEY of jobs (signs apikey.* events) and media (refuses unsigned ones); no other service's. */
  readonly apiKeyEventKey: secretsmanager.Secret;
  /** SMTP_URL of notifications; named, so the operator can find and fill it. */
  readonly smtpUrl: secretsmanager.Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.adminToken = new secretsmanager.Secret(this, 'AdminToken', {
      description: 'ADMIN_TOKEN of the Hireflow admin listeners (metrics, Bull Board, /internal)',
      generateSecretString: { ...URL_SAFE, passwordLength: 48 },
    });
    this.unsubscribeSigningKey = new secretsmanager.Secret(this, 'UnsubscribeSigningKey', {
      description: 'UNSUBSCRIBE_SIGNING_KEY of notifications (signs one-click unsubscribe links)',
      generateSecretString: { ...URL_SAFE, passwordLength: 64 },
    });
    this.apiKeyEventKey = new secretsmanager.Secret(this, 'ApiKeyEventKey', {
      description: 'APIKEY_EVENT_KEY of jobs and media (signs and checks the API-key events)',
      generateSecretString: { ...URL_SAFE, passwordLength: 64 },
    });
    this.smtpUrl = new secretsmanager.Secret(this, 'SmtpUrl', {
      secretName: `${Stack.of(this).stackName}/smtp-url`,
      description:
        "SMTP_URL of notifications: put the mail provider's URL here (smtps://user:password@host:465), then redeploy notifications",
      secretStringValue: SecretValue.unsafePlainText(SMTP_URL_PLACEHOLDER),
    });
  }
}
