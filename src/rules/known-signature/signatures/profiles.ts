// ServiceProfile lookups. Tried before HTTP/2: their errors quote h2 texts.

import { L2, type KnownSignature } from '../signature.js';

export const PROFILES_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'profile-fetch-failed',
    title: 'Could not fetch the ServiceProfile',
    family: 'profile',
    match: {
      records: ['proxy-log'],
      literals: [
        'Could not fetch profile',
        'Error resolving ServiceProfile',
        'profile stream failed',
        'error fetching profile',
        'profile service unexpected error',
      ],
      pattern: 'Could not fetch profile|Error resolving ServiceProfile|profile stream failed|error fetching profile|profile service unexpected error',
    },
    meaning:
      'The destination controller did not return a profile for a target, so the proxy routes without per-route policy (and, for old releases, may delay requests until the lookup times out).',
    causes: [
      'The destination controller was restarting or unreachable (often during an upgrade).',
      'A control-plane extension the profile depends on (viz) was being reinstalled.',
      'Proxy and control plane versions differ by more than one release.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check the destination controller logs and `linkerd check --proxy` for version skew if it goes on after the upgrade finishes, and restart workloads injected by an older release; if it stopped with the upgrade, it was transient.',
      },
    ],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}5881`],
    examples: [
      {
        line: '{"timestamp":"[   125.266342s]","level":"WARN","fields":{"message":"Could not fetch profile","error":"status: Unknown, message: \\"http2 error: protocol error: unexpected internal error encountered\\", details: [], metadata: MetadataMap { headers: {} }"},"target":"linkerd_service_profiles::client","threadId":"ThreadId(1)"}',
        source: `${L2}5881`,
      },
      {
        line: 'linkerd-proxy WARN linkerd2_proxy::app::profiles error fetching profile for some-service-endpoint',
        source: `${L2}2118 (bourquep)`,
        note: 'the 2019 wording; the service name is as masked in the thread',
      },
      {
        line: 'WARN [    30.120000s] linkerd2_proxy::proxy::http::profiles profile stream failed: Status { code: Unavailable, message: "connection reset" }',
        source: 'https://github.com/linkerd/linkerd2-proxy/blob/release/v2.0.0/src/proxy/http/profiles.rs',
        note: 'the 2019 wording, built from the release/v2.0.0 call site in the legacy layout',
      },
    ],
  },
];
