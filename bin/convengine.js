#!/usr/bin/env node
'use strict';
// In a checkout, runs the CLI compiled from the current sources (bin/compiled-cli.js: built once per
// source change, then plain JavaScript). CONVENGINE_USE_SOURCES=1 runs the TypeScript sources through
// tsx instead (the test suite does, so a test never waits on a build). Without sources (the Docker
// image ships dist/ only) it runs the output of `npm run build`.
const path = require('node:path');
const fs = require('node:fs');

function cliModule() {
  const sources = path.join(__dirname, '..', 'cli', 'main.ts');
  if (!fs.existsSync(sources)) return path.join(__dirname, '..', 'dist', 'cli', 'main.js');
  if (process.env.CONVENGINE_USE_SOURCES !== '1') return require('./compiled-cli').compiledCliEntry();
  require('tsx/cjs');
  return sources;
}

const { runCli } = require(cliModule());
runCli(process.argv.slice(2)).then(
  (code) => process.exit(typeof code === 'number' ? code : 0),
  (err) => {
    console.error(err && err.message ? err.message : String(err));
    process.exit(1);
  }
);
