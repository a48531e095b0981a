import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

/** Paths of a throwaway PKI: a CA, a server certificate for 127.0.0.1/localhost, a client pair, and a stranger's pair. */
export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client pair signed by another CA, which a server trusting `caCert` refuses. */
  strangerCert: string;
  strangerKey: string;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** `openssl req` arguments for a new P-256 key `<name>.key` and a request or certificate `<name>.<out>` for CN=name. */
function newKey(name: string, out: 'csr' | 'pem'): string[] {
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  return [...curve, '-keyout', `${name}.key`, '-out', `${name}.${out}`, '-subj', `/CN=${name}`];
}

/** A key and a certificate for `name` signed by `ca`, with `extensions` (an openssl extension section). */
function signed(dir: string, name: string, ca: string, extensions: string): void {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['req', ...newKey(name, 'csr')]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    `${name}.pem`,
    '-extfile',
    `${name}.ext`,
  ]);
}

function ca(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    ...newKey(name, 'pem'),
    '-days',
    '2',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

/** Made with the machine's openssl, in a temporary directory, valid for two days. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'convengine-pki-'));
  ca(dir, 'test-ca');
  ca(dir, 'stranger-ca');
  signed(dir, 'server', 'test-ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signed(dir, 'client', 'test-ca', 'extendedKeyUsage=clientAuth\n');
  signed(dir, 'stranger', 'stranger-ca', 'extendedKeyUsage=clientAuth\n');
  const path = (file: string) => join(dir, file);
  return {
    dir,
    caCert: path('test-ca.pem'),
    serverCert: path('server.pem'),
    serverKey: path('server.key'),
    clientCert: path('client.pem'),
    clientKey: path('client.key'),
    strangerCert: path('stranger.pem'),
    strangerKey: path('stranger.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsProxy {
  /** 127.0.0.1:port, serving TLS (HTTP/2 by ALPN) in front of the plaintext target. */
  address: string;
  close(): Promise<void>;
}

/**
 * A TLS front for a plaintext Temporal frontend (our dev server or `temporal server start-dev`,
 * which serve no TLS themselves), as a load balancer in front of a secured cluster would be. With
 * `requireClientCert`, a client without a certificate signed by the PKI's CA is refused (mTLS).
 */
export async function startTlsProxy(
  target: string,
  pki: TestPki,
  options: { requireClientCert: boolean }
): Promise<TlsProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createTlsServer(
    {
      key: readFileSync(pki.serverKey),
      cert: readFileSync(pki.serverCert),
      ALPNProtocols: ['h2'],
      ...(options.requireClientCert
        ? { ca: readFileSync(pki.caCert), requestCert: true, rejectUnauthorized: true }
        : {}),
    },
    (client: TLSSocket) => {
      const upstream = connect(port, host);
      track(client);
      track(upstream);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    }
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the TLS proxy has no port');
  return {
    address: `127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
