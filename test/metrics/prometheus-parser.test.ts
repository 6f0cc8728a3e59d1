import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lexSample, parseNumber } from '../../src/parsers/prometheus-lexer.js';
import { parseDump, podSection } from './helpers.js';

const HYBRID = [
  '# HELP request_total Total count of HTTP requests.',
  '# TYPE request_total counter',
  'request_total{direction="inbound",target_addr="10.0.0.1:8080"} 12',
  '# HELP response_latency_ms Elapsed times',
  '# TYPE response_latency_ms histogram',
  'response_latency_ms_bucket{direction="inbound",status_code="200",le="1"} 3',
  'response_latency_ms_bucket{direction="inbound",status_code="200",le="+Inf"} 5',
  'response_latency_ms_count{direction="inbound",status_code="200"} 5',
  'response_latency_ms_sum{direction="inbound",status_code="200"} 17',
  '# HELP process_cpu_seconds Total user and system CPU time spent in seconds.',
  '# TYPE process_cpu_seconds counter',
  '# UNIT process_cpu_seconds seconds',
  'process_cpu_seconds_total 12.5',
  '# HELP outbound_http_balancer_queue_latency_seconds Queue latency.',
  '# TYPE outbound_http_balancer_queue_latency_seconds histogram',
  '# UNIT outbound_http_balancer_queue_latency_seconds seconds',
  'outbound_http_balancer_queue_latency_seconds_sum{parent_name="web-svc"} 0.25',
  'outbound_http_balancer_queue_latency_seconds_count{parent_name="web-svc"} 10',
  'outbound_http_balancer_queue_latency_seconds_bucket{le="0.0005",parent_name="web-svc"} 9',
  'outbound_http_balancer_queue_latency_seconds_bucket{le="+Inf",parent_name="web-svc"} 10',
  '# HELP process_start_time_seconds Start time.',
  '# TYPE process_start_time_seconds gauge',
  'process_start_time_seconds 1704500155.0',
  '# EOF',
].join('\n');

