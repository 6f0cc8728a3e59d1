// The config file drives the exported thresholds, and the export-rules command behaves like the
// other commands: the rule file on stdout (or --output), notices and one-line errors on stderr, exit 2.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { docsUrlFor } from '../src/core/docs.js';
import { UsageError } from '../src/core/errors.js';
import { loadRuleOptionOverrides } from '../src/export/config.js';
import { runExportRules, type ExportRulesFlags } from '../src/cli/run-export-rules.js';
import type { RuleGroup } from '../src/kit/export/types.js';
import { fleetLookup } from './support/export-rules.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ld-export-cli-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function exportRules(flags: Partial<ExportRulesFlags>, cwd = dir, lookup = fleetLookup) {
  let stdout = '';
  let stderr = '';
  const code = await runExportRules(
    { target: 'prometheus', ...flags },
    { stdout: async (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, lookup },
  );
  return { code, stdout, stderr };
}

function alerts(yamlText: string): Map<string, { expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> }> {
  const file = parse(yamlText) as { groups: RuleGroup[] };
  return new Map(file.groups.flatMap((g) => g.rules.map((r) => [r.alert, r] as const)));
}

describe('config file', () => {
  test('is read by the same loader as analyze: options merged over the defaults, disabled rules left out', async () => {
    const config = path.join(dir, 'shared.yaml');
    await writeFile(config, 'failOn: warning\nrules:\n  fd-exhaustion:\n    severity: error\n    options:\n      ratio: 0.9\n  dns-ttl-zero: false\n');
    const overrides = await loadRuleOptionOverrides(config, dir);
    assert.equal(overrides.rules.get('fd-exhaustion')!.ratio, 0.9);
    assert.deepEqual(overrides.disabled, ['dns-ttl-zero']);
    assert.equal(overrides.rules.has('dns-ttl-zero'), false);
  });

  test('bad config is a one-line usage error naming the file, line and key', async () => {
    const config = path.join(dir, 'bad.yaml');
    await writeFile(config, 'rules:\n  fd-exhaustion:\n    options:\n      ratio: lots\n');
    await assert.rejects(
      loadRuleOptionOverrides(config, dir),
      (e: unknown) => e instanceof UsageError && /bad\.yaml:4: rules\.fd-exhaustion\.options\.ratio/.test(e.message),
    );
  });

  test('an explicit --config must exist; the default file is optional', async () => {
    await assert.rejects(
      loadRuleOptionOverrides(path.join(dir, 'missing.yaml'), dir),
      (e: unknown) => e instanceof UsageError && /no such file/.test(e.message),
    );
    const empty = await mkdtemp(path.join(tmpdir(), 'ld-empty-'));
    try {
      const none = await loadRuleOptionOverrides(undefined, empty);
      assert.equal(none.source, null);
      assert.deepEqual(none.disabled, []);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('export-rules', () => {
  test('exported thresholds change when the config file changes', async () => {
    const defaults = alerts((await exportRules({})).stdout);
    assert.match(defaults.get('LinkerdProxyFileDescriptorsNearLimit')!.expr, />= 0\.8 < 0\.95$/);
    assert.match(defaults.get('LinkerdProxyFileDescriptorsExhausted')!.expr, />= 0\.95$/);
    assert.match(defaults.get('LinkerdProxyMetricCardinalityCritical')!.expr, />= 50000$/);
    assert.match(defaults.get('LinkerdControllerPodRestarting')!.expr, /\) >= 2$/);

    const config = path.join(dir, 'tuned.yaml');
    await writeFile(
      config,
      'rules:\n  fd-exhaustion:\n    options:\n      ratio: 0.65\n      errorRatio: 0.9\n  metric-cardinality:\n    options:\n      warningSeries: 20000\n      errorSeries: 80000\n' +
        '  reconnect-storm:\n    options:\n      errorMinPods: 12\n  control-plane-unavailable:\n    options:\n      minRestarts: 4\n  stale-endpoint-metrics:\n    options:\n      minIdlePods: 50\n' +
        '  dns-query-storm:\n    options:\n      controlPlaneNames: "linkerd-dst-headless, mesh-policy"\n',
    );
    const tuned = await exportRules({ config });
    assert.equal(tuned.code, 0, tuned.stderr);
    const rules = alerts(tuned.stdout);
    assert.match(rules.get('LinkerdProxyFileDescriptorsNearLimit')!.expr, />= 0\.65 < 0\.9$/);
    assert.match(rules.get('LinkerdProxyFileDescriptorsExhausted')!.expr, />= 0\.9$/);
    assert.match(rules.get('LinkerdProxyMetricCardinalityHigh')!.expr, />= 20000 < 80000$/);
    assert.match(rules.get('LinkerdProxyMetricCardinalityCritical')!.expr, />= 80000$/);
    assert.match(rules.get('LinkerdControlPlaneRequestsFailingFleetWide')!.expr, /\) >= 12$/);
    assert.match(rules.get('LinkerdControllerPodRestarting')!.expr, /\) >= 4$/);
    assert.match(rules.get('LinkerdProxyRetainsSeriesOfUnconnectedPods')!.expr, /\) >= 50\n/);
    // The header names the file as the loader shows it (relative to the working directory).
    assert.match(tuned.stdout, /thresholds from tuned\.yaml\./);

    // A string option: the control-plane names become the name regex of the Loki storm alerts.
    const loki = alerts((await exportRules({ config, target: 'loki' })).stdout);
    assert.match(loki.get('CoreDNSQueryBurstForLinkerdControlPlane')!.expr, /qname=~"\(\?i\)\(\[\^\.\]\+\[\.\]\)\*\(linkerd-dst-headless\|mesh-policy\)/);
    assert.doesNotMatch(loki.get('CoreDNSQueryBurstForLinkerdControlPlane')!.expr, /linkerd-identity/);
  });

  test('a rule disabled in the config is not exported', async () => {
    const config = path.join(dir, 'disabled.yaml');
    await writeFile(config, 'rules:\n  fd-exhaustion: false\n');
    const result = await exportRules({ config });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(![...alerts(result.stdout).values()].some((r) => r.labels.linkerd_doctor_rule === 'fd-exhaustion'));
    assert.match(result.stderr, /notice: skipping fd-exhaustion: disabled in .*disabled\.yaml/);
  });

  test('.linkerd-doctor.yaml in the working directory is read without --config', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'ld-cwd-'));
    try {
      await writeFile(path.join(cwd, '.linkerd-doctor.yaml'), 'rules:\n  fd-exhaustion:\n    options:\n      ratio: 0.7\n');
      const result = await exportRules({}, cwd);
      assert.match(alerts(result.stdout).get('LinkerdProxyFileDescriptorsNearLimit')!.expr, />= 0\.7 < 0\.95$/);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  test('a misspelt or mistyped option is a usage error (exit 2), not a silently ignored threshold', async () => {
    const config = path.join(dir, 'typo.yaml');
    await writeFile(config, 'rules:\n  fd-exhaustion:\n    options:\n      ration: 0.9\n');
    const typo = await exportRules({ config });
    assert.equal(typo.code, 2);
    assert.equal(typo.stdout, '');
    assert.match(typo.stderr, /typo\.yaml:4: rules\.fd-exhaustion\.options\.ration: unknown option; did you mean ratio\? \(known: ratio, errorRatio\)/);
    assert.equal(typo.stderr.trim().split('\n').length, 1);

    await writeFile(config, 'rules:\n  fd-exhaustion:\n    options:\n      ratio: "80%"\n');
    const mistyped = await exportRules({ config });
    assert.equal(mistyped.code, 2);
    assert.match(mistyped.stderr, /typo\.yaml:4: rules\.fd-exhaustion\.options\.ratio: must be a number, got string "80%"/);
    assert.equal(mistyped.stderr.trim().split('\n').length, 1);
  });

  test("every alert carries severity, the rule id label, summary, description and the rule's runbook", async () => {
    for (const target of ['prometheus', 'loki']) {
      const { stdout } = await exportRules({ target });
      for (const [name, rule] of alerts(stdout)) {
        const id = rule.labels.linkerd_doctor_rule!;
        assert.ok(fleetLookup(id), `${name}: ${id}`);
        assert.ok(['critical', 'warning', 'info'].includes(rule.labels.severity!), name);
        assert.ok(rule.annotations.summary && rule.annotations.description, name);
        assert.equal(rule.annotations.runbook_url, docsUrlFor(id), name);
        assert.match(rule.annotations.description!, new RegExp(`linkerd-doctor explain ${id}`));
      }
    }
  });

  test('rules not registered in this build are skipped with a notice on stderr', async () => {
    const onlyStorm = (id: string) => (id === 'reconnect-storm' ? fleetLookup(id) : undefined);
    const result = await exportRules({}, dir, onlyStorm);
    assert.equal(result.code, 0);
    assert.deepEqual(
      [...alerts(result.stdout).values()].map((r) => r.labels.linkerd_doctor_rule),
      ['reconnect-storm'],
    );
    for (const id of [
      'metric-cardinality',
      'fd-exhaustion',
      'ingress-pod-ip-bypass',
      'stale-endpoint-metrics',
      'dns-ttl-zero',
      'dns-query-storm',
      'control-plane-unavailable',
    ]) {
      assert.match(result.stderr, new RegExp(`notice: skipping ${id}: the rule is not part of this build`));
    }
    assert.doesNotMatch(result.stdout, /notice/);
    assert.equal((await exportRules({ quiet: true }, dir, onlyStorm)).stderr, '');
  });

  test('a registered rule without an option the exporter reads is skipped with a notice, not exported with a broken threshold', async () => {
    const renamed = (id: string) => {
      const rule = fleetLookup(id);
      if (id !== 'fd-exhaustion' || !rule) return rule;
      return {
        ...rule,
        meta: { ...rule.meta, defaultOptions: { maxRatio: 0.8 }, optionSchema: { maxRatio: { type: 'number' as const, description: 'renamed' } } },
      };
    };
    const result = await exportRules({}, dir, renamed);
    assert.equal(result.code, 0);
    assert.match(result.stderr, /skipping fd-exhaustion: its options have no numeric ratio, errorRatio, which the prometheus export reads/);
    assert.ok(![...alerts(result.stdout).values()].some((r) => r.labels.linkerd_doctor_rule === 'fd-exhaustion'));
    assert.ok(alerts(result.stdout).has('LinkerdProxyMetricCardinalityCritical'));
  });

  test('a string option the exporter reads must be a string in the registered rule', async () => {
    const withoutNames = (id: string) => {
      const rule = fleetLookup(id);
      if (id !== 'dns-query-storm' || !rule) return rule;
      const { controlPlaneNames: _names, ...defaultOptions } = rule.meta.defaultOptions as Record<string, unknown>;
      const { controlPlaneNames: _spec, ...optionSchema } = rule.meta.optionSchema as Record<string, unknown>;
      return { ...rule, meta: { ...rule.meta, defaultOptions, optionSchema } } as typeof rule;
    };
    const result = await exportRules({ target: 'loki' }, dir, withoutNames);
    assert.equal(result.code, 0);
    assert.match(result.stderr, /skipping dns-query-storm: its options have no string controlPlaneNames, which the loki export reads/);
    assert.ok(![...alerts(result.stdout).values()].some((r) => r.labels.linkerd_doctor_rule === 'dns-query-storm'));
  });

  test('with the real registry, the rules registered today are exported', async () => {
    let stdout = '';
    const code = await runExportRules({ target: 'loki', quiet: true }, { stdout: async (t) => void (stdout += t), stderr: () => {}, cwd: dir });
    assert.equal(code, 0);
    assert.ok([...alerts(stdout).values()].some((r) => r.labels.linkerd_doctor_rule === 'reconnect-storm'));
  });

  test('--format prometheusrule wraps the groups in a monitoring.coreos.com/v1 PrometheusRule', async () => {
    const { stdout } = await exportRules({ format: 'prometheusrule', label: ['release=kube-prometheus-stack'], name: 'linkerd-live' });
    const resource = parse(stdout) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string; labels: Record<string, string> };
      spec: { groups: RuleGroup[] };
    };
    assert.equal(resource.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(resource.kind, 'PrometheusRule');
    assert.equal(resource.metadata.name, 'linkerd-live');
    assert.equal(resource.metadata.labels.release, 'kube-prometheus-stack');
    const plain = parse((await exportRules({})).stdout) as { groups: RuleGroup[] };
    assert.deepEqual(resource.spec.groups, plain.groups);
  });

  test('--output writes the file and leaves stdout empty', async () => {
    const out = path.join(dir, 'rules.yaml');
    const result = await exportRules({ target: 'loki', output: out });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '');
    assert.match(await readFile(out, 'utf8'), /^# Generated by linkerd-doctor/);
  });

  test('bad flags are one-line usage errors', async () => {
    assert.match((await exportRules({ target: 'datadog' })).stderr, /--target must be one of prometheus, loki/);
    assert.match((await exportRules({ 'namespace-label': 'kubernetes-namespace' })).stderr, /not a valid label name/);
    assert.match((await exportRules({ 'proxy-selector': '{job="x"}' })).stderr, /without braces/);
    assert.match((await exportRules({ label: ['release'] })).stderr, /must be KEY=VALUE/);
    assert.match((await exportRules({ target: 'loki', 'log-selector': ' ' })).stderr, /--log-selector must not be empty/);
    assert.equal((await exportRules({ target: 'datadog' })).code, 2);
  });

  test('severity labels speak Alertmanager (critical|warning|info); --severity-map legacy keeps error|warning|info', async () => {
    for (const target of ['prometheus', 'loki']) {
      const modern = alerts((await exportRules({ target, quiet: true })).stdout);
      const legacy = alerts((await exportRules({ target, quiet: true, 'severity-map': 'legacy' })).stdout);
      assert.deepEqual([...legacy.keys()], [...modern.keys()], target);
      const pairs = new Set([...modern].map(([name, rule]) => `${legacy.get(name)!.labels.severity}->${rule.labels.severity}`));
      assert.ok(pairs.has('error->critical') && pairs.has('warning->warning'), `${target}: ${[...pairs].join(' ')}`);
      assert.deepEqual(
        [...pairs].filter((p) => !['error->critical', 'warning->warning', 'info->info'].includes(p)),
        [],
        target,
      );
      // Only the label changes: the same queries, durations and annotations either way.
      for (const [name, rule] of modern)
        assert.deepEqual(
          { ...rule, labels: { ...rule.labels, severity: '' } },
          { ...legacy.get(name)!, labels: { ...legacy.get(name)!.labels, severity: '' } },
          name,
        );
    }
    const bad = await exportRules({ 'severity-map': 'pagerduty' });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--severity-map must be one of alertmanager, legacy/);
  });

  test('--name must be an RFC 1123 subdomain and --label a valid Kubernetes label (exit 2, the rule stated)', async () => {
    for (const name of ['Bad_Name', 'UPPER', '-lead', 'trail-', 'a'.repeat(254), 'sp ace', '']) {
      const result = await exportRules({ format: 'prometheusrule', name });
      assert.equal(result.code, 2, name);
      assert.equal(result.stdout, '', name);
      assert.equal(result.stderr.trim().split('\n').length, 1, name);
      assert.match(
        result.stderr,
        /is not a valid resource name: a Kubernetes metadata\.name must be an RFC 1123 subdomain, at most 253 characters of lower-case letters, digits, '-' and '\.', starting and ending with a letter or digit/,
        name,
      );
    }
    assert.match((await exportRules({ format: 'prometheusrule', name: 'Bad_Name' })).stderr, /\(e\.g\. "bad-name"\)/);
    for (const name of ['linkerd-doctor', 'linkerd.doctor-1', 'a', 'a'.repeat(253)])
      assert.equal((await exportRules({ format: 'prometheusrule', name, quiet: true })).code, 0, name);
    for (const label of ['bad key=x', 'release=kube prometheus', 'release=-x', `k=${'v'.repeat(64)}`, 'Example.COM/x=y', '/x=y']) {
      const result = await exportRules({ format: 'prometheusrule', label: [label] });
      assert.equal(result.code, 2, label);
      assert.match(result.stderr, /not a valid label key|a label value must be/, label);
    }
    for (const label of ['release=kube-prometheus-stack', 'app.kubernetes.io/part-of=monitoring', 'empty='])
      assert.equal((await exportRules({ format: 'prometheusrule', label: [label], quiet: true })).code, 0, label);
  });

  test("docs/fleet.md documents every exported alert and links each rule's page", async () => {
    const doc = await readFile(new URL('../docs/fleet.md', import.meta.url), 'utf8');
    for (const target of ['prometheus', 'loki']) {
      for (const [name, rule] of alerts((await exportRules({ target, quiet: true })).stdout)) {
        assert.match(doc, new RegExp(`\`${name}\``), name);
        const id = rule.labels.linkerd_doctor_rule!;
        assert.ok(doc.includes(`(rules/${id}.md)`) && doc.includes(`linkerd-doctor explain ${id}`), id);
      }
    }
  });
});
