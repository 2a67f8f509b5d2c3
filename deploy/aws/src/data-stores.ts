// Postgres (RDS) and Redis (ElastiCache) in the isolated subnets, reachable
// only from the services' security groups, encrypted at rest and in transit.
// Services take whole URLs (DATABASE_URL, REDIS_URL), so each URL is a secret
// of its own, composed by CloudFormation from the generated credentials
// through dynamic references: no password is ever in the template.
import type { ConsumerName } from '@hireflow/contracts';
import { Duration, RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { URL_SAFE } from './secrets.ts';

export interface DataStoresProps {
  vpc: ec2.IVpc;
  /** The four services and the registered subscribers: a database each. */
  services: readonly ConsumerName[];
  /** A standby for Postgres, a replica with failover for Redis. */
  multiAz: boolean;
  /** RDS class, e.g. `db.t4g.medium` (from the capacity model). */
  databaseClass: string;
  /** ElastiCache node type, e.g. `cache.t4g.small` (from the capacity model). */
  cacheNodeType: string;
}

/** RDS generates the password: letters and digits only, so it goes into a URL unescaped. */
const PUNCTUATION = ` !"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;
const DB_USER = 'hireflow';
const REDIS_PORT = 6379;

export class DataStores extends Construct {
  readonly database: rds.DatabaseInstance;
  readonly databaseSecurityGroup: ec2.SecurityGroup;
  readonly redisSecurityGroup: ec2.SecurityGroup;
  /** Per service: `postgres://…/hireflow_<service>` on the one instance. */
  readonly databaseUrls = new Map<ConsumerName, secretsmanager.Secret>();
  readonly redisUrl: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: DataStoresProps) {
    super(scope, id);
    const { vpc } = props;
    const isolated = vpc.selectSubnets({ subnetType: ec2.SubnetType.PRIVATE_ISOLATED });

    this.databaseSecurityGroup = new ec2.SecurityGroup(this, 'DatabaseSecurityGroup', {
      vpc,
      description: 'Postgres: from the Hireflow services only',
      allowAllOutbound: false,
    });
    // One instance, one database per service (hireflow_<service>), which the
    // service creates on its first start: the user is the instance's owner.
    this.database = new rds.DatabaseInstance(this, 'Postgres', {
      engine: rds.DatabaseInstanceEngine.postgres({ version: rds.PostgresEngineVersion.VER_16 }),
      instanceType: new ec2.InstanceType(props.databaseClass.replace(/^db\./, '')),
      vpc,
      vpcSubnets: { subnets: isolated.subnets },
      securityGroups: [this.databaseSecurityGroup],
      credentials: rds.Credentials.fromGeneratedSecret(DB_USER, { excludeCharacters: PUNCTUATION }),
      multiAz: props.multiAz,
      allocatedStorage: 50,
      maxAllocatedStorage: 200,
      storageType: rds.StorageType.GP3,
      storageEncrypted: true,
      backupRetention: Duration.days(7),
      deletionProtection: true,
      removalPolicy: RemovalPolicy.SNAPSHOT,
      cloudwatchLogsExports: ['postgresql'],
      caCertificate: rds.CaCertificate.RDS_CA_RSA2048_G1,
      autoMinorVersionUpgrade: true,
    });
    const secret = this.database.secret!;
    const password = secret.secretValueFromJson('password').unsafeUnwrap();
    const { hostname, port } = this.database.instanceEndpoint;
    for (const service of props.services) {
      this.databaseUrls.set(
        service,
        new secretsmanager.Secret(this, `${service}DatabaseUrl`, {
          description: `DATABASE_URL of ${service}: its own database on the Hireflow Postgres`,
          secretStringValue: SecretValue.unsafePlainText(
            `postgres://${DB_USER}:${password}@${hostname}:${port}/hireflow_${service}`,
          ),
        }),
      );
    }

    this.redisSecurityGroup = new ec2.SecurityGroup(this, 'RedisSecurityGroup', {
      vpc,
      description: 'Redis: from the Hireflow services only',
      allowAllOutbound: false,
    });
    const authToken = new secretsmanager.Secret(this, 'RedisAuthToken', {
      description: 'AUTH token of the Hireflow Redis',
      generateSecretString: { ...URL_SAFE, passwordLength: 64 },
    });
    const redis = this.#redis(isolated.subnetIds, authToken, props.multiAz, props.cacheNodeType);
    const token = authToken.secretValue.unsafeUnwrap();
    this.redisUrl = new secretsmanager.Secret(this, 'RedisUrl', {
      description: 'REDIS_URL of every Hireflow service (TLS, AUTH token)',
      secretStringValue: SecretValue.unsafePlainText(
        `rediss://:${token}@${redis.attrPrimaryEndPointAddress}:${redis.attrPrimaryEndPointPort}`,
      ),
    });
  }

  /** Cluster mode off (BullMQ needs its keys on one shard) and noeviction (BullMQ loses jobs under eviction). */
  #redis(subnetIds: string[], authToken: secretsmanager.Secret, multiAz: boolean, cacheNodeType: string) {
    const subnetGroup = new elasticache.CfnSubnetGroup(this, 'RedisSubnets', {
      description: 'Hireflow Redis: isolated subnets',
      subnetIds,
    });
    const parameters = new elasticache.CfnParameterGroup(this, 'RedisParameters', {
      cacheParameterGroupFamily: 'redis7',
      description: 'Hireflow Redis: BullMQ needs noeviction',
      properties: { 'maxmemory-policy': 'noeviction' },
    });
    return new elasticache.CfnReplicationGroup(this, 'Redis', {
      replicationGroupDescription: 'Hireflow: BullMQ queues, rate limits, pub/sub',
      engine: 'redis',
      engineVersion: '7.1',
      cacheNodeType,
      numCacheClusters: multiAz ? 2 : 1,
      automaticFailoverEnabled: multiAz,
      multiAzEnabled: multiAz,
      port: REDIS_PORT,
      cacheSubnetGroupName: subnetGroup.ref,
      cacheParameterGroupName: parameters.ref,
      securityGroupIds: [this.redisSecurityGroup.securityGroupId],
      transitEncryptionEnabled: true,
      atRestEncryptionEnabled: true,
      authToken: authToken.secretValue.unsafeUnwrap(),
      snapshotRetentionLimit: 3,
    });
  }

  /** Lets a service's tasks reach Postgres and Redis. */
  allowFrom(peer: ec2.IConnectable, description: string): void {
    this.databaseSecurityGroup.connections.allowFrom(
      peer,
      ec2.Port.tcp(5432),
      `Postgres from ${description}`,
    );
    this.redisSecurityGroup.connections.allowFrom(
      peer,
      ec2.Port.tcp(REDIS_PORT),
      `Redis from ${description}`,
    );
  }
}
