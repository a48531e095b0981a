import type { FastifyInstance } from 'fastify';

/**
 * The `request completed` line of a request whose response closed before it finished: its caller left, before any
 * answer or during an audit stream. Fastify writes that line as a response finishes (`request errored` when writing
 * it failed), never for one that closes first, so a request whose caller gave up was in no request line, though it
 * has its server span: an SRE counting requests from the log missed it. The raw response closes once in every case,
 * after `finish` when there was one, so each request gets exactly one line. `clientClosed: true` tells this line
 * from Fastify's; `res.statusCode` is there only when a status was sent (a stream's 200), and `responseTime` is
 * the time to the close. An answer sent after the caller left reaches no socket and writes no line of its own; the
 * turn metric still counts it as it is sent (observability/turn-metrics.ts), as it counts every turn request.
 * Installed first, so that a request a later onRequest hook refuses (401, a stopping API) is covered too.
 */
export function installClosedRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (_request, reply) => {
    const raw = reply.raw;
    let failed = false;
    raw.once('error', () => (failed = true));
    raw.once('close', () => {
      if (raw.writableFinished || failed) return;
      const res = raw.headersSent ? { res: reply } : {};
      reply.log.info({ ...res, clientClosed: true, responseTime: reply.elapsedTime }, 'request completed');
    });
  });
}
