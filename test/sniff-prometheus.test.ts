import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sniffKind } from '../src/parsers/sniff.js';

describe('sniffing metrics dumps', () => {
  it('recognises proxy-metrics dumps by their POD frame, metadata or bare samples', () => {
    assert.equal(sniffKind(['#', '# POD web-1 (1 of 2)', '#', '# HELP a b']), 'prometheus');
    assert.equal(sniffKind(['#', '# POD web-1 (1 of 1)', '#', '# ERROR: pod not running: web-1']), 'prometheus');
    assert.equal(sniffKind(['request_total{direction="inbound",target_addr="10.0.0.1:8080"} 1', 'tcp_open_total{peer="src"} 2']), 'prometheus');
    assert.equal(
      sniffKind(['# TYPE process_cpu_seconds counter', '# UNIT process_cpu_seconds seconds', 'process_cpu_seconds_total 1.5', '# EOF']),
      'prometheus',
    );
  });

  it('does not take proxy logs for metrics', () => {
    assert.equal(sniffKind(['[     0.002035s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (5a5e8f1) by linkerd on 2024-01-11T22:25:29Z']), 'proxy-log');
  });
});
