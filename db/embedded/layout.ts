import { join } from 'node:path';

/** Where everything lives under --home. */
export interface EmbeddedLayout {
  home: string;
  root: string;
  dataDir: string;
  passwordFile: string;
  logFile: string;
  ownerFile: string;
  /** The port of the last run, tried first so the printed URL stays the same across restarts. */
  portFile: string;
}

export function embeddedLayout(home: string): EmbeddedLayout {
  const root = join(home, 'postgres');
  return {
    home,
    root,
    dataDir: join(root, 'data'),
    passwordFile: join(root, 'password'),
    logFile: join(root, 'server.log'),
    ownerFile: join(root, 'owner.pid'),
    portFile: join(root, 'port'),
  };
}
