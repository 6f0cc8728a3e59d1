// The Linkerd controllers' own trouble with Kubernetes, from their logs (logrus text or JSON, klog)
// and from the events of the objects they serve:
// - RBAC: `endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:linkerd:
//   linkerd-destination" cannot list resource "endpointslices" in API group "discovery.k8s.io"`:
//   the controller's ClusterRole lacks a rule, so its informer never syncs and it serves nothing
//   (the destination controller has no endpoints, the injector cannot read namespaces);
// - the API server unreachable: client-go's reflector failing to list or watch with `connection
//   refused`, `i/o timeout`, `TLS handshake timeout` to the API server's address;
// - the admission webhooks: `failed calling webhook "linkerd-proxy-injector.linkerd.io"` in a
//   ReplicaSet's FailedCreate events (pods are not created, or are created without a proxy), and the
//   injector's own `http: TLS handshake error … bad certificate` when the API server does not trust
//   its certificate.
// RBAC and webhook failures are deterministic: the first line is the incident. An API-server
// connection error can be a blip during a control-plane upgrade, so `minApiErrors` are needed.

import { defineRule, type FindingDraft, type KubeEventRecord, type ProxyLogRecord, type SampleLine, type SourceLocation } from '../../core/types.js';
import { goLineText, isGoLog } from '../../kit/go-log.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { addDropped, detach, droppedKeys, droppedSentence, type DroppedKeys, keepWorst, mergeKeyed } from '../../util/stats.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';

export interface ControllerApiErrorsOptions {
  minApiErrors: number;
}

type Problem = 'rbac-forbidden' | 'api-unreachable' | 'webhook-failed' | 'webhook-tls';

interface ProblemState {
  problem: Problem;
  /** Who fails: the service account or the controller (`linkerd-destination`), the webhook name. */
  who: string;
  /** What: `list endpointslices.discovery.k8s.io`, `10.96.0.1:443: connection refused`, `context deadline exceeded`. */
  what: string;
  namespace: string | null;
  count: number;
  pods: string[];
  samples: SampleLine[];
  location: SourceLocation;
}

interface State {
  problems: Map<string, ProblemState>;
  minApiErrors: number;
  /** Problems let go to stay within MAX_PROBLEMS, those short of a finding first (keepWorst). */
  dropped: DroppedKeys;
}

const MAX_PROBLEMS = stateCap(1_000);
const MAX_PODS = stateCap(20);
const MAX_SAMPLES = 3;

