// Streams a synthetic single-proxy dump of N series (run as a child process by memory.test.ts)
// through the real pipeline and every rule, and prints peak heap and RSS as JSON. Run with
// --expose-gc so the heap figures measure what is retained, not garbage.

import { Readable } from 'node:stream';
import { RuleEngine } from '../../src/engine/engine.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { RULES } from '../../src/rules/index.js';
import { LATENCY_BUCKETS as BUCKETS } from '../../scripts/fixtures/metrics.js';

const series = Number(process.argv[2] ?? 200_000);

function* dump(): Generator<string> {
  yield '#\n# POD traefik-7d9f8c6b5-x2x8k (1 of 1)\n#\n# HELP response_latency_ms Elapsed times\n# TYPE response_latency_ms histogram\n';
  let written = 0;
  for (let i = 0; written < series; i++) {
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const base = `direction="outbound",target_addr="${ip}:8080",target_ip="${ip}",target_port="8080",tls="true",dst_deployment="app${i % 40}",dst_namespace="shop",dst_pod="app${i % 40}-${i.toString(36)}-x",dst_pod_template_hash="h${i % 7}",status_code="200"`;
    const lines: string[] = [];
    for (const le of BUCKETS) if (written + lines.length < series) lines.push(`response_latency_ms_bucket{${base},le="${le}"} ${i}\n`);
    if (written + lines.length < series) lines.push(`response_latency_ms_count{${base}} ${i}\n`);
    if (written + lines.length < series) lines.push(`response_latency_ms_sum{${base}} ${i * 3}\n`);
    written += lines.length;
    yield lines.join('');
  }
}

/** JS heap plus typed-array memory (the parser's series table lives outside the JS heap). */
const heapNow = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
const gc = (globalThis as { gc?: () => void }).gc;
// Optional second argument: one rule id to measure alone, or `none` for the parser only.
const only = process.argv[3];
const selected = only === undefined ? RULES : RULES.filter((rule) => rule.meta.id === only);
const engine = new RuleEngine(selected.map((rule) => ({ rule, options: rule.meta.defaultOptions })));
let records = 0;
let peakHeap = 0;
const result = await readEntry(
  { path: 'synthetic.txt', stream: Readable.from(dump()), size: null },
  {
    record: (r) => {
      engine.emit(r);
      if (++records % 20_000 === 0) {
        gc?.();
        peakHeap = Math.max(peakHeap, heapNow());
      }
    },
  },
);
gc?.();
const retainedHeap = heapNow();
const findings = engine.finish([result.stats]).findings;
const cardinality = findings.find((f) => f.ruleId === 'metric-cardinality');
process.stdout.write(
  JSON.stringify({
    records,
    series: cardinality?.keyFigure?.value ?? 0,
    peakHeapMb: Math.round(Math.max(peakHeap, retainedHeap) / 1_048_576),
    retainedHeapMb: Math.round(retainedHeap / 1_048_576),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    rules: [...new Set(findings.map((f) => f.ruleId))].sort(),
  }) + '\n',
);
