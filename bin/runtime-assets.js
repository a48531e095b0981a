'use strict';
// Files the CLI reads next to its own modules at run time, which tsc does not emit. Each layout the CLI runs from
// holds them at the same place relative to its modules: the checkout itself, dist/ (`npm run build` runs
// `node bin/runtime-assets.js dist`), and the compiled CLI cache (bin/compiled-cli.js copies them into each build).
const fs = require('node:fs');
const path = require('node:path');

const RUNTIME_ASSETS = [
  path.join('db', 'migrations'), // db/migrate.ts
  'console', // api/console/assets.ts
  path.join('deploy', 'temporal', 'dynamicconfig'), // cli/temporal/dynamic-config.ts
];

/** Copies every runtime asset of the checkout `root` into `outDir`, replacing what an earlier build left there. */
function copyRuntimeAssets(root, outDir) {
  for (const asset of RUNTIME_ASSETS) {
    const target = path.join(outDir, asset);
    fs.rmSync(target, { recursive: true, force: true });
    fs.cpSync(path.join(root, asset), target, { recursive: true });
  }
}

module.exports = { RUNTIME_ASSETS, copyRuntimeAssets };

if (require.main === module) copyRuntimeAssets(path.join(__dirname, '..'), path.resolve(process.argv[2] || 'dist'));
