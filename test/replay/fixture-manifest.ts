import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FixtureEntry {
  file: string;
  workflowId: string;
  conversation: string;
  turn: number;
}

/** The manifest.json beside exported histories: which script at which commit recorded them, on which server. */
export function writeFixtureManifest(dir: string, producedBy: string, manifest: FixtureEntry[]): void {
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const note = { producedBy: `${producedBy} at commit ${commit}`, server: 'convengine devserver', manifest };
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(note, null, 1)}\n`);
  console.log(`wrote ${manifest.length} histories to ${dir}`);
}
