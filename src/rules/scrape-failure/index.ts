// Metrics that could not be scraped are metrics no other rule can judge, and often the symptom
// itself: a `# ERROR:` section of `linkerd diagnostics proxy-metrics` (cli/cmd/metrics.go writes
// the port-forward or pod error there instead of the pod's metrics), or a DOWN row of Prometheus'
// targets page that the last look read (parsers/last-look.ts). The rule names what failed for
// which target and why, from the error text and the port: Linkerd's admin ports say which
// component it is (proxy 4191; in linkerd-destination: destination 9996, sp-validator 9997, policy
// 9990; identity 9990; proxy-injector 9995), and the policy controller served no /metrics on its
// admin port before linkerd2 #10645 (stable-2.13), so Prometheus' 404 there is that, not an outage.

import { defineRule, type FindingDraft, type MetricScrapeErrorRecord, type SampleLine } from '../../core/types.js';
import { keepSample } from '../../core/evidence.js';
import { detach } from '../../util/stats.js';

export interface ScrapeFailureOptions {
  minFailures: number;
}

type Cause = 'no-metrics-endpoint' | 'refused' | 'timed-out' | 'pod-not-running' | 'port-forward' | 'other';

interface Group {
  cause: Cause;
  /** The component its port or labels name (`policy`, `proxy`), or null. */
  component: string | null;
  port: string | null;
  status: string | null;
  count: number;
  /** Targets (scrape URLs) or pods (dump sections) that failed, at most MAX_TARGETS; `moreTargets` counts the rest. */
  targets: string[];
  moreTargets: number;
  jobs: string[];
  source: NonNullable<MetricScrapeErrorRecord['source']>;
  samples: SampleLine[];
  location: { path: string; line: number };
}

interface State {
  /** Keyed by cause, component and port: a handful of causes times Linkerd's few ports and components, capped at MAX_GROUPS. */
  groups: Map<string, Group>;
  minFailures: number;
  /** Failures of a cause/component/port beyond MAX_GROUPS, counted into one `other` group instead. */
  overflow: number;
}

const MAX_TARGETS = 20;
const MAX_GROUPS = 200;
const MAX_SAMPLES = 3;

const HTTP_STATUS = /server returned HTTP status (\d{3})/;
const PORT_OF_URL = /^https?:\/\/[^/\s]*:(\d{1,5})(?:\/|$)/;

/** Linkerd's admin ports, by the component that serves /metrics there (charts/linkerd-control-plane, viz). */
const COMPONENT_BY_PORT = new Map<string, string>([
  ['4191', 'proxy'],
  ['9996', 'destination'],
  ['9997', 'sp-validator'],
  ['9995', 'proxy-injector'],
]);

function causeOf(message: string): { cause: Cause; status: string | null } {
  const status = HTTP_STATUS.exec(message)?.[1] ?? null;
  if (status === '404') return { cause: 'no-metrics-endpoint', status };
  if (/connection refused/.test(message)) return { cause: 'refused', status };
  if (/context deadline exceeded|i\/o timeout|Client\.Timeout|timed out/.test(message)) return { cause: 'timed-out', status };
  if (/^pod not running/.test(message)) return { cause: 'pod-not-running', status };
  if (/port ?forward|error upgrading connection|unable to listen|lost connection to pod/i.test(message)) return { cause: 'port-forward', status };
  return { cause: 'other', status };
}