describe('prometheus parser', () => {
  it('types legacy counters by their sample name and OpenMetrics counters by the family name', async () => {
    const { samples, unparsed } = await parseDump(HYBRID + '\n');
    assert.deepEqual(unparsed, []);
    const request = samples.find((s) => s.name === 'request_total')!;
    assert.equal(request.family, 'request_total');
    assert.equal(request.type, 'counter');
    const cpu = samples.find((s) => s.name === 'process_cpu_seconds_total')!;
    assert.equal(cpu.family, 'process_cpu_seconds');
    assert.equal(cpu.type, 'counter');
    assert.equal(cpu.unit, 'seconds');
    assert.equal(cpu.value, 12.5);
    assert.equal(samples.find((s) => s.name === 'process_start_time_seconds')!.value, 1704500155);
  });

  it('puts _sum and _count written before the buckets into the histogram family', async () => {
    const { samples } = await parseDump(HYBRID + '\n');
    const queue = samples.filter((s) => s.family === 'outbound_http_balancer_queue_latency_seconds');
    assert.deepEqual(
      queue.map((s) => s.name.slice('outbound_http_balancer_queue_latency_seconds'.length)),
      ['_sum', '_count', '_bucket', '_bucket'],
    );
    assert.ok(queue.every((s) => s.type === 'histogram'));
    assert.equal(queue[2]!.labels.le, '0.0005');
    const latency = samples.filter((s) => s.family === 'response_latency_ms');
    assert.equal(latency.length, 4);
  });

  it('splits a proxy-metrics dump into POD sections, with # EOF ending a section and # ERROR records', async () => {
    const dump =
      podSection('web-5d8f7c9b4-abcde', 1, 3, HYBRID + '\n') +
      podSection('vote-bot-6c7d8e9f0-zzzzz', 2, 3, '# ERROR: pod not running: vote-bot-6c7d8e9f0-zzzzz\n') +
      podSection('emoji-7f8e9d0c1-fghij', 3, 3, HYBRID + '\n');
    const { samples, errors, unparsed } = await parseDump(dump);
    assert.deepEqual(unparsed, []);
    assert.equal(samples.length, 2 * 11);
    assert.deepEqual([...new Set(samples.map((s) => s.section))], ['web-5d8f7c9b4-abcde', 'emoji-7f8e9d0c1-fghij']);
    assert.ok(samples.every((s) => s.pod === s.section));
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.section, 'vote-bot-6c7d8e9f0-zzzzz');
    assert.equal(errors[0]!.message, 'pod not running: vote-bot-6c7d8e9f0-zzzzz');
    // Repeated HELP/TYPE in the second section are a new exposition, not a clash: no duplicates.
    assert.ok(samples.every((s) => !s.duplicate));
    // The second section's counters are typed again from its own metadata.
    assert.equal(samples.filter((s) => s.name === 'process_cpu_seconds_total' && s.family === 'process_cpu_seconds').length, 2);
  });

  it('reads the --obfuscate error form without a colon', async () => {
    const { errors } = await parseDump(podSection('web-1', 1, 1, '# ERROR failed to parse metrics: bad input\n'));
    assert.equal(errors[0]!.message, 'failed to parse metrics: bad input');
  });

  it('keeps exemplars, timestamps, NaN and infinities', async () => {
    const { samples, unparsed } = await parseDump(
      [
        '# TYPE a counter',
        'a_total{x="1"} 3 1700000000.5 # {trace_id="abc"} 0.5 1700000000.1',
        '# TYPE g gauge',
        'g{k="nan"} NaN',
        'g{k="pinf"} +Inf',
        'g{k="ninf"} -Inf 1700000000000',
        '# EOF',
      ].join('\n'),
    );
    assert.deepEqual(unparsed, []);
    const [counter, nan, pinf, ninf] = samples;
    assert.equal(counter!.timestamp, 1700000000.5);
    assert.deepEqual(structuredClone(counter!.exemplar), { labels: { trace_id: 'abc' }, value: 0.5, timestamp: 1700000000.1 });
    assert.ok(Number.isNaN(nan!.value));
    assert.equal(nan!.valueText, 'NaN');
    assert.equal(pinf!.value, Infinity);
    assert.equal(ninf!.value, -Infinity);
    assert.equal(ninf!.timestamp, 1700000000000);
    // JSON cannot carry the number, valueText keeps it for `parse` output.
    assert.equal(JSON.parse(JSON.stringify(ninf)).valueText, '-Inf');
  });

  it('unescapes \\\\, \\" and \\n, keeps unknown escapes and unescaped proxy values as written', async () => {
    const { samples, unparsed } = await parseDump(
      ['a{v="b\\"a\\nr"} 1', 'a{v="c:\\\\path"} 2', 'a{v="raw\\z"} 3', 'a{v="has } and # and , inside"} 4', 'a{v="multi word value"} 5'].join('\n') + '\n',
    );
    assert.deepEqual(unparsed, []);
    assert.deepEqual(
      samples.map((s) => s.labels.v),
      ['b"a\nr', 'c:\\path', 'raw\\z', 'has } and # and , inside', 'multi word value'],
    );
  });

  it('reads CRLF line endings like LF', async () => {
    const { samples, unparsed } = await parseDump('# TYPE a gauge\r\na{x="1"} 1\r\na{x="2"} 2\r\n');
    assert.deepEqual(unparsed, []);
    assert.deepEqual(
      samples.map((s) => [s.labels.x, s.value, s.type]),
      [
        ['1', 1, 'gauge'],
        ['2', 2, 'gauge'],
      ],
    );
  });

  it('counts duplicate series instead of merging them', async () => {
    const line = 'inbound_http_authz_allow_total{target_addr="10.0.0.1:4191",tls="true"}';
    const { samples } = await parseDump(`# TYPE inbound_http_authz_allow_total counter\n${line} 1\n${line} 7\n${line.replace('10.0.0.1', '10.0.0.2')} 3\n`);
    assert.equal(samples.length, 3);
    assert.deepEqual(
      samples.map((s) => s.duplicate ?? false),
      [false, true, false],
    );
    assert.deepEqual(
      samples.map((s) => s.value),
      [1, 7, 3],
    );
  });

  it('reads quoted UTF-8 metric and label names', async () => {
    const { samples, unparsed } = await parseDump('{"my.metric", "label.x"="v", y="w"} 1\n{"höhe.m"} 2\n');
    assert.deepEqual(unparsed, []);
    assert.equal(samples[0]!.name, 'my.metric');
    assert.deepEqual(structuredClone(samples[0]!.labels), { 'label.x': 'v', y: 'w' });
    assert.equal(samples[1]!.name, 'höhe.m');
  });

  it('reads quoted names in # TYPE and # HELP lines, so quoted families keep their type', async () => {
    const { samples, unparsed } = await parseDump(
      '# HELP "my.requests" Requests, with \\"quotes\\".\n# TYPE "my.requests" counter\n{"my.requests_total",code="200"} 3\n',
    );
    assert.deepEqual(unparsed, []);
    assert.equal(samples[0]!.family, 'my.requests');
    assert.equal(samples[0]!.type, 'counter');
  });

  it('reports unreadable lines with their line number and goes on', async () => {
    const { samples, unparsed } = await parseDump('a{x="1"} 1\na{x="2} 2\nb 0x1\nc\nd 4\n');
    assert.deepEqual(
      samples.map((s) => s.name),
      ['a', 'd'],
    );
    assert.deepEqual(
      unparsed.map((u) => u.line),
      [2, 3, 4],
    );
  });

  // Found by the garbage fuzz property: `\x01 1` became a sample named "\x01" because the lenient
  // reader accepts any name outside the OpenMetrics set that holds no `"=,}`.
  it('reports names holding control characters as unparsed instead of reading them as samples', async () => {
    const body = '\u0001 1\na\u007f{x="1"} 2\nb{\u0001="1"} 3\nc\u0000 4\n[     0.002035s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4\nok 5\n';
    const { samples, unparsed } = await parseDump(body);
    assert.deepEqual(
      samples.map((s) => [s.line, s.name]),
      [[6, 'ok']],
    );
    assert.deepEqual(
      unparsed.map((u) => [u.line, u.reason]),
      [
        [1, 'invalid metric name'],
        [2, 'invalid metric name'],
        [3, 'invalid label name'],
        [4, 'invalid metric name'],
        [5, 'invalid value "0.002035s]"'],
      ],
    );
  });

  it('tolerates text after # EOF in lenient mode and rejects it in strict mode', async () => {
    const body = 'a 1\n# EOF\n# TYPE a gauge\na 2\n';
    const lenient = await parseDump(body);
    assert.deepEqual(lenient.unparsed, []);
    assert.equal(lenient.samples.length, 2);
    assert.equal(lenient.samples[1]!.type, 'gauge');
    const strict = await parseDump(body, { strict: true });
    assert.ok(strict.unparsed.some((u) => u.reason.includes('after "# EOF"')));
  });

  // Found by the accounting fuzz property in strict mode: a line breaking a lenient rule and a
  // grammar rule (or a rule the checker reports later, like the missing `# EOF` on the last line)
  // was reported twice.
  it('in strict mode rejects a line once, for the reason that makes it unreadable when there is one', async () => {
    const { unparsed } = await parseDump('# TYPE foo bogus\n x\nok 1\n# EOF\ny\nz\n', { strict: true });
    assert.deepEqual(unparsed, [
      { line: 1, reason: 'unknown metric type "bogus"' },
      { line: 2, reason: 'missing value' },
      { line: 5, reason: 'missing value' },
      { line: 6, reason: 'missing value' },
    ]);
    const lenient = await parseDump('# TYPE foo bogus\n x\nok 1\n# EOF\ny\nz\n');
    assert.deepEqual(lenient.unparsed, unparsed);
  });

  // Found by the accounting fuzz property: the empty input (the OpenMetrics suite's bad_no_eof)
  // was rejected at line 0 by accident. It is now the documented way to reject an input that has
  // no line to name (ParserSink.unparsed).
  it('in strict mode rejects an empty input as a whole (line 0) and accepts it in lenient mode', async () => {
    assert.deepEqual((await parseDump('', { strict: true })).unparsed, [{ line: 0, reason: 'OpenMetrics: missing "# EOF" at the end of the exposition' }]);
    assert.deepEqual((await parseDump('')).unparsed, []);
  });

  // The fuzz counterexample `# ERROR\0 …` in strict mode: strict reads the same scrape error as
  // lenient mode, and rejects the input for its missing `# EOF` on that (last) line.
  it('in strict mode reads the records lenient mode reads, and may reject a record line', async () => {
    const body = '# ERROR\u0000 web-7d9f8c6b5-q4w2z: failed to connect: connection refused';
    const strict = await parseDump(body, { strict: true });
    const lenient = await parseDump(body);
    assert.deepEqual(strict.errors, lenient.errors);
    assert.deepEqual(
      strict.errors.map((e) => [e.line, e.message]),
      [[1, '\u0000 web-7d9f8c6b5-q4w2z: failed to connect: connection refused']],
    );
    assert.deepEqual(lenient.unparsed, []);
    assert.deepEqual(strict.unparsed, [{ line: 1, reason: 'OpenMetrics: missing "# EOF" at the end of the exposition' }]);
  });

  it('in strict mode rejects legacy 0.0.4 counters and accepts the POD framing around OpenMetrics bodies', async () => {
    const legacy = await parseDump('# TYPE request_total counter\nrequest_total 1\n# EOF\n', { strict: true });
    assert.ok(legacy.unparsed.some((u) => u.reason.includes('not a sample name of a counter family')));
    const om = '# TYPE a counter\na_total 1\n# EOF\n';
    const framed = await parseDump(podSection('p-1', 1, 2, om) + podSection('p-2', 2, 2, om), { strict: true });
    assert.deepEqual(framed.unparsed, []);
  });

  it('lexes value, timestamp and exemplar separators exactly', () => {
    const ok = lexSample('a_bucket{le="+Inf"} 1 # {a="b"} 1 1');
    assert.ok(typeof ok !== 'string');
    assert.deepEqual(ok.violations, []);
    const spaced = lexSample('a  1');
    assert.ok(typeof spaced !== 'string' && spaced.violations.length > 0);
    assert.equal(typeof lexSample('a'), 'string');
  });
});

