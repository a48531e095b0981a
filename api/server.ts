import { Client, Connection } from '@temporalio/client';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Env } from '../config/env';
import { claimCheckDataConverter } from '../db/claims/codec';
import { createConfigStore } from '../db/config/store';
import { openDatabase } from '../db/pool';
import { buildApi } from './app';
import { configReplyTexts } from './reply-texts';
import { conversationQueries } from './db-queries';
import type { ApiPorts } from './ports';
import { TemporalTurnGateway } from './turns/gateway';

export interface ApiServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export interface ApiServerOptions {
  env: Env;
  databaseUrl: string;
  temporalAddress: string;
  host?: string;
  port?: number;
}

/** Wires the real ports (Temporal client, PostgreSQL, config store) and listens. */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { env } = options;
  const handle = openDatabase(options.databaseUrl, { max: 10 });
  const connection = await Connection.connect({ address: options.temporalAddress });
  const dataConverter = claimCheckDataConverter(handle.db, env.CLAIM_CHECK_THRESHOLD_BYTES);
  const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE, dataConverter });
  const store = createConfigStore(handle.db);
  const conversations = conversationQueries(handle.db);
  const ports: ApiPorts = {
    turns: new TemporalTurnGateway({ client, db: handle.db, taskQueue: env.TEMPORAL_TASK_QUEUE }),
    conversations,
    replyTexts: configReplyTexts({ snapshot: async () => store.current(), conversations }),
    config: { refresh: async () => store.refresh() },
    readiness: {
      async check() {
        const database = await handle.db.execute(sql`select 1`).then(
          () => 'ok',
          () => 'unreachable'
        );
        const temporal = await connection.workflowService.describeNamespace({ namespace: env.TEMPORAL_NAMESPACE }).then(
          () => 'ok',
          () => 'unreachable'
        );
        return { database, temporal };
      },
    },
  };
  const app = buildApi({
    ports,
    apiToken: env.API_TOKEN,
    messageMaxBytes: env.MESSAGE_MAX_BYTES,
    logLevel: env.LOG_LEVEL,
  });
  const url = await app.listen({ host: options.host ?? env.HOST, port: options.port ?? env.PORT });
  return {
    app,
    url,
    async close() {
      await app.close();
      await connection.close();
      await handle.close();
    },
  };
}