/** client-go's RBAC refusal, as the API server words it. Each group is a run of one character class, bounded by a literal. */
export const FORBIDDEN = /is forbidden: User "system:serviceaccount:([a-z0-9-]+):([a-z0-9-]+)" cannot (\w+) resource "([^"]+)" in API group "([^"]*)"/;
/** A reflector failing to list or watch, and how the connection to the API server failed. */
const LIST_WATCH = /(?:failed to list|Failed to watch|failed to watch|Failed to list) \*?[\w.]+/;
const API_CONNECT =
  /(?:dial tcp ([^\s:]+:\d+): (?:connect: )?(connection refused|i\/o timeout|no route to host|connection reset by peer)|(net\/http: TLS handshake timeout)|(Unauthorized))/;
/** The API server calling a Linkerd admission webhook and failing: `failed calling webhook "linkerd-proxy-injector.linkerd.io": …`. */
const WEBHOOK_CALL = /failed calling webhook "(linkerd-[\w.-]+)": (?:failed to call webhook: )?(.*)$/;
/** Go's http server (the injector's webhook) on a handshake the API server aborted. */
const TLS_HANDSHAKE = /http: TLS handshake error from ([^\s:]+):\d+: (.*)$/;

export default defineRule<ControllerApiErrorsOptions, State>({
  meta: {
    id: 'controller-api-errors',
    code: 'LD1008',
    title: 'Linkerd controllers failing against Kubernetes',
    description:
      "A Linkerd controller refused by RBAC for a resource (naming the resource and its ClusterRole), unable to reach the API server, or its admission webhook failing to be called (certificate, network, injector down), from the controllers' logs and the cluster's events.",
    defaultSeverity: 'error',
    inputs: ['proxy-log', 'kubectl'],
    lineInterest: { 'proxy-log': ['is forbidden', 'ailed to list', 'ailed to watch', 'failed calling webhook', 'TLS handshake error'] },
    defaultOptions: { minApiErrors: 3 },
    optionSchema: {
      minApiErrors: {
        type: 'integer',
        minimum: 1,
        description:
          'List/watch failures to the API server that fire (one can be a blip during a control-plane upgrade); RBAC and webhook failures fire at the first.',
      },
    },
  },

  createState: (options) => ({ problems: new Map(), minApiErrors: options.minApiErrors, dropped: droppedKeys() }),

  visitors: {
    'proxy-log'(state, record: ProxyLogRecord) {
      const text = isGoLog(record)
        ? goLineText(record)
        : `${record.target}: ${record.message}${Object.entries(record.fields)
            .map(([k, v]) => ` ${k}=${v}`)
            .join('')}`;
      const forbidden = FORBIDDEN.exec(text);
      if (forbidden) {
        const [, ns, account, verb, resource, group] = forbidden as unknown as [string, string, string, string, string, string];
        const what = `${verb} ${resource}${group ? `.${group}` : ''}`;
        note(state, 'rbac-forbidden', account, what, ns, record, text);
        return;
      }
      if (LIST_WATCH.test(text)) {
        const connect = API_CONNECT.exec(text);
        if (connect) {
          const what = connect[1] ? `${connect[1]}: ${connect[2]}` : (connect[3] ?? connect[4]!);
          note(state, 'api-unreachable', controllerOf(record), what, record.namespace ?? null, record, text);
        }
        return;
      }
      const webhook = WEBHOOK_CALL.exec(text);
      if (webhook) {
        note(state, 'webhook-failed', webhook[1]!, webhookCause(webhook[2]!), null, record, text);
        return;
      }
      const tls = TLS_HANDSHAKE.exec(text);
      if (tls && /bad certificate|unknown certificate authority|certificate signed by unknown authority/.test(tls[2]!))
        note(state, 'webhook-tls', controllerOf(record), tls[2]!, record.namespace ?? null, record, text);
    },
    'kube-event'(state, record: KubeEventRecord) {
      const webhook = WEBHOOK_CALL.exec(record.message);
      if (webhook)
        note(
          state,
          'webhook-failed',
          webhook[1]!,
          webhookCause(webhook[2]!),
          record.namespace ?? null,
          record,
          `${record.type} ${record.reason} (x${record.count}): ${record.message}`,
          record.count,
        );
    },
  },

  merge(into, from) {
    mergeKeyed(into.problems, from.problems, (mine, theirs) => {
      mine.count += theirs.count;
      for (const pod of theirs.pods) if (mine.pods.length < MAX_PODS && !mine.pods.includes(pod)) mine.pods.push(pod);
      for (const s of theirs.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
      mine.namespace ??= theirs.namespace;
    });
    addDropped(into.dropped, from.dropped);
    keepWorst(into.problems, MAX_PROBLEMS, (p) => rankOf(p, into.minApiErrors), into.dropped);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const p of state.problems.values()) {
      if (p.problem === 'api-unreachable' && p.count < options.minApiErrors) continue;
      findings.push(describe(p));
    }
    const dropped = droppedSentence(state.dropped, 'distinct controller errors');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, problemsNotTracked: state.dropped.healthy + state.dropped.signal };
      }
    return findings.sort((a, b) => (b.keyFigure?.value ?? 0) - (a.keyFigure?.value ?? 0) || a.title.localeCompare(b.title));
  },
});

