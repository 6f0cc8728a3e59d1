// Proxy configuration errors.

import type { KnownSignature } from '../signature.js';

export const CONFIGURATION_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'proxy-env-missing',
    title: 'Proxy configuration variable not set',
    family: 'configuration',
    match: { records: ['proxy-log'], literals: ['is not set'], pattern: '(?:CONDUIT|LINKERD2)_PROXY_\\w{1,64} is not set' },
    meaning: 'The proxy refused to start because a required environment variable is missing: the pod spec was not produced by a matching injector.',
    causes: ['A hand-written or stale injected manifest; an injector and proxy of different releases.'],
    fix: [
      {
        versions: 'all',
        action:
          'Re-inject the workload with the injector of the installed release (`linkerd inject` or the proxy-injector webhook) instead of editing proxy env by hand.',
      },
    ],
    references: ['https://github.com/linkerd/linkerd2/pull/399'],
    examples: [
      {
        line: 'E\tproxy/src/config.rs:194] conduit_proxy::config: CONDUIT_PROXY_CONTROL_URL is not set',
        source: 'https://github.com/linkerd/linkerd2/pull/399 (hawkw)',
      },
    ],
  },
];
