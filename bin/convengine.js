#!/usr/bin/env node
'use strict';
// Runs the compiled CLI when a build exists (Docker image, `npm run build`), otherwise the
// TypeScript sources through tsx so a fresh clone works with nothing but `npm install`.
const path = require('node:path');
const fs = require('node:fs');

const compiled = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
const useCompiled = process.env.CONVENGINE_USE_SOURCES !== '1' && fs.existsSync(compiled);
if (!useCompiled) require('tsx/cjs');
const { runCli } = require(useCompiled ? compiled : path.join(__dirname, '..', 'cli', 'main.ts'));
runCli(process.argv.slice(2)).then(
  (code) => process.exit(typeof code === 'number' ? code : 0),
  (err) => {
    console.error(err && err.message ? err.message : String(err));
    process.exit(1);
  }
);