function note(
  state: State,
  problem: Problem,
  who: string,
  what: string,
  namespace: string | null,
  record: ProxyLogRecord | KubeEventRecord,
  text: string,
  count = 1,
): void {
  const key = `${problem}\u0000${who}\u0000${what}`;
  let p = state.problems.get(key);
  if (!p) {
    keepWorst(state.problems, MAX_PROBLEMS, (x) => rankOf(x, state.minApiErrors), state.dropped);
    p = {
      problem,
      who: detach(who),
      what: detach(what),
      namespace: namespace === null ? null : detach(namespace),
      count: 0,
      pods: [],
      samples: [],
      location: { path: record.path, line: record.line },
    };
    state.problems.set(detach(key), p);
  }
  p.count += count;
  // A log is one pod's (its path stands for it when unnamed); an event about a ReplicaSet names none.
  const pod = record.pod ?? (record.kind === 'proxy-log' ? record.path : null);
  if (pod !== null && p.pods.length < MAX_PODS && !p.pods.includes(pod)) p.pods.push(detach(pod));
  keepSample(p.samples, MAX_SAMPLES, detach(record.path), record.line, text);
}

/**
 * How much a problem weighs against the verdict, for keepWorst: one that makes a finding (every
 * webhook or TLS failure, API errors from minApiErrors) above those still short of it, each by its
 * count. A thousand distinct one-off API blips never push out a failing webhook.
 */
function rankOf(p: ProblemState, minApiErrors: number): number {
  const count = Math.min(p.count, 1e9);
  return p.problem !== 'api-unreachable' || p.count >= minApiErrors ? 2e9 + count : count;
}

/** The controller a log line came from: its container, else its pod's Deployment. */
function controllerOf(record: ProxyLogRecord): string {
  if (record.container && record.container !== 'linkerd-proxy') return record.container;
  return workloadOfPod(record.pod) ?? record.pod ?? 'a Linkerd controller';
}

function webhookCause(detail: string): string {
  if (/x509|certificate/.test(detail)) return 'certificate not trusted';
  if (/context deadline exceeded|Client\.Timeout|i\/o timeout|timed out/.test(detail)) return 'timed out';
  if (/connection refused|no endpoints available|service "[^"]+" not found/.test(detail)) return 'injector not running';
  return detail.slice(0, 120);
}

/** `linkerd-destination` → `destination` for prose; the ClusterRole Linkerd names after it. */
function component(account: string): string {
  return account.replace(/^linkerd-/, '');
}

