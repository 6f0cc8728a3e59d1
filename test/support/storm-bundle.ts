// Writes generated reconnect-storm bundles to a directory, for tests that run the CLI on files.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DESTINATION_STORM, POLICY_STORM, stormBundle, type BundleSpec } from '../../scripts/fixtures/reconnect-storm.js';

/** 24 pods of emojivoto refused by the destination controller (one error finding). */
export const ONE_STORM: BundleSpec = {
  seed: 11,
  namespace: 'emojivoto',
  workloads: ['web', 'voting', 'emoji'],
  podsPerWorkload: 8,
  storms: [DESTINATION_STORM],
  durationSeconds: 60,
};

/** The same pods, also refused by the policy controller: one storm more. */
export const TWO_STORMS: BundleSpec = { ...ONE_STORM, storms: [DESTINATION_STORM, POLICY_STORM] };

/** A single pod looping towards the destination controller: one warning, no error. */
export const WARNING_ONLY: BundleSpec = {
  seed: 12,
  namespace: 'shop',
  workloads: ['cart'],
  podsPerWorkload: 1,
  storms: [DESTINATION_STORM],
  durationSeconds: 45,
};

export async function writeBundle(dir: string, spec: BundleSpec): Promise<string> {
  for (const log of stormBundle(spec)) {
    const file = path.join(dir, log.path);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, log.content);
  }
  return dir;
}
