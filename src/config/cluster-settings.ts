// The Cluster settings schema: the shared Redis store of the replicas, its credentials, TLS and timings.
import { Type } from '@sinclair/typebox';
import { PositiveInt } from './schema-primitives.ts';

export const ClusterSettings = Type.Object(
  {
    Redis: Type.Optional(
      Type.String({
        pattern: '^rediss?://',
        errorMessage: 'must be a redis:// or rediss:// (TLS) URL',
        description:
          'Shared store of the replicas; absent: one process, all state in memory. redis://[user:password@]host:port[/db]',
      }),
    ),
    Password: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Redis password, when it is not in the URL; never logged',
      }),
    ),
    Username: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Redis ACL user, when it is not in the URL (with Password); absent: the default user',
      }),
    ),
    TlsCaFile: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'PEM CA bundle the Redis server certificate is checked against (rediss:// only)',
      }),
    ),
    TlsCertFile: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'PEM client certificate for Redis (rediss://, with TlsKeyFile)',
      }),
    ),
    TlsKeyFile: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key of TlsCertFile' })),
    CommandTimeoutMs: PositiveInt(
      500,
      'longest wait for Redis: a command, and everything one request asks Redis; then 503 CLUSTER_UNAVAILABLE or fail open',
    ),
    ReplicaId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: '^[^\\s]+$',
        errorMessage: 'must be 1-128 characters without spaces',
        description: 'This replica in listings, leases and health; default: host name and port',
      }),
    ),
    HeartbeatSeconds: PositiveInt(5, "a replica's entries expire 3 heartbeats after it stops"),
    LeaseSeconds: PositiveInt(5, 'alarm monitoring lease; a dead holder is replaced within it'),
  },
  { additionalProperties: false, default: {} },
);