function describe(p: ProblemState): FindingDraft {
  const samples = p.samples;
  // A certificate the API server does not trust is certificate-failure's to name (which one, why,
  // the rotation): when it reported, this finding is listed under it instead of beside it.
  const certificate = p.problem === 'webhook-tls' || (p.problem === 'webhook-failed' && p.what === 'certificate not trusted');
  const base = {
    subject: { ...(p.namespace ? { namespace: p.namespace } : {}), ...(p.pods.length === 1 ? { pod: p.pods[0] } : {}), target: p.who },
    locations: [p.location],
    keyFigure: { name: 'errors', value: p.count },
    ...(certificate ? { foldsInto: ['certificate-failure'] } : {}),
  };
  const evidence = { problem: p.problem, who: p.who, what: p.what, errors: p.count, pods: p.pods.map((pod) => ({ pod })), samples };
  switch (p.problem) {
    case 'rbac-forbidden': {
      const [verb, resource] = p.what.split(' ') as [string, string];
      const role = `linkerd-${p.namespace ?? 'linkerd'}-${component(p.who)}`;
      return {
        severity: 'error',
        kind: 'rbac-forbidden',
        title: `${p.who} is not allowed to ${verb} ${resource}: its ClusterRole lacks the rule`,
        message: `The API server refused ${p.count} request${p.count === 1 ? '' : 's'} of service account ${p.namespace ?? '?'}/${p.who} to ${verb} ${resource}. The controller's informer for it never syncs, so it serves stale or no data (the destination controller resolves nothing for proxies, the injector cannot read namespaces). The control plane's RBAC is older or narrower than its binaries: an upgrade that replaced the Deployments but not the ClusterRoles, or a chart rendered with a feature (EndpointSlices, HTTPRoute) the RBAC was not.`,
        evidence: { ...evidence, verb, resource, serviceAccount: `${p.namespace ?? '?'}/${p.who}`, clusterRole: role },
        remediation: [
          `1. See what the ClusterRole grants: \`kubectl get clusterrole ${role} -o yaml\` (Linkerd names it linkerd-<namespace>-<component>) and \`kubectl auth can-i ${verb} ${resource} --as=system:serviceaccount:${p.namespace ?? 'linkerd'}:${p.who}\`.`,
          "2. Re-apply the control plane with its own version's manifests, so RBAC matches the binaries: `linkerd upgrade | kubectl apply -f -` (CLI installs) or `helm upgrade` of linkerd-control-plane with the same values (Helm installs); with GitOps, sync the ClusterRole too.",
          `3. Then restart the controller so its informers start over: \`kubectl -n ${p.namespace ?? 'linkerd'} rollout restart deploy/${p.who}\`.`,
        ].join('\n'),
        ...base,
      };
    }
    case 'api-unreachable':
      return {
        severity: 'error',
        kind: 'api-unreachable',
        title: `${p.who} cannot reach the Kubernetes API server (${p.what})`,
        message: `${p.who} failed ${p.count} times to list or watch resources: ${p.what}. Until it can, it serves what it last knew (endpoints go stale as pods move) or nothing after a restart.`,
        evidence,
        remediation: [
          `1. Check the API server from the controller's node and namespace: a NetworkPolicy or egress firewall in front of ${p.what.split(':').slice(0, 2).join(':')}, the API server itself (managed clusters during an upgrade), or kube-proxy on the node.`,
          '2. Once it is reachable the informers recover by themselves; if the controller stays stuck, restart it (`kubectl -n linkerd rollout restart deploy/linkerd-destination`).',
          '3. Proxies keep working on cached discovery for a while (Linkerd 2.x); new pods and endpoints are not seen until then.',
        ].join('\n'),
        ...base,
      };
    case 'webhook-failed':
      return {
        severity: 'error',
        kind: 'webhook-failed',
        title: `The API server cannot call the ${p.who} webhook: ${p.what}`,
        message: `${p.count} admission request${p.count === 1 ? '' : 's'} to ${p.who} failed (${p.what}). Pods of injected workloads are not created while the webhook's failurePolicy is Fail, or are created without a proxy when it is Ignore.`,
        evidence,
        remediation: [
          p.what === 'timed out'
            ? '1. Allow the control plane to reach the nodes on port 8443, which private GKE (and other clusters with a control-plane firewall) block: the API server cannot reach the webhook pod. Check NetworkPolicies in the linkerd namespace too.'
            : p.what === 'certificate not trusted'
              ? "1. The webhook's caBundle does not match its serving certificate: re-render the control plane with the same webhook certificate and CA (`linkerd upgrade`, or Helm `proxyInjector.externalSecret`/`caBundle` with cert-manager), then restart the injector."
              : '1. Make sure the webhook pod runs and has endpoints: `kubectl -n linkerd get pods,endpoints -l linkerd.io/control-plane-component=proxy-injector`.',
          '2. Then recreate the failed pods (`kubectl rollout restart` of the affected workloads); `linkerd check --proxy` shows the webhook status.',
        ].join('\n'),
        ...base,
      };
    case 'webhook-tls':
      return {
        severity: 'error',
        kind: 'webhook-tls',
        title: `The API server rejects the certificate of ${p.who}'s webhook`,
        message: `${p.who} logged ${p.count} TLS handshake${p.count === 1 ? '' : 's'} aborted by the API server (${p.what}): the caBundle registered for the webhook does not sign the certificate it serves, so every admission request to it fails.`,
        evidence,
        remediation: [
          "1. Re-issue the webhook certificate and its caBundle together: `linkerd upgrade | kubectl apply -f -`, or with cert-manager make sure the injector's MutatingWebhookConfiguration is annotated for CA injection.",
          '2. Restart the injector so it reloads the certificate: `kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector` (Linkerd 2.12+ also reloads it on change).',
        ].join('\n'),
        ...base,
      };
  }
}
