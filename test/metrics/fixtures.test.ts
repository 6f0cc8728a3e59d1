// The committed metrics fixtures are exactly what the seeded generator writes
// (`npm run fixtures:metrics` regenerates them).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { fixtureHash, METRIC_FIXTURES } from '../../scripts/fixtures/metrics.js';

const FIXTURES = new URL('../../fixtures/', import.meta.url);

describe('metrics fixture generator', () => {
  for (const fixture of METRIC_FIXTURES) {
    it(`fixtures/${fixture.path} matches the generator`, () => {
      const raw = readFileSync(new URL(fixture.path, FIXTURES));
      const text = fixture.gzip ? gunzipSync(raw) : raw;
      assert.equal(createHash('sha256').update(text).digest('hex'), fixtureHash(fixture), 'regenerate with `npm run fixtures:metrics`');
    });
  }

  it('keeps committed fixture files small (the large dump is gzipped)', () => {
    for (const fixture of METRIC_FIXTURES) {
      const size = readFileSync(new URL(fixture.path, FIXTURES)).length;
      assert.ok(size < 5 * 1024 * 1024, `${fixture.path}: ${size} bytes`);
    }
  });
});
