import { installTemporalCli } from '../cli/temporal/install';

/** `npm run temporal:install`: the pinned Temporal CLI into the per-user cache (see cli/temporal/binary.ts). */
installTemporalCli((line) => console.log(line)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`temporal:install failed: ${(err as Error).message}`);
    process.exit(1);
  }
);
