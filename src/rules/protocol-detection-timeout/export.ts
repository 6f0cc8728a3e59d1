// protocol-detection-timeout live: its Loki (and, where the signal is a metric, Prometheus) twin, whose line filters
// are built from ./patterns.ts, the module the offline rule matches with, so both count the same
// lines, plain and JSON alike (the patterns are on the message text, which both carry verbatim).

import { alertingRule, byClause, labelRef, literalAlternation, num } from '../../kit/export/expr.js';
import { lines, match } from '../../kit/export/log-query.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import { NON_DETECTABLE_PORTS, type ProtocolDetectionTimeoutOptions } from './index.js';
import { PROTOCOL_DETECT_TIMEOUT } from './patterns.js';

/** The port of the original destination (outbound `proxy{addr=…}`) or the inbound server span, plain and JSON. */
const DETECT_PORT = [
  '| regexp `proxy\\{addr=[^}]*:(?P<port>[0-9]+)\\}`',
  '| regexp `"addr":"[^"]*:(?P<port>[0-9]+)","name":"proxy"`',
  '| regexp `server\\{port=(?P<port>[0-9]+)\\}`',
];

function protocolLoki(input: ExporterInput<ProtocolDetectionTimeoutOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  const known = literalAlternation(Object.keys(NON_DETECTABLE_PORTS));
  const expr = (filter: string, threshold: number) =>
    `sum ${byClause([...s.groupBy, s.namespaceLabel, 'port'])} (\n  count_over_time(\n    ${lines(s, [match(PROTOCOL_DETECT_TIMEOUT)], [...DETECT_PORT, filter])}\n  [15m])\n) >= ${num(threshold)}`;
  return [
    alertingRule({
      ruleId: 'protocol-detection-timeout',
      alert: 'LinkerdProtocolDetectionTimeoutKnownPort',
      expr: expr(`| port=~"${known}"`, o.minTimeoutsKnownPort),
      severity: 'warning',
      summary: `Connections to port ${labelRef('port')} wait out protocol detection (server-speaks-first protocol)`,
      description: `Every connection on port ${labelRef('port')} is delayed 10 s: the protocol cannot be detected. Mark it opaque (config.linkerd.io/opaque-ports) or skip it.`,
    }),
    alertingRule({
      ruleId: 'protocol-detection-timeout',
      alert: 'LinkerdProtocolDetectionTimeout',
      expr: expr(`| port!~"${known}"`, o.minTimeouts),
      severity: 'warning',
      summary: `{{ $value }} connections to port ${labelRef('port')} waited out protocol detection in 15m`,
      description: `Connections on port ${labelRef('port')} sat for the 10 s detect timeout before being forwarded as TCP. If the protocol is not HTTP, mark the port opaque (config.linkerd.io/opaque-ports).`,
    }),
  ];
}

export const protocolDetectionTimeoutExporter: RuleExporter<ProtocolDetectionTimeoutOptions> = {
  ruleId: 'protocol-detection-timeout',
  reads: ['minTimeouts', 'minTimeoutsKnownPort'],
  loki: protocolLoki,
  unsupported: { prometheus: 'detection timeouts are only in the proxy logs; export it with --target loki' },
};
