import { readFileSync, writeFileSync } from 'node:fs';
import { REFERENCE_BLOCKS, REFERENCE_PATH, withReferenceBlocks } from './reference/blocks';

/** `npm run docs:reference`: regenerates the generated blocks of docs/config-reference.md. */
writeFileSync(REFERENCE_PATH, withReferenceBlocks(readFileSync(REFERENCE_PATH, 'utf8')));
console.log(`updated ${REFERENCE_PATH} (${Object.keys(REFERENCE_BLOCKS).length} generated blocks)`);