describe('prometheus parser robustness', () => {
  // Found by the linear-time fuzz property on a proxy-log line (`[ 1111…1.5s]`): the number pattern
  // was written \d+\.?\d*, so a long digit run that is not a number was split between \d+ and \d*
  // in every possible way before failing; 64 KiB of digits took seconds.
  it('rejects a 64 KiB run of digits that is not a number in linear time, and reads numbers as before', () => {
    const started = performance.now();
    const lexed = lexSample(`a ${'1'.repeat(64 << 10)}s]`);
    const ms = performance.now() - started;
    assert.ok(ms < 250, `${ms.toFixed(0)} ms`);
    assert.ok(typeof lexed === 'string' && lexed.startsWith('invalid value'));
    const readings = ['1', '1.', '1.5', '.5', '1.e5', '1.5E-3', '+1', '-0.5', '01.10', '.', 'e5', '1e', '1..2', '1.5.'].map((v) => parseNumber(v));
    assert.deepEqual(readings, [1, 1, 1.5, 0.5, 100000, 0.0015, 1, -0.5, 1.1, null, null, null, null, null]);
  });

  it('never throws on arbitrary lines, in lenient or strict mode, and emits only well-formed records', async () => {
    const fc = await import('fast-check');
    const fragment = fc.constantFrom(
      '#',
      '# POD p (1 of 2)',
      '# EOF',
      '# TYPE a histogram',
      '# HELP a x',
      '# UNIT a_s s',
      'a_bucket{le="+Inf"} 1',
      'a{b="c\\"',
      '{"x"} 1',
      'a 1 2 # {} 3',
      '',
      ' ',
      '\t',
      'x{',
      '}',
      '"',
      '=',
      '1',
    );
    const line = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fragment, { maxLength: 4 }).map((parts) => parts.join(' ')),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.boolean(), async (lines, strict) => {
        const { samples } = await parseDump(lines.join('\n'), { strict });
        for (const s of samples) {
          assert.equal(typeof s.name, 'string');
          assert.equal(typeof s.family, 'string');
          assert.equal(typeof s.value, 'number');
        }
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});

describe('prometheus lexer: lines that repeat the previous line up to its last label', () => {
  const withoutReuse = (lexed: ReturnType<typeof lexSample>) => {
    if (typeof lexed === 'string') return lexed;
    const { reusable: _reusable, ...rest } = lexed;
    return rest;
  };
  const prefixOf = (line: string) => {
    const lexed = lexSample(line);
    assert.ok(typeof lexed !== 'string');
    return lexed.reusable ?? null;
  };

  it('reads each follower exactly as a line read on its own', () => {
    const previous = 'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="10"} 3';
    const followers = [
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="20"} 4',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="+Inf"} 5 1700000000',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="a\\"b\\\\c"} 5',
      // The same prefix, then something the fast path must hand back to the full lexer:
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",lex="1"} 5',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="1",x="y"} 5',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le= "1"} 5',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="1"}  5',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="1"} x',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",le="1',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-1",direction="inbound"} 5',
      'response_latency_ms_bucket{direction="outbound",dst_pod="web-2",le="10"} 3',
    ];
    const prefix = prefixOf(previous);
    assert.ok(prefix, 'a bucket line offers its prefix');
    for (const line of followers) assert.deepEqual(withoutReuse(lexSample(line, prefix)), withoutReuse(lexSample(line)), line);
  });

  it('offers no prefix after a line with grammar violations or a single label', () => {
    assert.equal(prefixOf('a{x="1", le="1"} 1'), null);
    assert.equal(prefixOf('a{le="1"} 1'), null);
    assert.equal(prefixOf('a 1'), null);
  });

  it('keeps duplicate detection exact when a series is read once in full and once from a shared prefix', async () => {
    const dump = [
      '# TYPE x histogram',
      'x_bucket{a="1",b="2",le="1"} 1', // full read
      'x_count{a="1",b="2"} 1',
      'x_bucket{a="1",b="2",le="2"} 1', // full read (the previous line had another prefix)
      'x_bucket{a="1",b="2",le="1"} 1', // from the shared prefix: the same series as the first line
      'x_bucket{a="1",b="3",le="1"} 1',
    ].join('\n');
    const { samples } = await parseDump(dump + '\n');
    assert.deepEqual(
      samples.map((s) => s.duplicate === true),
      [false, false, false, true, false],
    );
    assert.deepEqual(structuredClone(samples[3]!.labels), { a: '1', b: '2', le: '1' });
  });

  it('matches the full lexer on random sequences of lines (fast-check, fixed seed)', async () => {
    const fc = await import('fast-check');
    const label = fc.constantFrom('a', 'b', 'le', 'dst_pod');
    const value = fc.constantFrom('1', '2', 'x y', 'q\\"', '');
    const line = fc.tuple(
      fc.constantFrom('m_bucket', 'm_count'),
      fc.array(fc.tuple(label, value), { minLength: 0, maxLength: 4 }),
      fc.constantFrom(' 1', ' 2 3', '  1', ' x'),
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 2, maxLength: 12 }), (lines) => {
        const texts = lines.map(([name, labels, rest]) => `${name}${labels.length ? `{${labels.map(([k, v]) => `${k}="${v}"`).join(',')}}` : ''}${rest}`);
        let previous: ReturnType<typeof prefixOf> = null;
        for (const text of texts) {
          const fast = lexSample(text, previous);
          assert.deepEqual(withoutReuse(fast), withoutReuse(lexSample(text)), text);
          previous = typeof fast === 'string' ? null : (fast.reusable ?? null);
        }
      }),
      { seed: 20261202, numRuns: 500 },
    );
  });
});
