// Every check `linkerd check` runs in the releases of data/checks/checks.json (npm run
// checks-inventory) has a verdict in src/knowledge/checks.ts, and every verdict's first action is
// something a person can do: an imperative verb, with the values of the output filled in.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CHECK_VERDICTS, fill, verdictOf, type CheckValues } from '../../src/knowledge/checks.js';

interface Inventory {
  releases: string[];
  checks: { key: string; anchor: string | null; presentIn: string[]; warning: boolean }[];
  remedies: { anchor: string }[];
}
const inventory = JSON.parse(readFileSync(new URL('../../data/checks/checks.json', import.meta.url), 'utf8')) as Inventory;

/** Verbs a first action may start with: each names something to do now. */
const DO =
  /^(?:Allow|Add|Annotate|Check|Compare|Confirm|Create|Delete|Find|Fix|Generate|Give|Install|Issue|Label|Look|Make|Move|Plan|Re-apply|Re-create|Read|Regenerate|Remove|Renew|Replace|Restart|Rotate|Run|Set|Synchronise|Upgrade|Use)\b/;
const SAMPLE: CheckValues = {
  pods: ['web-7f9d8c6b5-abcde'],
  date: '2021-03-05T08:14:00Z',
  version: 'stable-2.11.4',
  namespace: 'shop',
  detail: 'x',
  names: ['s'],
};
const EMPTY: CheckValues = { pods: [], date: null, version: null, namespace: null, detail: null, names: [] };

describe('check verdicts', () => {
  it('the inventory covers 2.7 to the latest edge and holds the checks of the newest release', () => {
    assert.equal(inventory.releases[0], '2.7');
    assert.match(inventory.releases.at(-1)!, /^edge-/);
    const newest = inventory.checks.filter((c) => c.presentIn.includes(inventory.releases.at(-1)!));
    assert.ok(newest.length >= 80, `${newest.length} checks in the newest release`);
    assert.ok(inventory.checks.length >= 150);
  });

  it('every check of every release has a verdict', () => {
    const missing = [...new Set(inventory.checks.map((c) => c.anchor ?? `(no anchor) ${c.key}`))].filter((a) => !CHECK_VERDICTS[a]);
    assert.deepEqual(missing, []);
  });

  it('every verdict has a meaning, causes in order and a first action that is something to do', () => {
    for (const [anchor, v] of Object.entries(CHECK_VERDICTS)) {
      assert.ok(v.meaning.length > 10, anchor);
      assert.ok(v.causes.length >= 1, anchor);
      for (const values of [SAMPLE, EMPTY]) {
        const action = fill(v.firstAction, values);
        assert.match(action, DO, `${anchor}: "${action}"`);
        assert.doesNotMatch(action, /\{\w+\}/, `${anchor}: a placeholder left`);
        assert.doesNotMatch(action, /check failed|see the docs$/i, anchor);
      }
    }
  });

  it('has no verdict for an anchor no release prints, except the aliases', () => {
    const anchors = new Set(inventory.checks.map((c) => c.anchor));
    assert.deepEqual(
      Object.keys(CHECK_VERDICTS).filter((a) => !anchors.has(a)),
      [],
    );
  });

  it('finds the verdict of an anchor cut short by the paste, and of an alias', () => {
    assert.equal(verdictOf('l5d-identity-issuer-cert-not-exp')?.anchor, 'l5d-identity-issuer-cert-not-expiring-soon');
    assert.equal(verdictOf('l5d-i'), null);
    assert.equal(verdictOf('l5d-certs-rotation')?.anchor, 'l5d-identity-roots-are-time-valid');
  });
});
