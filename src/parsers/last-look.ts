// The last look (issue 45): whatever kind an input is read as, and when it is read as none, the
// lines no parser consumed go through one scan for the failure words that need no grammar. A
// line holding them becomes the record the rule owning that failure already reads (a Kubernetes
// event, a container's status, certificate evidence), with the line itself as the message, so a
// finding is raised on the words even when the layout around them is unknown.
//
// The words come from the code that prints them, each entry naming its source, not from samples.
// One literal test (WORDS) decides whether a line is looked at further: the scan costs a single
// regex test per unread line, and nothing on lines a parser read.

import type { InputInfo, KubeEventRecord, LdRecord, MetricScrapeErrorRecord, PodStatusRecord, ProxyLogRecord } from '../core/types.js';
import type { CertificateEvidenceRecord } from '../core/certificate-evidence.js';
import type { DnsEvidenceRecord } from '../core/evidence-records.js';
import { blankPodStatus, placePodStatus } from './pod-status.js';

/** One kind of failure the scan knows, with where its words come from and what a line becomes. */
export interface FailureWords {
  id: string;
  /** The rule whose failure this is. */
  owner: string;
  /** Where the words are printed, upstream. */
  source: string;
  /** The knowledge base's entries (src/knowledge/causes) for what the words can mean: the causes come from there. */
  knowledge: readonly string[];
  pattern: RegExp;
  build(at: LineAt, m: RegExpExecArray): LdRecord;
  /** A real-shaped line the scan must turn into a record, and a close one it must leave alone. */
  fires: string;
  quiet: string;
}

/** A line and what it names, for the builders. */
export interface LineAt {
  input: InputInfo;
  line: number;
  text: string;
  pod: string | null;
  namespace: string | null;
  container: string | null;
}

/** Every entry's words, as literals: a line without one of them is not looked at further. */
const WORDS =
  /OOMKilled|CrashLoopBackOff|Init:|probe failed|Back-off restarting failed container|failed calling webhook|FailedCreatePodSandBox|Failed to create pod sandbox|x509: |tls: |is forbidden: User|dial tcp|Evicted|low on resource|FailedMount|MountVolume\.SetUp failed|no such host|NXDOMAIN|SERVFAIL|panicked at |DOWN/;

/** A row of Prometheus' targets page: the scrape URL, then the state. */
const TARGET_DOWN = /(https?:\/\/[^\s|]{1,300})[\s|]+DOWN(?![\w-])/;
/** Prometheus' scrape errors (scrape/scrape.go, net/http): what the row's Error column says. */
const SCRAPE_ERRORS =
  /server returned HTTP status \d{3}(?: [A-Za-z][A-Za-z ]{0,40})?|context deadline exceeded|connection refused|no route to host|i\/o timeout|EOF/;
const LABEL_JOB = /\bjob="([^"]{1,100})"/;
const LABEL_COMPONENT = /\bcomponent="([^"]{1,100})"/;

/** `pod/name`, `pods/name` (an API path), or a name carrying a ReplicaSet's hashes. */
const POD_NAMED = /\bpods?\/([a-z0-9][-a-z0-9.]{0,252})|(?<![-\w.])([a-z0-9][-a-z0-9]{0,200}-[a-z0-9]{8,10}-[a-z0-9]{5})(?![-a-z0-9.])/;
/** `/namespaces/linkerd/` in an API path. */
const NAMESPACE_NAMED = /\/namespaces\/([a-z0-9][-a-z0-9]{0,62})\//;
/** `container "linkerd-proxy"`, `failed container linkerd-proxy`, `container linkerd-proxy in pod …`. */
const CONTAINER_NAMED =
  /\bcontainer "([a-z0-9][-a-z0-9]{0,62})"|\bfailed container ([a-z0-9][-a-z0-9]{0,62})|\bcontainer ([a-z0-9][-a-z0-9]{0,62}) (?:in pod|failed)\b/;
