// File descriptor exhaustion.

import { L2, type KnownSignature } from '../signature.js';

export const FILE_DESCRIPTORS_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'too-many-open-files',
    title: 'Too many open files (os error 24)',
    family: 'fd-exhaustion',
    match: { records: ['proxy-log'], literals: ['Too many open files', 'os error 24'], pattern: 'Too many open files|os error 24' },
    meaning: 'The proxy hit its file-descriptor limit: accept() and connect() fail, so new connections are refused or cannot be opened.',
    causes: [
      'A low nofile limit in the container runtime (1024 on some nodes).',
      'A connection leak or a connection storm (many clients, an ingress pooling to every pod IP).',
    ],
    fix: [
      { versions: 'all', action: "Raise the runtime's nofile limit for the pod; find the connection source with `tcp_open_connections` in a metrics dump." },
    ],
    coveredBy: ['fd-exhaustion'],
    references: [`${L2}2322`],
    examples: [
      { line: 'linkerd2_proxy::app::main outbound proxy background task failed: Too many open files (os error 24)', source: `${L2}2322 (jonrichards)` },
    ],
  },
];
