import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';

// The floor propdata is compared with: the same file through the same CSV libraries and
// nothing else, streamed file to file. Usage: node bare-roundtrip.mjs IN OUT
const [input, output] = process.argv.slice(2);
await pipeline(createReadStream(input), parse(), stringify(), createWriteStream(output));
