import { join } from 'node:path';

/** Where everything lives under --home. */
export interface EmbeddedLayout {
  home: string;
  root: string;
  dataDir: string;
  passwordFile: string;
  logFile: string;
  ownerFile: string;
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
  };
}
