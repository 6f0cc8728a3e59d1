// ServiceProfile lookups. Tried before HTTP/2: their errors quote h2 texts.

import { L2, type KnownSignature } from '../signature.js';

export const PROFILES_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'profile-fetch-failed',
    title: 'Could not fetch the ServiceProfile',
    family: 'profile',
    match: { records: ['proxy-log'], literals: ['Could not fetch profile', 'Error resolving ServiceProfile'], pattern: 'Could not fetch profile|Error resolving ServiceProfile' },
    meaning: 'The destination controller did not return a profile for a target, so the proxy routes without per-route policy (and, for old releases, may delay requests until the lookup times out).',
    causes: ['The destination controller was restarting or unreachable (often during an upgrade).', 'A control-plane extension the profile depends on (viz) was being reinstalled.', 'Proxy and control plane versions differ by more than one release.'],
    fix: [
      { versions: 'all', action: 'Check the destination controller logs and `linkerd check --proxy` for version skew if it goes on after the upgrade finishes, and restart workloads injected by an older release; if it stopped with the upgrade, it was transient.' },
    ],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}5881`],
    examples: [
      {
        line: '{"timestamp":"[   125.266342s]","level":"WARN","fields":{"message":"Could not fetch profile","error":"status: Unknown, message: \\"http2 error: protocol error: unexpected internal error encountered\\", details: [], metadata: MetadataMap { headers: {} }"},"target":"linkerd_service_profiles::client","threadId":"ThreadId(1)"}',
        source: `${L2}5881`,
      },
    ],
  },
];
