// The worker catalog of an analysis (engine/collector.ts WorkerCatalog): every rule of the
// registry and the version collector, by id. Worker threads import this module by URL to rebuild
// what the main thread runs, so the engine itself never imports a rule or a collector.

import { versionCollector } from '../incident/versions.js';
import { findRule } from '../rules/index.js';

const COLLECTORS = [versionCollector];

export function resolveModule(id: string): unknown {
  return findRule(id) ?? COLLECTORS.find((c) => c.id === id);
}