/** The API server, as a dial names it: its service IP and port, or a port only it listens on. */
const API_PORT = /:(?:443|6443)\b/;

function event(at: LineAt, reason: string, message: string): KubeEventRecord {
  const record: KubeEventRecord = {
    kind: 'kube-event',
    path: at.input.path,
    line: at.line,
    source: 'last-look',
    type: 'Warning',
    reason,
    object: at.pod ? `pod/${at.pod}` : null,
    message: message.slice(0, 1000),
    count: 1,
    lastSeenAgoSeconds: null,
    firstSeenAgoSeconds: null,
    reporter: null,
  };
  const pod = at.pod ?? at.input.pod;
  if (pod) record.pod = pod;
  const namespace = at.namespace ?? at.input.namespace;
  if (namespace) record.namespace = namespace;
  const container = at.container ?? at.input.container;
  if (container) record.container = container;
  return record;
}

function status(at: LineAt, set: (r: PodStatusRecord) => void): PodStatusRecord {
  const record = blankPodStatus(at.input.path, at.line, 'last-look', null);
  placePodStatus(record, at.pod ?? at.input.pod, at.namespace ?? at.input.namespace);
  const container = at.container ?? at.input.container;
  if (container) record.container = container;
  set(record);
  return record;
}

/** nslookup's `** server can't find <name>: NXDOMAIN`, and a query as CoreDNS logs it: `"A IN <name>. udp …"`. */
const NSLOOKUP_NAME = /can't find ([^\s:]+?)\.?: /;
const QUERY_NAME = /"[A-Z]{1,10} IN ([^\s"]+?)\.? /;

function dns(at: LineAt, failure: DnsEvidenceRecord['failure'], name: string | null, server: string | null, from: number): DnsEvidenceRecord {
  const record: DnsEvidenceRecord = {
    kind: 'dns-evidence',
    path: at.input.path,
    line: at.line,
    failure,
    name,
    server,
    text: at.text.slice(from).trim().slice(0, 400),
  };
  const pod = at.pod ?? at.input.pod;
  if (pod) record.pod = pod;
  const namespace = at.namespace ?? at.input.namespace;
  if (namespace) record.namespace = namespace;
  return record;
}

const CERTIFICATE_FAILURES: readonly [RegExp, CertificateEvidenceRecord['failure']][] = [
  [/signed by unknown authority/, 'unknown-authority'],
  [/has expired or is not yet valid/, 'expired'],
  [/is valid for|is not valid for any names/, 'name-mismatch'],
  [/bad certificate/, 'bad-certificate'],
];

