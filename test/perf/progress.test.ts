// Progress goes to stderr only when it is a terminal, and shows bytes, lines/s and elapsed time.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { createProgress } from '../../src/cli/progress.js';

function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const out = new Writable({
    write(chunk, _enc, done) {
      (out as unknown as { text: string }).text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream & { text: string };
  Object.assign(out, { text: '', isTTY, columns: 200, cursorTo: () => true, clearLine: () => true, moveCursor: () => true, clearScreenDown: () => true });
  return out;
}

it('shows nothing when the stream is not a terminal or progress is off', () => {
  assert.equal(createProgress(true, fakeStream(false)), undefined);
  assert.equal(createProgress(false, fakeStream(true)), undefined);
});

it('shows bytes of the total, the file, lines/s and elapsed time on a terminal', async () => {
  const stream = fakeStream(true);
  const progress = createProgress(true, stream)!;
  progress.start(4 << 20);
  progress.file('bundle/web-7d9f8c6b5-x2x8k.log');
  progress.bytes(2 << 20, 120_000);
  await new Promise((r) => setTimeout(r, 250));
  progress.bytes(1 << 20, 60_000);
  await new Promise((r) => setTimeout(r, 250));
  const shown = stream.text;
  progress.stop();
  assert.match(shown, /3(\.0)? MiB of 4(\.0)? MiB/);
  assert.match(shown, /\d[\d.]* ?[kM]? lines\/s/);
  assert.match(shown, /\b[1-3]\d\d k lines\/s/, 'lines/s averaged over at least half a second');
  assert.match(shown, /\d+\.\d s \|/);
  assert.match(shown, /web-7d9f8c6b5-x2x8k\.log/);
});
