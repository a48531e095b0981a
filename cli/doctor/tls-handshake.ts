import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { TemporalConnectionSettings } from '../../config/temporal-connection';

/** How long after the handshake a server's refusal of the client certificate (a TLS 1.3 alert) may take. */
const ALERT_GRACE_MS = 500;

/** OpenSSL's reason ("tlsv13 alert certificate required"), not its whole error line with source file names. */
function opensslReason(err: Error & { reason?: string }): string {
  return err.reason ?? err.message.split('\n')[0] ?? err.name;
}

/**
 * A TLS handshake with the settings' certificates, made only to name what refused it: gRPC clients
 * retry a failed handshake until their deadline and then say only "Failed to connect". Null when
 * the handshake (and the server's check of the client certificate) passed, or TLS is off.
 */
export function tlsHandshakeProblem(settings: TemporalConnectionSettings, timeoutMs = 5_000): Promise<string | null> {
  const { tls } = settings;
  if (!tls) return Promise.resolve(null);
  const colon = settings.address.lastIndexOf(':');
  const host = settings.address.slice(0, colon).replace(/^\[|\]$/g, '');
  const servername = tls.serverNameOverride ?? (isIP(host) ? undefined : host);
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port: Number(settings.address.slice(colon + 1)),
      ...(servername !== undefined ? { servername } : {}),
      ...(tls.serverRootCACertificate ? { ca: Buffer.from(tls.serverRootCACertificate) } : {}),
      ...(tls.clientCertPair
        ? { cert: Buffer.from(tls.clientCertPair.crt), key: Buffer.from(tls.clientCertPair.key) }
        : {}),
      ALPNProtocols: ['h2'],
    });
    const done = (problem: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(problem);
    };
    const timer = setTimeout(() => done(`TLS handshake: no answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('error', (err: Error & { reason?: string }) => done(`TLS handshake: ${opensslReason(err)}`));
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      // A server that refuses the client certificate after the handshake alerts (error above) or hangs up.
      socket.once('close', () =>
        done('TLS handshake: the server hung up at once; it may have refused the client certificate')
      );
      setTimeout(() => done(null), ALERT_GRACE_MS);
    });
  });
}
