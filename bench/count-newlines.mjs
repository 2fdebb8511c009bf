// The baseline: read each file named on the command line and count its newlines, nothing more.
import { createReadStream } from 'node:fs';

let lines = 0;
for (const file of process.argv.slice(2)) {
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    let i = -1;
    while ((i = chunk.indexOf(10, i + 1)) !== -1) lines++;
  }
}
console.log(lines);