/** The failures the scan knows, in the order they are tried: the first that matches a line takes it. */
export const FAILURE_WORDS: readonly FailureWords[] = [
  {
    id: 'init-container-failed',
    owner: 'pod-restarts',
    knowledge: ['kubernetes:pod-network-setup-failed'],
    source: 'kubectl get pods STATUS for a failing init container: "Init:" + its reason (kubectl pkg/printers/internalversion/printers.go, printPod)',
    pattern: /\bInit:(Error|CrashLoopBackOff)\b/,
    build: (at, m) => status(at, (r) => (r.state = `Init:${m[1]}`)),
    fires: 'linkerd-identity-748c8f74f-gpzb8 0/2 Init:CrashLoopBackOff 5 (48s ago)',
    quiet: 'linkerd-identity-748c8f74f-gpzb8 0/2 Init:0/1 0 12s',
  },
  {
    id: 'oom-killed',
    owner: 'pod-restarts',
    knowledge: ['kubernetes:oom-killed'],
    source:
      'the container runtime\'s reason for a container the kernel\'s OOM killer ended, as the kubelet reports it (CRI ContainerStatus.reason, containerd/cri-o: "OOMKilled")',
    pattern: /\bOOMKilled\b/,
    build: (at) =>
      status(at, (r) => {
        r.lastState = 'Terminated';
        r.lastReason = 'OOMKilled';
      }),
    fires: 'the proxy container keeps restarting: Last State: Terminated, Reason: OOMKilled, Exit Code: 137',
    quiet: 'memory usage of the proxy is 180Mi of its 250Mi limit, no OOM kill so far',
  },
  {
    id: 'crash-loop',
    owner: 'pod-restarts',
    knowledge: ['kubernetes:crash-loop'],
    source:
      'the kubelet\'s waiting reason for a container in restart back-off (kubernetes pkg/kubelet/container/sync_result.go, ErrCrashLoopBackOff = "CrashLoopBackOff")',
    pattern: /(?<!Init:)\bCrashLoopBackOff\b/,
    build: (at) =>
      status(at, (r) => {
        r.state = 'Waiting';
        r.reason = 'CrashLoopBackOff';
      }),
    fires: 'linkerd-destination-79c6f4df89-zg88w is in CrashLoopBackOff since the upgrade',
    quiet: 'restartPolicy: Always, the kubelet backs off 10s, 20s, 40s up to 5m between restarts',
  },
  {
    id: 'probe-failed',
    owner: 'probe-failure',
    knowledge: ['kubernetes:probe-failed'],
    source: 'the kubelet\'s prober: event reason Unhealthy, message "%s probe failed: %s" (kubernetes pkg/kubelet/prober/prober.go, recordContainerEvent)',
    pattern: /\b((?:Liveness|Readiness|Startup) probe failed:.*)$/,
    build: (at, m) => event(at, 'Unhealthy', m[1]!),
    fires: 'Liveness probe failed: Get "http://10.94.94.3:9990/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    quiet: 'Liveness:   http-get http://:9990/live delay=10s timeout=1s period=10s #success=1 #failure=3',
  },
  {
    id: 'back-off-restarting',
    owner: 'pod-restarts',
    knowledge: ['kubernetes:crash-loop'],
    source:
      'the kubelet: event reason BackOff, message "Back-off restarting failed container %s in pod %s" (kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go, doBackOff)',
    pattern: /\b(Back-off restarting failed container.*)$/,
    build: (at, m) => event(at, 'BackOff', m[1]!),
    fires: 'Back-off restarting failed container linkerd-network-validator in pod linkerd-destination-7d9f8c6b5-x2x8k_linkerd(0b4d)',
    quiet: 'Back-off pulling image "cr.l5d.io/linkerd/proxy:stable-2.14.10"',
  },
  {
    id: 'pod-sandbox-failed',
    owner: 'pod-restarts',
    knowledge: ['kubernetes:pod-network-setup-failed'],
    source:
      'the kubelet: event reason FailedCreatePodSandBox, message "Failed to create pod sandbox: %v" (kubernetes pkg/kubelet/events/event.go; pkg/kubelet/kuberuntime/kuberuntime_manager.go, SyncPod)',
    pattern: /\b(Failed to create pod sandbox:.*)$|\bFailedCreatePodSandBox\b/,
    build: (at, m) => event(at, 'FailedCreatePodSandBox', m[1] ?? at.text.trim()),
    fires:
      'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "20ecb2f5": plugin type="linkerd-cni" name="linkerd-cni" failed (add): Unauthorized',
    quiet: 'Pod sandbox changed, it will be killed and re-created.',
  },
  {
    id: 'volume-mount-failed',
    owner: 'pod-restarts',
    knowledge: ['kubernetes:volume-mount-failed'],
    source:
      'the kubelet: event reason FailedMount, message "MountVolume.SetUp failed for volume %q : %v" (kubernetes pkg/kubelet/events/event.go, FailedMountVolume; pkg/volume/util/operationexecutor/operation_generator.go)',
    pattern: /\b(MountVolume\.SetUp failed for volume .*)$|\bFailedMount\b/,
    build: (at, m) => event(at, 'FailedMount', m[1] ?? at.text.trim()),
    fires: 'MountVolume.SetUp failed for volume "identity-issuer" : secret "linkerd-identity-issuer" not found',
    quiet: 'MountVolume.SetUp succeeded for volume "kube-api-access-5x2xq"',
  },
  {
    id: 'pod-evicted',
    owner: 'pod-restarts',
    knowledge: ['kubernetes:pod-evicted'],
    source:
      'the kubelet\'s eviction manager: pod status reason and event reason "Evicted", message "The node was low on resource: %v. " (kubernetes pkg/kubelet/eviction/helpers.go, Reason and nodeLowMessageFmt)',
    pattern: /\bEvicted\b|\bThe node was low on resource: /,
    build: (at) => event(at, 'Evicted', at.text.trim()),
    fires: 'linkerd-prometheus-6f44484f65-29629 Evicted: The node was low on resource: memory. Container prometheus was using 1811964Ki, request is 0.',
    quiet: 'evictionHard: memory.available<100Mi, the kubelet starts evicting pods below it',
  },
  {
    id: 'webhook-call-failed',
    owner: 'controller-api-errors',
    knowledge: ['kubernetes:webhook-call-failed', 'certificate:webhook-untrusted'],
    source:
      'the API server calling an admission webhook: "failed calling webhook %q: %v" (kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/errors and its dispatchers)',
    pattern: /\b(failed calling webhook "[^"]+": .*)$/,
    build: (at, m) => event(at, 'FailedCreate', m[1]!),
    fires:
      'Error from server (InternalError): Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": failed to call webhook: Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=10s": context deadline exceeded',
    quiet: 'mutatingwebhookconfiguration.admissionregistration.k8s.io/linkerd-proxy-injector-webhook-config configured',
  },
  {
    id: 'rbac-forbidden',
    owner: 'controller-api-errors',
    knowledge: ['kubernetes:rbac-forbidden'],
    source:
      'the API server\'s RBAC refusal as client-go prints it: "<resource> is forbidden: User \\"%s\\" cannot %s resource \\"%s\\" in API group \\"%s\\"" (kubernetes staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go, ForbiddenStatusError)',
    pattern: /\bis forbidden: User "system:serviceaccount:.*$/,
    build: (at, m) => event(at, 'Forbidden', `${at.text.slice(Math.max(0, m.index - 200), m.index).trimStart()}${m[0]}`),
    fires:
      'failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:linkerd:linkerd-destination" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope',
    quiet: 'pods "web-0" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false',
  },
  {
    id: 'dns-no-such-host',
    owner: 'dns-resolution-failure',
    knowledge: ['dns:control-plane-name-unresolvable'],
    source:
      'Go\'s resolver: "lookup %s on %s: no such host" (go src/net/net.go, DNSError.Error; src/net/dnsclient_unix.go, errNoSuchHost), as controllers, the CLI and linkerd-cni print it',
    pattern: /\blookup ([^\s:]+?)\.?(?: on (\S+))?: no such host\b/,
    build: (at, m) => dns(at, 'no-such-host', m[1]!, m[2] ?? null, m.index),
    fires: 'Failed to connect: dial tcp: lookup linkerd-dst-headless.linkerd.svc.cluster.local on 10.96.0.10:53: no such host',
    quiet: 'lookup linkerd-dst-headless.linkerd.svc.cluster.local on 10.96.0.10:53 answered 10.42.0.15',
  },
  {
    id: 'dns-rcode',
    owner: 'dns-resolution-failure',
    knowledge: ['dns:control-plane-name-unresolvable'],
    source:
      'the DNS response codes NXDOMAIN (3) and SERVFAIL (2) (RFC 1035 4.1.1) in the words CoreDNS\'s log plugin (miekg/dns RcodeToString) and nslookup ("** server can\'t find %s: NXDOMAIN") print',
    pattern: /\b(NXDOMAIN|SERVFAIL)\b/,
    build: (at, m) => {
      const name = NSLOOKUP_NAME.exec(at.text)?.[1] ?? QUERY_NAME.exec(at.text)?.[1] ?? null;
      return dns(at, m[1] === 'NXDOMAIN' ? 'nxdomain' : 'servfail', name, null, Math.max(0, at.text.search(/\S/)));
    },
    fires: "** server can't find linkerd-dst-headless.linkerd.svc.cluster.local: NXDOMAIN",
    quiet: '[INFO] 10.42.0.15:41712 - 3 "A IN linkerd-dst-headless.linkerd.svc.cluster.local. udp 74 false 512" NOERROR qr,aa,rd 196 0.000155s',
  },
  {
    id: 'api-server-unreachable',
    owner: 'controller-api-errors',
    knowledge: ['kubernetes:api-server-unreachable'],
    source:
      'Go\'s net package dialling the API server: "dial tcp %s: connect: connection refused" and "dial tcp %s: i/o timeout" (go src/net/net.go, OpError), towards the API server\'s port 443 or 6443',
    pattern: /\bdial tcp (\S+): (?:connect: )?(?:connection refused|i\/o timeout)/,
    build: (at, m) => event(at, 'ApiServerUnreachable', at.text.slice(m.index).trim()),
    fires: 'Failed to watch *v1.Pod: failed to list *v1.Pod: Get "https://10.96.0.1:443/api/v1/pods?limit=500": dial tcp 10.96.0.1:443: i/o timeout',
    quiet: 'Get "http://10.4.2.17:4191/ready": dial tcp 10.4.2.17:4191: connect: connection refused',
  },
  {
    id: 'certificate-verify-failed',
    owner: 'certificate-failure',
    knowledge: [
      'certificate:expired',
      'certificate:not-yet-valid',
      'certificate:issuer-untrusted',
      'certificate:webhook-untrusted',
      'certificate:tap-untrusted',
      'certificate:aggregator-client-untrusted',
    ],
    source:
      'Go\'s crypto/x509 verification errors ("x509: certificate signed by unknown authority", "x509: certificate has expired or is not yet valid", "x509: certificate is valid for %s, not %s") and crypto/tls alerts ("tls: bad certificate", "tls: failed to verify certificate") (go src/crypto/x509/verify.go, src/crypto/tls/alert.go)',
    pattern:
      /\b(?:x509: certificate (?:signed by unknown authority|has expired or is not yet valid|is valid for|is not valid for any names)|tls: (?:bad certificate|failed to verify certificate)).*$/,
    build: (at, m) => {
      const text = m[0].slice(0, 400);
      const record: CertificateEvidenceRecord = {
        kind: 'certificate-evidence',
        path: at.input.path,
        line: at.line,
        failure: CERTIFICATE_FAILURES.find(([p]) => p.test(text))?.[1] ?? 'verify-failed',
        text,
      };
      const lead = m.input.slice(Math.max(0, m.index - 160), m.index).trimEnd();
      if (lead !== '') record.lead = lead;
      const pod = at.pod ?? at.input.pod;
      if (pod) record.pod = pod;
      const namespace = at.namespace ?? at.input.namespace;
      if (namespace) record.namespace = namespace;
      return record;
    },
    fires:
      'http: TLS handshake error from 10.0.1.4:53124: remote error: tls: bad certificate; x509: certificate signed by unknown authority (possibly because of "crypto/rsa: verification error")',
    quiet: 'tls: using the identity certificate issued for linkerd-destination.linkerd.serviceaccount.identity.linkerd.cluster.local',
  },
  {
    id: 'proxy-panic',
    owner: 'known-signature',
    knowledge: ['proxy-panic'],
    source:
      "Rust's default panic hook (std::panicking::default_hook): `thread '<name>' panicked at <file>:<line>:<col>:` since Rust 1.73, `thread '<name>' panicked at '<message>', <file>:<line>:<col>` before, printed to stderr by the runtime, not by the proxy's logger",
    pattern: /thread '[^']{1,64}' panicked at /,
    build: (at, m) => {
      const text = at.text.slice(m.index).trim().slice(0, 2000);
      const record: ProxyLogRecord = {
        kind: 'proxy-log',
        path: at.input.path,
        line: at.line,
        format: 'plain',
        time: null,
        uptime: null,
        restart: 0,
        level: 'ERROR',
        thread: null,
        spans: [],
        target: 'panic',
        message: text,
        fields: {},
        raw: text,
        lastLook: true,
      };
      if (at.pod) record.pod = at.pod;
      if (at.namespace) record.namespace = at.namespace;
      return record;
    },
    fires: "thread 'main' panicked at 'attempt to subtract with overflow', linkerd/app/outbound/src/lib.rs:120:10",
    quiet: 'process_start_time_seconds 1725565062 # the proxy panicked at start-up last week, see the thread',
  },
  {
    id: 'scrape-target-down',
    owner: 'scrape-failure',
    knowledge: ['scrape:target-down'],
    source:
      "Prometheus' targets page (web/ui: Endpoint, State, Labels, Last Scrape, Scrape Duration, Error columns; State UP/DOWN/UNKNOWN) and its scrape errors (prometheus scrape/scrape.go: `server returned HTTP status %s`; Go net: `connection refused`, `i/o timeout`)",
    pattern: TARGET_DOWN,
    build: (at, m) => {
      const rest = at.text.slice(m.index + m[0].length);
      const record: MetricScrapeErrorRecord = {
        kind: 'metric-scrape-error',
        path: at.input.path,
        line: at.line,
        section: null,
        message: (SCRAPE_ERRORS.exec(rest)?.[0] ?? rest.replace(/[|\t]/g, ' ').trim()).slice(0, 300),
        source: 'prometheus-targets',
        target: m[1]!,
      };
      const job = LABEL_JOB.exec(rest)?.[1];
      if (job) record.job = job;
      const component = LABEL_COMPONENT.exec(rest)?.[1];
      if (component) record.component = component;
      return record;
    },
    fires:
      'http://10.42.10.118:9990/metrics | DOWN | component="policy" instance="10.42.10.118:9990" job="linkerd-controller" | 5.354s ago | 2.33ms | server returned HTTP status 404 Not Found',
    quiet: 'http://10.42.10.118:4191/metrics | UP | instance="10.42.10.118:4191" job="linkerd-proxy" | 3.1s ago | 12.4ms |',
  },
];