export default defineRule<ScrapeFailureOptions, State>({
  meta: {
    id: 'scrape-failure',
    code: 'LD2005',
    title: 'Linkerd metrics that could not be scraped',
    description:
      "`# ERROR` sections of linkerd diagnostics proxy-metrics and DOWN rows of Prometheus' targets page, per target and cause: no /metrics on the port (404; the policy controller before stable-2.13), refused, timed out, port-forward failing.",
    defaultSeverity: 'warning',
    inputs: ['prometheus', 'kubectl'],
    defaultOptions: { minFailures: 1 },
    optionSchema: {
      minFailures: {
        type: 'integer',
        minimum: 1,
        description: 'Failed scrapes of one target and cause from which the rule fires; a scrape either works or it does not, so one is enough.',
      },
    },
  },

  createState: (options) => ({ groups: new Map(), minFailures: options.minFailures, overflow: 0 }),

  visitors: {
    'metric-scrape-error'(state, record: MetricScrapeErrorRecord) {
      const { cause, status } = causeOf(record.message);
      // The CLI asks every pod a selector names; one that is not running (a finished Job, a
      // scaled-down canary) has no proxy to scrape, which is no failure of the scrape.
      if (cause === 'pod-not-running') return;
      const port = record.target ? (PORT_OF_URL.exec(record.target)?.[1] ?? null) : null;
      const component =
        record.component ??
        (port === '9990' ? (record.job === 'linkerd-controller' ? 'policy or identity' : null) : port ? (COMPONENT_BY_PORT.get(port) ?? null) : null);
      const source = record.source ?? 'proxy-metrics';
      let key = `${cause}|${component ?? ''}|${port ?? ''}|${source}`;
      if (!state.groups.has(key) && state.groups.size >= MAX_GROUPS) {
        // Every failure is kept as a failure: past the bound, new keys share one group.
        key = 'other|||overflow';
        state.overflow++;
      }
      let g = state.groups.get(key);
      if (!g) {
        g = {
          cause,
          component,
          port,
          status,
          count: 0,
          targets: [],
          moreTargets: 0,
          jobs: [],
          source,
          samples: [],
          location: { path: detach(record.path), line: record.line },
        };
        state.groups.set(key, g);
      }
      g.count++;
      const target = record.target ?? record.section ?? record.pod ?? null;
      if (target !== null && !g.targets.includes(target)) {
        if (g.targets.length < MAX_TARGETS) g.targets.push(detach(target));
        else g.moreTargets++;
      }
      if (record.job && g.jobs.length < 5 && !g.jobs.includes(record.job)) g.jobs.push(detach(record.job));
      keepSample(g.samples, MAX_SAMPLES, record.path, record.line, `${record.target ? `${record.target}: ` : ''}${record.message}`);
    },
  },

  merge(into, from) {
    into.overflow += from.overflow;
    for (const [key, g] of from.groups) {
      const mine = into.groups.get(key);
      if (!mine) {
        if (into.groups.size < MAX_GROUPS) into.groups.set(key, g);
        else {
          into.overflow += g.count;
        }
        continue;
      }
      mine.count += g.count;
      for (const t of g.targets) {
        if (mine.targets.includes(t)) continue;
        if (mine.targets.length < MAX_TARGETS) mine.targets.push(t);
        else mine.moreTargets++;
      }
      mine.moreTargets += g.moreTargets;
      for (const j of g.jobs) if (mine.jobs.length < 5 && !mine.jobs.includes(j)) mine.jobs.push(j);
      for (const s of g.samples) keepSample(mine.samples, MAX_SAMPLES, s.path, s.line, s.text);
    }
  },

  finish(state) {
    return [...state.groups.values()]
      .filter((g) => g.count >= state.minFailures)
      .sort((a, b) => b.count - a.count)
      .map((g) => describe(g, state.overflow));
  },
});

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function describe(g: Group, overflow: number): FindingDraft {
  const targets = g.targets.length + g.moreTargets;
  const what = g.component ? `the ${g.component}${g.component === 'proxy' ? '' : ' controller'}` : targets === 1 ? g.targets[0]! : plural(targets, 'target');
  const where = g.source === 'prometheus-targets' ? 'Prometheus' : 'linkerd diagnostics proxy-metrics';
  const port = g.port ? ` on port ${g.port}` : '';
  const policyAdmin = g.cause === 'no-metrics-endpoint' && g.port === '9990';
  const text = ((): { title: string; why: string; steps: string[] } => {
    switch (g.cause) {
      case 'no-metrics-endpoint':
        return policyAdmin
          ? {
              title: `${where} scrapes port 9990 of the ${g.component ?? 'policy'} controller, which serves no /metrics there (404): the scrape target is down`,
              why: "Port 9990 is the policy controller's admin port (and identity's); the policy controller answered /metrics with 404 until stable-2.13 (linkerd2 #7097, metrics added by #10645), so a scrape job that selects every admin port of the control plane marks it down although it is healthy.",
              steps: [
                'Upgrade Linkerd to stable-2.13 or later, where the policy controller serves /metrics on 9990, or drop port policy-admin from the scrape job (a relabel rule keeping only the ports that serve metrics).',
                'Check that the controller itself is healthy: kubectl -n linkerd get pods -l linkerd.io/control-plane-component=destination (the policy container must be ready).',
              ],
            }
          : {
              title: `${where} cannot scrape ${what}${port}: no /metrics endpoint there (404), the scrape target is down`,
              why: 'The target answered but serves no /metrics at that port and path: the scrape configuration selects a port that is not a metrics port (an application port, an admin port without metrics in this release) or the wrong path.',
              steps: [
                `Compare the scrape job's port and path with the container's metrics port (kubectl get pod <pod> -o jsonpath='{.spec.containers[*].ports}'); Linkerd's proxies serve /metrics on 4191 (linkerd-admin).`,
                'Fix the relabel rules of the job so it keeps only metrics ports.',
              ],
            };
      case 'refused':
        return {
          title: `${where} cannot scrape ${what}${port}: the connection is refused, nothing listens there`,
          why: 'Nothing listens on that port: the container is not running or not started yet (a crash-looping proxy or controller), or the port is not the one it listens on.',
          steps: [
            'Check the pod behind the target: kubectl get pod -o wide | grep <ip>, then kubectl describe pod for restarts and the container listening on that port.',
            'If the pod is healthy, fix the scrape job: it targets a port the container does not listen on.',
          ],
        };
      case 'timed-out':
        return {
          title: `${where} cannot scrape ${what}${port} in time: the scrape times out`,
          why: 'The target did not answer within the scrape timeout: a proxy whose /metrics grew very large (many series: see metric-cardinality), a container starved of CPU, or a network path (NetworkPolicy, firewall) that drops the packets.',
          steps: [
            'Measure the scrape: kubectl port-forward to the port, then time curl -s localhost:<port>/metrics | wc -l (hundreds of thousands of lines mean a cardinality problem).',
            "Raise the job's scrape_timeout only after ruling that out; check NetworkPolicies between Prometheus and the pod.",
          ],
        };
      case 'port-forward':
        return {
          title: `linkerd diagnostics proxy-metrics could not reach ${what}: the port-forward to the admin port failed`,
          why: "The CLI reaches each proxy's admin port through a Kubernetes port-forward; it failed (the kubelet or the API server refused the stream, or the container restarted meanwhile).",
          steps: [
            'Retry for one pod with kubectl -n <ns> port-forward <pod> 4191 and curl localhost:4191/metrics; a kubelet or API-server error there is the cause.',
          ],
        };
      case 'pod-not-running':
      case 'other':
        return {
          title: `${where} could not scrape ${what}${port}`,
          why: `The scrape failed: ${g.samples[0]?.text ?? 'see the samples'}.`,
          steps: ['Read the error in the samples and check the target with curl from a pod in the same network as the scraper.'],
        };
    }
  })();
  return {
    severity: 'warning',
    kind: `scrape/${g.cause}`,
    title: text.title,
    message: `${plural(g.count, 'failed scrape')} of ${plural(targets, 'target')}${g.jobs.length > 0 ? ` (job ${g.jobs.join(', ')})` : ''}: ${g.samples[0]?.text ?? ''}. ${text.why}${overflow > 0 ? ` ${overflow} failures of further targets were counted without their own group (bound of ${MAX_GROUPS}).` : ''}`,
    subject: { target: g.component ?? (targets === 1 ? g.targets[0]! : (g.port ?? 'scrape targets')) },
    locations: [g.location],
    keyFigure: { name: 'failed scrapes', value: g.count },
    evidence: {
      cause: g.cause,
      ...(g.component ? { component: g.component } : {}),
      ...(g.port ? { port: g.port } : {}),
      ...(g.status ? { httpStatus: g.status } : {}),
      source: g.source,
      failures: g.count,
      targets: g.targets.map((target) => ({ target })),
      ...(g.moreTargets > 0 ? { targetsNotListed: g.moreTargets } : {}),
      samples: g.samples,
    },
    remediation: text.steps.map((s, i) => `${i + 1}. ${s}`).join('\n'),
  };
}