/**
 * Whether a record is one the last look made: it is evidence read off a line that stays unparsed
 * for its input (the line's accounting is unchanged), not a parse of that line.
 */
export function isLastLookRecord(record: LdRecord): boolean {
  switch (record.kind) {
    case 'certificate-evidence':
    case 'dns-evidence':
      return true;
    case 'proxy-log':
      return record.lastLook === true;
    case 'pod-status':
    case 'kube-event':
      return record.source === 'last-look';
    case 'metric-scrape-error':
      return record.source === 'prometheus-targets';
    default:
      return false;
  }
}

/**
 * The record the failure words of one unread line make, or null when the line holds none. The
 * first entry that matches takes the line: one line, one piece of evidence.
 */
export function lastLook(input: InputInfo, line: number, text: string): LdRecord | null {
  if (!WORDS.test(text)) return null;
  for (const words of FAILURE_WORDS) {
    const m = words.pattern.exec(text);
    if (!m) continue;
    if (words.id === 'api-server-unreachable' && !API_PORT.test(m[1]!)) continue;
    const pod = POD_NAMED.exec(text);
    const at: LineAt = {
      input,
      line,
      text,
      pod: pod ? (pod[1] ?? pod[2] ?? null) : null,
      namespace: NAMESPACE_NAMED.exec(text)?.[1] ?? null,
      container: containerNamed(text),
    };
    return words.build(at, m);
  }
  return null;
}

function containerNamed(text: string): string | null {
  const m = CONTAINER_NAMED.exec(text);
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
}
